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
                object: 0.4925,
                possessive: 0.4749,
                agreement: 0.5342,
                name: 0.3247,
              },
            },
            {
              step: 1000,
              loss: 1.5693,
              skills: {
                subject: 0.9639,
                object: 0.6767,
                possessive: 0.9164,
                agreement: 0.968,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5226,
              skills: {
                subject: 1,
                object: 0.9966,
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
              loss: 1.6901,
              skills: {
                subject: 0.5144,
                object: 0.4839,
                possessive: 0.5123,
                agreement: 0.4977,
                name: 0.802,
              },
            },
            {
              step: 1000,
              loss: 1.5735,
              skills: {
                subject: 0.9488,
                object: 0.657,
                possessive: 0.8889,
                agreement: 0.7395,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5189,
              skills: {
                subject: 0.9988,
                object: 0.9932,
                possessive: 0.9969,
                agreement: 0.986,
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
              loss: 1.7169,
              skills: {
                subject: 0.5108,
                object: 0.463,
                possessive: 0.466,
                agreement: 0.4723,
                name: 0.3357,
              },
            },
            {
              step: 1000,
              loss: 1.564,
              skills: {
                subject: 0.972,
                object: 0.6549,
                possessive: 0.9286,
                agreement: 0.8809,
                name: 0.9835,
              },
            },
            {
              step: 2000,
              loss: 1.5124,
              skills: {
                subject: 0.9975,
                object: 0.9894,
                possessive: 1,
                agreement: 0.983,
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
              loss: 1.7229,
              skills: {
                subject: 0.4969,
                object: 0.4941,
                possessive: 0.5151,
                agreement: 0.5753,
                name: 0.8376,
              },
            },
            {
              step: 1000,
              loss: 1.6116,
              skills: {
                subject: 0.7385,
                object: 0.7705,
                possessive: 0.5351,
                agreement: 0.4795,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5264,
              skills: {
                subject: 0.9963,
                object: 0.9832,
                possessive: 0.9766,
                agreement: 0.9726,
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
              loss: 1.7324,
              skills: {
                subject: 0.5156,
                object: 0.4805,
                possessive: 0.5247,
                agreement: 0.493,
                name: 0.2127,
              },
            },
            {
              step: 1000,
              loss: 1.6085,
              skills: {
                subject: 0.779,
                object: 0.6655,
                possessive: 0.6667,
                agreement: 0.5256,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5207,
              skills: {
                subject: 0.9925,
                object: 0.9898,
                possessive: 1,
                agreement: 0.9674,
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
              loss: 1.733,
              skills: {
                subject: 0.4981,
                object: 0.4507,
                possessive: 0.5238,
                agreement: 0.4894,
                name: 0.1915,
              },
            },
            {
              step: 1000,
              loss: 1.5564,
              skills: {
                subject: 0.9389,
                object: 0.8504,
                possessive: 0.9014,
                agreement: 0.8085,
                name: 0.9953,
              },
            },
            {
              step: 2000,
              loss: 1.5127,
              skills: {
                subject: 1,
                object: 0.9982,
                possessive: 0.9932,
                agreement: 0.9957,
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
              loss: 1.7194,
              skills: {
                subject: 0.5181,
                object: 0.469,
                possessive: 0.4783,
                agreement: 0.4795,
                name: 0.6314,
              },
            },
            {
              step: 1000,
              loss: 1.6063,
              skills: {
                subject: 0.8107,
                object: 0.6717,
                possessive: 0.6288,
                agreement: 0.5068,
                name: 0.9948,
              },
            },
            {
              step: 2000,
              loss: 1.5236,
              skills: {
                subject: 0.9963,
                object: 0.995,
                possessive: 0.9833,
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
              loss: 1.7388,
              skills: {
                subject: 0.5019,
                object: 0.4703,
                possessive: 0.5185,
                agreement: 0.493,
                name: 0.1883,
              },
            },
            {
              step: 1000,
              loss: 1.6457,
              skills: {
                subject: 0.6367,
                object: 0.5178,
                possessive: 0.5031,
                agreement: 0.493,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5185,
              skills: {
                subject: 0.9975,
                object: 0.9949,
                possessive: 1,
                agreement: 0.9814,
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
              loss: 2.6072,
              skills: {
                subject: 0.5185,
                object: 0.4877,
                possessive: 0.4558,
                agreement: 0.5617,
                name: 0.0165,
              },
            },
            {
              step: 500,
              loss: 1.7246,
              skills: {
                subject: 0.521,
                object: 0.4789,
                possessive: 0.534,
                agreement: 0.4979,
                name: 0.305,
              },
            },
            {
              step: 1000,
              loss: 1.6232,
              skills: {
                subject: 0.7338,
                object: 0.5827,
                possessive: 0.5782,
                agreement: 0.5021,
                name: 1,
              },
            },
            {
              step: 2000,
              loss: 1.5129,
              skills: {
                subject: 0.9975,
                object: 1,
                possessive: 0.9966,
                agreement: 1,
                name: 1,
              },
            },
          ],
        },
      ],
    },
  ],
});
