'use strict';
// Base58 against known vectors and a byte-at-a-time reference implementation.

const test = require('node:test');
const assert = require('node:assert');
const crypto = require('crypto');
const bs58 = require('../lib/base58');

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

// reference converts byte by digit, the textbook way.
function reference(bytes) {
  const digits = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    for (; carry > 0; carry = (carry / 58) | 0) digits.push(carry % 58);
  }
  let out = '';
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out += '1';
  return out + digits.reverse().map((d) => ALPHABET[d]).join('');
}

test('known vectors', () => {
  const vectors = [
    ['', ''], ['00', '1'], ['0000', '11'], ['61', '2g'], ['626262', 'a3gV'], ['636363', 'aPEr'],
    ['0000000000000000000000000000000000000000000000000000000000000000', '11111111111111111111111111111111'],
    ['06a7d51718c774c928566398691d5eb68b5eb8a39b4b6d5c73555b2100000000', 'SysvarC1ock11111111111111111111111111111111'],
    ['06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'],
  ];
  for (const [hex, text] of vectors) {
    assert.strictEqual(bs58.encode(Buffer.from(hex, 'hex')), text);
    assert.strictEqual(bs58.decode(text).toString('hex'), hex);
  }
});

test('round trips equal the reference', () => {
  for (let len = 0; len < 72; len++) {
    for (let r = 0; r < 200; r++) {
      const b = crypto.randomBytes(len);
      if (r % 3 === 0) b.fill(0, 0, Math.min(len, r % 5));
      if (r % 11 === 0) b.fill(r % 2 ? 0xff : 0);
      const text = reference(b);
      assert.strictEqual(bs58.encode(b), text);
      assert.ok(bs58.decode(text).equals(b), text);
    }
  }
});

test('invalid input', () => {
  for (const bad of ['0', 'O', 'I', 'l', 'a b', 'é']) assert.throws(() => bs58.decode(bad), /base58: invalid character/);
  assert.throws(() => bs58.decode(5), /not a string/);
  assert.throws(() => bs58.decodePubkey('2g'), /invalid pubkey length 1/);
});
