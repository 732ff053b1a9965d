'use strict';
// JSON with bigints written as plain numbers (lamports and u64 fields such as
// rentEpoch exceed 2^53; an Agave node writes them unquoted), and RawJSON
// values written as the text they hold: a part of an answer encoded once and
// kept (lib/accountcache.js).

const TAG = '\u0000';
// split on a tagged value gives text, kind, value, text, ...
const TAGGED = /"\\u0000(bigint|raw):(-?\d+)"/;

// RawJSON is JSON text that stringify writes as is, where its value would be:
// a string, or a Buffer of UTF-8 (a large part kept encoded, which
// stringifyParts hands on without copying it).
class RawJSON {
  constructor(text) { this.text = text; }
}

function stringify(value) {
  const parts = stringifyParts(value);
  return parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : parts.map(String).join('');
}

// stringifyParts is stringify's text in parts, strings and the Buffers of
// RawJSON values, in order: an HTTP answer writes them one after the other.
function stringifyParts(value) {
  const raws = [];
  const s = JSON.stringify(value, (_k, v) => {
    if (typeof v === 'bigint') return `${TAG}bigint:${v}`;
    if (v instanceof RawJSON) return `${TAG}raw:${raws.push(v.text) - 1}`;
    return v;
  });
  if (s === undefined) return ['null'];
  if (!s.includes('\\u0000')) return [s];
  const split = s.split(TAGGED);
  const out = [];
  let text = split[0];
  for (let i = 1; i < split.length; i += 3) {
    const v = split[i] === 'bigint' ? split[i + 1] : raws[Number(split[i + 1])];
    if (typeof v === 'string') {
      text += v + split[i + 2];
      continue;
    }
    out.push(text, v);
    text = split[i + 2];
  }
  out.push(text);
  return out;
}

module.exports = { stringify, stringifyParts, RawJSON };
