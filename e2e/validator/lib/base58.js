'use strict';
// Base58 (Bitcoin alphabet), as Solana uses for addresses, signatures and blockhashes.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

function encode(bytes) {
  const digits = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '';
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out += '1';
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]];
  return out;
}

function decode(str) {
  if (typeof str !== 'string') throw new Error('base58: not a string');
  const bytes = [];
  for (const c of str) {
    let carry = INDEX.get(c);
    if (carry === undefined) throw new Error(`base58: invalid character ${JSON.stringify(c)}`);
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (let i = 0; i < str.length && str[i] === '1'; i++) bytes.push(0);
  return Buffer.from(bytes.reverse());
}

// decodePubkey decodes a base58 address and insists on 32 bytes.
function decodePubkey(str) {
  const b = decode(str);
  if (b.length !== 32) throw new Error(`invalid pubkey length ${b.length}`);
  return b;
}

module.exports = { encode, decode, decodePubkey };
