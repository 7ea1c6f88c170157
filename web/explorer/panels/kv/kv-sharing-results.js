// Written by `node scripts/make-kv-sharing.mjs` (do not edit): the run is KV_SHARING_RUN (kv-sharing.js).
export default Object.freeze({
  models: [
    {
      kvHeads: 4,
      parameters: 72658,
      seeds: [
        {
          seed: 1,
          points: [
            {
              step: 100,
              loss: 2.6236,
              skills: {
                subject: 0.5006,
                object: 0.4874,
                possessive: 0.5217,
                agreement: 0.4795,
                name: 0.0284,
              },
            },
            {
              step: 500,
              loss: 1.722,
              skills: {
                subject: 0.5218,
                object: 0.4908,
                possessive: 0.4749,
                agreement: 0.5251,
                name: 0.3247,
              },
            },
            {
              step: 1000,
              loss: 1.5687,
              skills: {
                subject: 0.9664,
                object: 0.6851,
                possessive: 0.9197,
                agreement: 0.9635,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5222,
              skills: {
                subject: 1,
                object: 0.9983,
                possessive: 1,
                agreement: 0.9954,
                name: 1,
              },
            },
          ],
        },
        {
          seed: 2,
          points: [
            {
              step: 100,
              loss: 2.5414,
              skills: {
                subject: 0.5081,
                object: 0.4992,
                possessive: 0.5154,
                agreement: 0.4698,
                name: 0.0318,
              },
            },
            {
              step: 500,
              loss: 1.6904,
              skills: {
                subject: 0.5144,
                object: 0.4907,
                possessive: 0.5216,
                agreement: 0.493,
                name: 0.8068,
              },
            },
            {
              step: 1000,
              loss: 1.573,
              skills: {
                subject: 0.9451,
                object: 0.6621,
                possessive: 0.8981,
                agreement: 0.7442,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5196,
              skills: {
                subject: 0.9938,
                object: 0.9864,
                possessive: 1,
                agreement: 0.9953,
                name: 1,
              },
            },
          ],
        },
        {
          seed: 3,
          points: [
            {
              step: 100,
              loss: 2.6127,
              skills: {
                subject: 0.5146,
                object: 0.5,
                possessive: 0.4592,
                agreement: 0.5702,
                name: 0.0355,
              },
            },
            {
              step: 500,
              loss: 1.7164,
              skills: {
                subject: 0.5045,
                object: 0.4736,
                possessive: 0.4728,
                agreement: 0.4638,
                name: 0.3428,
              },
            },
            {
              step: 1000,
              loss: 1.5632,
              skills: {
                subject: 0.9669,
                object: 0.6549,
                possessive: 0.9252,
                agreement: 0.8809,
                name: 0.9929,
              },
            },
            {
              step: 2000,
              loss: 1.5117,
              skills: {
                subject: 0.9987,
                object: 0.9965,
                possessive: 1,
                agreement: 0.9957,
                name: 1,
              },
            },
          ],
        },
      ],
    },
    {
      kvHeads: 2,
      parameters: 68498,
      seeds: [
        {
          seed: 1,
          points: [
            {
              step: 100,
              loss: 2.6496,
              skills: {
                subject: 0.4994,
                object: 0.474,
                possessive: 0.5385,
                agreement: 0.4886,
                name: 0.0258,
              },
            },
            {
              step: 500,
              loss: 1.7235,
              skills: {
                subject: 0.4956,
                object: 0.4992,
                possessive: 0.5117,
                agreement: 0.5799,
                name: 0.8402,
              },
            },
            {
              step: 1000,
              loss: 1.6105,
              skills: {
                subject: 0.7572,
                object: 0.7856,
                possessive: 0.5217,
                agreement: 0.4886,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5266,
              skills: {
                subject: 0.995,
                object: 0.9749,
                possessive: 0.9766,
                agreement: 0.9772,
                name: 1,
              },
            },
          ],
        },
        {
          seed: 2,
          points: [
            {
              step: 100,
              loss: 2.5753,
              skills: {
                subject: 0.4682,
                object: 0.4992,
                possessive: 0.5154,
                agreement: 0.4837,
                name: 0.0293,
              },
            },
            {
              step: 500,
              loss: 1.7327,
              skills: {
                subject: 0.5144,
                object: 0.4788,
                possessive: 0.5093,
                agreement: 0.493,
                name: 0.2103,
              },
            },
            {
              step: 1000,
              loss: 1.61,
              skills: {
                subject: 0.774,
                object: 0.6537,
                possessive: 0.6512,
                agreement: 0.5349,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5197,
              skills: {
                subject: 0.9975,
                object: 0.9932,
                possessive: 0.9907,
                agreement: 0.9767,
                name: 1,
              },
            },
          ],
        },
        {
          seed: 3,
          points: [
            {
              step: 100,
              loss: 2.6209,
              skills: {
                subject: 0.5185,
                object: 0.4771,
                possessive: 0.4456,
                agreement: 0.5702,
                name: 0.0165,
              },
            },
            {
              step: 500,
              loss: 1.7323,
              skills: {
                subject: 0.5032,
                object: 0.4489,
                possessive: 0.5272,
                agreement: 0.4894,
                name: 0.2009,
              },
            },
            {
              step: 1000,
              loss: 1.5559,
              skills: {
                subject: 0.9401,
                object: 0.8609,
                possessive: 0.898,
                agreement: 0.8213,
                name: 0.9953,
              },
            },
            {
              step: 2000,
              loss: 1.5123,
              skills: {
                subject: 0.9987,
                object: 0.9982,
                possessive: 0.9966,
                agreement: 0.9915,
                name: 1,
              },
            },
          ],
        },
      ],
    },
    {
      kvHeads: 1,
      parameters: 66418,
      seeds: [
        {
          seed: 1,
          points: [
            {
              step: 100,
              loss: 2.6548,
              skills: {
                subject: 0.5019,
                object: 0.4774,
                possessive: 0.5251,
                agreement: 0.4749,
                name: 0.0284,
              },
            },
            {
              step: 500,
              loss: 1.7195,
              skills: {
                subject: 0.5243,
                object: 0.469,
                possessive: 0.4849,
                agreement: 0.4749,
                name: 0.6314,
              },
            },
            {
              step: 1000,
              loss: 1.6069,
              skills: {
                subject: 0.8095,
                object: 0.6616,
                possessive: 0.6221,
                agreement: 0.516,
                name: 0.9948,
              },
            },
            {
              step: 2000,
              loss: 1.5234,
              skills: {
                subject: 0.9963,
                object: 0.9966,
                possessive: 0.9866,
                agreement: 0.9863,
                name: 1,
              },
            },
          ],
        },
        {
          seed: 2,
          points: [
            {
              step: 100,
              loss: 2.5897,
              skills: {
                subject: 0.4819,
                object: 0.5008,
                possessive: 0.537,
                agreement: 0.5349,
                name: 0.0244,
              },
            },
            {
              step: 500,
              loss: 1.7386,
              skills: {
                subject: 0.5094,
                object: 0.4771,
                possessive: 0.5154,
                agreement: 0.493,
                name: 0.1883,
              },
            },
            {
              step: 1000,
              loss: 1.6464,
              skills: {
                subject: 0.6392,
                object: 0.5263,
                possessive: 0.5093,
                agreement: 0.493,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5186,
              skills: {
                subject: 0.9975,
                object: 0.9949,
                possessive: 0.9969,
                agreement: 0.9814,
                name: 0.9976,
              },
            },
          ],
        },
        {
          seed: 3,
          points: [
            {
              step: 100,
              loss: 2.6072,
              skills: {
                subject: 0.5172,
                object: 0.4877,
                possessive: 0.4558,
                agreement: 0.5617,
                name: 0.0165,
              },
            },
            {
              step: 500,
              loss: 1.7242,
              skills: {
                subject: 0.5236,
                object: 0.4736,
                possessive: 0.5238,
                agreement: 0.4894,
                name: 0.3002,
              },
            },
            {
              step: 1000,
              loss: 1.622,
              skills: {
                subject: 0.7389,
                object: 0.5739,
                possessive: 0.5918,
                agreement: 0.5064,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5123,
              skills: {
                subject: 1,
                object: 1,
                possessive: 0.9932,
                agreement: 0.9915,
                name: 1,
              },
            },
          ],
        },
      ],
    },
  ],
});
