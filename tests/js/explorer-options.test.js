// The explorer's one options schema: the same table of values through URL parameters, attributes
// (the element reads them with the same function), setConfig and postMessage, read back as
// getState shows them. The real element runs the same table in tests/browser/explorer-options.test.js.
import { describe, expect, test } from 'vitest';
import {
  defaultOptions,
  optionsFromQuery,
  readOptions,
  stateOf,
  queryOf,
  OPTION_SCHEMA,
  OPTION_NAMES,
} from '../../web/explorer/options.js';
import { configFromMessage } from '../../web/explorer/config-input.js';
import { PANELS } from '../../web/explorer/panels/index.js';
import { answer } from '../../web/explorer/slide-messages.js';
import { OPTION_CASES, asText } from './option-cases.js';

const DEFAULT_STATE = stateOf(defaultOptions());
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

// What the element does with a validated change (setConfig), over plain options.
function fakeElement() {
  let options = defaultOptions();
  return {
    setConfig: (config) => {
      options = { ...options, ...configFromMessage(config, options) };
      return stateOf(options);
    },
    state: () => stateOf(options),
  };
}

describe.each(OPTION_CASES)('$name = $value', ({ name, value, state, error, setConfigError }) => {
  const expected = state ? { ...DEFAULT_STATE, ...state } : DEFAULT_STATE;

  test('URL parameter', () => {
    const { options, notes } = optionsFromQuery(`?${new URLSearchParams({ [name]: asText(value) })}`);
    expect(stateOf(options)).toEqual(expected);
    if (error) expect(notes.join(' ')).toContain(error);
    else expect(notes).toEqual([]);
  });

  test('attribute', () => {
    const attributes = new Map([[name, asText(value)]]);
    const { options, notes } = readOptions((n) => attributes.get(n) ?? null);
    expect(stateOf(options)).toEqual(expected);
    expect(notes.length).toBe(error ? 1 : 0);
  });

  test('setConfig, under the attribute name and its camelCase', () => {
    for (const key of new Set([name, camel(name)])) {
      const element = fakeElement();
      const refusal = error ?? setConfigError;
      if (refusal) {
        expect(() => element.setConfig({ [key]: value })).toThrow(RangeError);
        expect(() => element.setConfig({ [key]: value })).toThrow(refusal);
        expect(element.state()).toEqual(DEFAULT_STATE); // nothing half applied
      } else expect(element.setConfig({ [key]: value })).toEqual(expected);
    }
  });

  test('postMessage', () => {
    const element = fakeElement();
    const reply = answer(element, { headwise: 1, id: 1, method: 'setConfig', params: { [name]: value } });
    const refusal = error ?? setConfigError;
    if (refusal) {
      expect(reply.ok).toBe(false);
      expect(reply.error).toContain(`setConfig: ${refusal}`);
    } else expect(reply).toEqual({ headwise: 1, id: 1, ok: true, result: expected });
  });

  test('getState round trip: the state, given back to setConfig and to the URL, is the same state', () => {
    if (!state) return;
    const { options } = optionsFromQuery(`?${new URLSearchParams({ [name]: asText(value) })}`);
    const shown = stateOf(options);
    expect(stateOf(optionsFromQuery(queryOf(options)).options)).toEqual(shown);
    if (setConfigError) return;
    expect(fakeElement().setConfig(shown)).toEqual(shown);
  });
});

test('the schema names every option once; every surface uses exactly its names', () => {
  // The page's options, then each panel's own, in the registry's order (no copy of the list here).
  const page = ['panel', 'preset', 'width', 'heads', 'causal', 'seed', 'sentence', 'slide', 'max-tokens', 'theme'];
  expect(OPTION_NAMES).toEqual([...page, ...PANELS.flatMap((entry) => (entry.options ?? []).map((row) => row.name))]);
  expect(OPTION_SCHEMA.filter((row) => row.panel).map((row) => row.name)).toEqual(OPTION_NAMES.slice(page.length));
  expect(new Set(OPTION_CASES.map((c) => c.name))).toEqual(new Set(OPTION_NAMES));
  expect(Object.keys(DEFAULT_STATE)).toEqual(OPTION_SCHEMA.map((row) => row.key));
  expect(() => configFromMessage({ colour: 'red' }, defaultOptions())).toThrow(
    /unknown option "colour"; use panel, preset, width/,
  );
  expect(() => configFromMessage({ dModel: 8, width: 8 }, defaultOptions())).toThrow('option "width" is given twice');
});
