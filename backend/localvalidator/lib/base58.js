'use strict';
// Base58 (Bitcoin alphabet), as Solana uses for addresses, signatures and blockhashes.
//
// Both directions convert between bases with limbs wider than a digit, to do
// a few hundred steps for a 32-byte key where byte-by-digit would do 1,400:
// encode reads two bytes at a time into limbs of five base-58 digits (58^5 <
// 2^30, so limb * 2^16 + carry stays an exact double), decode reads one
// three characters at a time into limbs of 32 bits (limb * 58^3 + carry <
// 2^50).

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;
const LIMB58 = 58 ** 5;
const LIMB32 = 2 ** 32;

// Addresses recur (owners, mints, programs, every key of a transaction): the
// last few tens of thousands of 32-byte values are kept in both directions,
// keyed by the bytes as a latin1 string and by the text.
const CACHE_SIZE = 1 << 16;
const encoded = new Map();
const decoded = new Map();

function remember(cache, key, value) {
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, value);
}

function encode(bytes) {
  if (bytes.length !== 32) return encodeBytes(bytes);
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('latin1');
  let text = encoded.get(key);
  if (text === undefined) remember(encoded, key, (text = encodeBytes(bytes)));
  return text;
}

// decode returns a new Buffer: callers may keep or change it.
function decode(str) {
  const bytes = decoded.get(str);
  if (bytes !== undefined) return Buffer.from(bytes);
  const out = decodeText(str);
  if (out.length === 32) remember(decoded, str, Buffer.from(out));
  return out;
}

function encodeBytes(bytes) {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Limbs of five digits, least significant first; each step shifts in 8 or 16 bits.
  const limbs = new Float64Array(Math.ceil((bytes.length * 1.3658) / 5) + 1);
  let used = 0;
  for (let i = zeros; i < bytes.length;) {
    let shift = 256;
    let carry = bytes[i++];
    if (i < bytes.length) {
      shift = 65536;
      carry = carry * 256 + bytes[i++];
    }
    for (let j = 0; j < used; j++) {
      const x = limbs[j] * shift + carry;
      carry = Math.floor(x / LIMB58);
      limbs[j] = x - carry * LIMB58;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB58);
      limbs[used++] = carry - q * LIMB58;
      carry = q;
    }
  }
  let out = '1'.repeat(zeros);
  for (let j = used - 1; j >= 0; j--) {
    let limb = limbs[j];
    let chunk = '';
    for (let k = 0; k < 5; k++) {
      chunk = ALPHABET[limb % 58] + chunk;
      limb = Math.floor(limb / 58);
    }
    // The most significant limb has no leading '1's (they would be zeros).
    out += j === used - 1 ? chunk.replace(/^1+/, '') : chunk;
  }
  return out;
}

function decodeText(str) {
  if (typeof str !== 'string') throw new Error('base58: not a string');
  let zeros = 0;
  while (zeros < str.length && str[zeros] === '1') zeros++;
  // Limbs of 32 bits, least significant first.
  const limbs = new Float64Array(Math.ceil((str.length * 0.7322) / 4) + 1);
  let used = 0;
  for (let i = zeros; i < str.length;) {
    // Up to three characters a step: limb * 58^3 + carry < 2^50.
    let carry = 0;
    let mult = 1;
    for (const end = Math.min(str.length, i + 3); i < end; i++) {
      const code = str.charCodeAt(i);
      const digit = code < 128 ? INDEX[code] : -1;
      if (digit < 0) throw new Error(`base58: invalid character ${JSON.stringify(String.fromCodePoint(str.codePointAt(i)))}`);
      carry = carry * 58 + digit;
      mult *= 58;
    }
    for (let j = 0; j < used; j++) {
      const x = limbs[j] * mult + carry;
      carry = Math.floor(x / LIMB32);
      limbs[j] = x - carry * LIMB32;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB32);
      limbs[used++] = carry - q * LIMB32;
      carry = q;
    }
  }
  let length = used * 4;
  if (used > 0) {
    const top = limbs[used - 1];
    length -= top < 0x100 ? 3 : top < 0x10000 ? 2 : top < 0x1000000 ? 1 : 0;
  }
  const out = Buffer.alloc(zeros + length);
  for (let j = 0, pos = out.length - 1; j < used; j++) {
    const limb = limbs[j];
    for (let k = 0; k < 4 && pos >= zeros; k++, pos--) out[pos] = (limb / 2 ** (8 * k)) & 0xff;
  }
  return out;
}

// decodePubkey decodes a base58 address and insists on 32 bytes.
function decodePubkey(str) {
  const b = decode(str);
  if (b.length !== 32) throw new Error(`invalid pubkey length ${b.length}`);
  return b;
}

module.exports = { encode, decode, decodePubkey };
