// The slide-control protocol's validation in Node, against a recording stand-in for the element:
// only allow-listed methods are ever called, whatever the message names.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { answer, allowedOriginsFrom, MAX_MESSAGE_CHARS } from '../../web/explorer/slide-messages.js';
import { configFromMessage } from '../../web/explorer/config-input.js';

function recorder() {
  const calls = [];
  const state = { step: 0 };
  const element = {
    nextStep: () => {
      calls.push('nextStep');
      return state;
    },
    previousStep: () => {
      calls.push('previousStep');
      return state;
    },
    goToStep: (step) => {
      calls.push(`goToStep ${step}`);
      if (!Number.isInteger(step)) throw new TypeError('step must be a whole number from 0 to 4');
      return state;
    },
    setConfig: (config) => {
      calls.push('setConfig');
      return configFromMessage(config, { dModel: 6, heads: 2 });
    },
    getState: () => {
      calls.push('getState');
      return state;
    },
    render: () => calls.push('render'),
    remove: () => calls.push('remove'),
  };
  return { element, calls };
}

test('names outside the allow-list are refused and reach nothing', () => {
  const { element, calls } = recorder();
  for (const method of [
    'render',
    'remove',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    42,
    null,
  ]) {
    const reply = answer(element, { headwise: 1, id: 'x', method });
    assert.equal(reply.ok, false, String(method));
    assert.match(reply.error, /unknown method/);
  }
  assert.deepEqual(calls, []);
});

test('well-formed requests are answered; ids are echoed; other messages are ignored', () => {
  const { element, calls } = recorder();
  assert.deepEqual(answer(element, { headwise: 1, id: 7, method: 'nextStep' }), {
    headwise: 1,
    id: 7,
    ok: true,
    result: { step: 0 },
  });
  assert.equal(answer(element, JSON.stringify({ headwise: 1, id: 's', method: 'getState' })).id, 's');
  assert.equal(answer(element, { headwise: 1, id: { evil: true }, method: 'getState' }).id, null);
  assert.equal(answer(element, { headwise: 1, id: 'y'.repeat(65), method: 'getState' }).id, null);
  for (const other of [
    null,
    undefined,
    3,
    'hello',
    '{"type":"reveal"}',
    { type: 'reveal', method: 'nextStep' },
    [1, 2],
  ])
    assert.equal(answer(element, other), null);
  assert.deepEqual(calls, ['nextStep', 'getState', 'getState', 'getState']);
});

test('oversized, malformed and invalid requests get an error and change nothing', () => {
  const { element, calls } = recorder();
  const big = { headwise: 1, id: 'big', method: 'setConfig', params: { sentence: 'x'.repeat(MAX_MESSAGE_CHARS) } };
  assert.match(answer(element, big).error, /message too large: \d+ characters of JSON, at most 4096/);
  assert.match(answer(element, JSON.stringify(big)).error, /message too large/);
  const cyclic = { headwise: 1, method: 'getState' };
  cyclic.self = cyclic;
  assert.match(answer(element, cyclic).error, /not plain JSON data/);
  assert.match(answer(element, { headwise: '1', method: 'getState' }).error, /unsupported protocol version "1"/);
  assert.match(
    answer(element, { headwise: 1, method: 'setConfig', params: 'heads=4' }).error,
    /params must be an object/,
  );
  assert.match(
    answer(element, { headwise: 1, method: 'goToStep', params: { step: 'last' } }).error,
    /goToStep: step must be a whole number/,
  );
  assert.deepEqual(calls, ['goToStep last']);
  const refused = (params) => answer(element, { headwise: 1, method: 'setConfig', params }).error;
  assert.match(refused({ width: 7 }), /width 7 is not divisible by 2 heads/);
  assert.match(refused({ heads: 1e9 }), /heads="1000000000" was ignored/);
  assert.match(refused({ width: 'abc' }), /width="abc" was ignored/);
  assert.match(refused({ constructor: 1 }), /unknown option "constructor"/);
  assert.match(refused({ seed: [1] }), /option "seed" must be a string, a number or a boolean/);
  assert.match(refused({ dModel: 8, width: 8 }), /option "width" is given twice/);
});

test('setConfig: presets, overrides and flags become options', () => {
  assert.deepEqual(configFromMessage({ preset: 'gpt2' }, { dModel: 6, heads: 2 }), {
    preset: 'gpt2',
    dModel: 768,
    heads: 12,
  });
  assert.deepEqual(configFromMessage({ preset: 'gpt2', heads: 4 }, { dModel: 6, heads: 2 }), {
    preset: 'custom',
    dModel: 768,
    heads: 4,
  });
  assert.deepEqual(configFromMessage({ heads: 3 }, { dModel: 6, heads: 2 }), { heads: 3, preset: 'custom' });
  assert.deepEqual(
    configFromMessage({ causal: false, slide: 1, panel: 'all', maxTokens: 20 }, { dModel: 6, heads: 2 }),
    { causal: false, slide: true, panel: null, maxTokens: 20 },
  );
});

test('?origins= parses into origins; junk entries are dropped', () => {
  assert.equal(allowedOriginsFrom('?panel=steps'), null);
  assert.deepEqual(
    [...allowedOriginsFrom('?origins=https://a.example/deck/,http://127.0.0.1:8080,not a url')],
    ['https://a.example', 'http://127.0.0.1:8080'],
  );
});

test('forwardKeys: a boolean through the embedding context; without an embedding page, an error reply', () => {
  const element = { getState: () => ({}) };
  const seen = [];
  const context = {
    forwardKeys(on) {
      if (typeof on !== 'boolean') throw new TypeError(`on must be true or false, got ${JSON.stringify(on)}`);
      seen.push(on);
      return { forwardingKeys: on };
    },
  };
  const ok = answer(element, { headwise: 1, id: 'k', method: 'forwardKeys', params: { on: true } }, context);
  assert.deepEqual(ok, { headwise: 1, id: 'k', ok: true, result: { forwardingKeys: true } });
  const bad = answer(element, { headwise: 1, id: 'b', method: 'forwardKeys', params: { on: 'yes' } }, context);
  assert.equal(bad.ok, false);
  assert.equal(bad.error, 'forwardKeys: on must be true or false, got "yes"');
  assert.deepEqual(seen, [true]);
  const alone = answer(element, { headwise: 1, id: 'a', method: 'forwardKeys', params: { on: true } });
  assert.equal(alone.error, 'forwardKeys: only an embedded page can forward keys to its parent');
});
