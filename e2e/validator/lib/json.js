'use strict';
// JSON with bigints written as plain numbers (lamports and u64 fields such as
// rentEpoch exceed 2^53; an Agave node writes them unquoted).

const TAG = '\u0000bigint:';

function stringify(value) {
  const s = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? TAG + v.toString() : v));
  return s === undefined ? 'null' : s.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

module.exports = { stringify };
