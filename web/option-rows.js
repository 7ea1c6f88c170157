// What the two option tables the core defines (createAttention's, the trainer's) share on the JS
// side: reading a table once per module, with its rows frozen and found by name, and the type
// checks of a value against its row. Each table's ranges and messages stay with its own module.
import { describe } from './arguments.js';
import { HeadwiseError } from './errors.js';

const tables = new WeakMap();
/**
 * The core's table from `binding`, read once per core; `shape(raw, rows)` builds what the caller
 * keeps from the raw table and its frozen rows (with `byName`, a Map: "constructor" or "toString"
 * are not rows).
 */
export function optionTable(core, binding, rowsOf, shape) {
  let byBinding = tables.get(core);
  if (!byBinding) tables.set(core, (byBinding = new Map()));
  if (!byBinding.has(binding)) {
    const raw = core.call(binding);
    if (raw === null) throw new HeadwiseError(core.call('lastError'));
    const rows = Object.freeze(
      rowsOf(raw).map((row) => Object.freeze({ ...row, choices: row.choices && Object.freeze([...row.choices]) })),
    );
    byBinding.set(binding, Object.freeze(shape(raw, rows, new Map(rows.map((row) => [row.name, row])))));
  }
  return byBinding.get(binding);
}

/**
 * A value against its row's type: booleans and choices are checked whole (true: nothing left to
 * check), numbers only for being numbers (false: the caller checks their range).
 */
export function checkedType(row, value) {
  const { name, type } = row;
  if (type === 'boolean') {
    if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false, got ${describe(value)}`);
    return true;
  }
  if (type === 'choice') {
    if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
    if (!row.choices.includes(value)) {
      throw new RangeError(
        `${name} must be one of ${row.choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`,
      );
    }
    return true;
  }
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  return false;
}
