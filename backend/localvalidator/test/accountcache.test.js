'use strict';
// The chain's encoded accounts answer what encoding each account afresh
// answers, byte for byte, before and after transactions change the accounts.

const test = require('node:test');
const assert = require('node:assert');
const { Chain } = require('../lib/chain');
const { Rpc } = require('../lib/rpc');
const { stringify } = require('../lib/json');
const { encodeAccount } = require('../lib/accounts');
const { Fixtures, keypair, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./fixtures');

const BASE64 = { encoding: 'base64', commitment: 'confirmed' };

test('encoded accounts follow the transactions that change them', () => {
  const chain = new Chain({ programsDir: null });
  const rpc = new Rpc(chain);
  const fx = new Fixtures(chain);
  const alice = keypair();
  const bob = keypair();
  const made = [...fx.mintsWithAccounts(TOKEN_PROGRAM, alice.address, 3), ...fx.mintsWithAccounts(TOKEN_2022_PROGRAM, alice.address, 3)];
  const keys = made.flatMap(({ mint, account }) => [account.address, mint.address]);
  keys.push(keypair().address, fx.payer.address); // absent, and a system account
  // fresh is each key's account encoded now, with nothing kept.
  const fresh = () => stringify(keys.map((k) => {
    const acct = chain.account(k);
    return acct ? encodeAccount(acct, BASE64) : null;
  }));
  const read = () => stringify(rpc.m_getMultipleAccounts(keys, BASE64).value);
  const tokenAccounts = (owner, program) => JSON.parse(stringify(rpc.m_getTokenAccountsByOwner(owner, { programId: program }, BASE64).value));

  assert.strictEqual(read(), fresh(), 'first read');
  assert.strictEqual(read(), fresh(), 'kept');
  const before = tokenAccounts(alice.address, TOKEN_PROGRAM);
  assert.strictEqual(before.length, 3);

  // Written after being kept: a mint to, a delegate, a new owner, a close.
  const [a, b, c, d] = made;
  fx.send([fx.payer], [ix.mintTo(a.program, a.mint.address, a.account.address, fx.payer.address, 42)]);
  fx.send([fx.payer, alice], [ix.approve(b.program, b.account.address, bob.address, alice.address, 7)]);
  fx.send([fx.payer, alice], [ix.setOwner(c.program, c.account.address, alice.address, bob.address)]);
  fx.send([fx.payer, alice], [ix.closeAccount(d.program, d.account.address, fx.payer.address, alice.address)]);

  assert.strictEqual(read(), fresh(), 'after the writes');
  const after = tokenAccounts(alice.address, TOKEN_PROGRAM);
  assert.strictEqual(after.length, 2, 'the account handed to bob is gone');
  const minted = after.find((x) => x.pubkey === a.account.address);
  assert.notStrictEqual(minted.account.data[0], before.find((x) => x.pubkey === a.account.address).account.data[0], 'new data after mintTo');
  assert.strictEqual(Buffer.from(minted.account.data[0], 'base64').readBigUInt64LE(64), 42n);
  assert.deepStrictEqual(tokenAccounts(bob.address, TOKEN_PROGRAM).map((x) => x.pubkey), [c.account.address]);
  assert.strictEqual(JSON.parse(read())[6], null, 'the closed account');
  assert.strictEqual(stringify(rpc.m_getAccountInfo(b.account.address, BASE64).value), stringify(encodeAccount(chain.account(b.account.address), BASE64)));
});
