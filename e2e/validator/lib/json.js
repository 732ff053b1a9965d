'use strict';
// JSON with bigints written as plain numbers (lamports and u64 fields such as
// rentEpoch exceed 2^53; an Agave node writes them unquoted), and RawJSON
// values written as the text they hold: a part of an answer encoded once and
// kept (lib/accountcache.js).

const TAG = '\u0000';
// split on a tagged value gives text, kind, value, text, ...
const TAGGED = /"\\u0000(bigint|raw):(-?\d+)"/;

// RawJSON is JSON text that stringify writes as is, where its value would be.
class RawJSON {
  constructor(text) { this.text = text; }
}

function stringify(value) {
  const raws = [];
  const s = JSON.stringify(value, (_k, v) => {
    if (typeof v === 'bigint') return `${TAG}bigint:${v}`;
    if (v instanceof RawJSON) return `${TAG}raw:${raws.push(v.text) - 1}`;
    return v;
  });
  if (s === undefined) return 'null';
  if (!s.includes('\\u0000')) return s;
  const parts = s.split(TAGGED);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 3) {
    out += (parts[i] === 'bigint' ? parts[i + 1] : raws[Number(parts[i + 1])]) + parts[i + 2];
  }
  return out;
}

module.exports = { stringify, RawJSON };
