'use strict';
// The owner index answers getTokenAccountsByOwner as a scan of every account of
// the program does, as accounts are made, change owner and are closed.

const test = require('node:test');
const assert = require('node:assert');
const { Chain } = require('../lib/chain');
const { Rpc } = require('../lib/rpc');
const { stringify } = require('../lib/json');
const { Fixtures, keypair, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./fixtures');

// byScan is the answer of a scan of every account of the program.
function byScan(rpc, owner, filter, config) {
  return rpc.tokenAccountsBy(filter, config, (ta) => ta.owner === owner);
}

// sorted is the answer's JSON text, its accounts by address (the text is what
// a client reads: the index answers from the chain's encoded accounts, its
// value written as their joined text). Integers of 16 digits and more are
// read as strings, so that none loses a digit on the way (rentEpoch is
// u64::MAX).
function sorted(answer) {
  const exact = (text) => JSON.parse(text.replace(/:(\d{16,})/g, ':"$1"'));
  const value = exact(stringify(answer.value));
  return stringify({ context: answer.context, value: value.sort((a, b) => a.pubkey.localeCompare(b.pubkey)) });
}

test('getTokenAccountsByOwner from the index equals a scan', () => {
  const chain = new Chain({ programsDir: null });
  const rpc = new Rpc(chain);
  const fx = new Fixtures(chain);
  const alice = keypair();
  const bob = keypair();
  const made = [];
  for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
    made.push(...fx.mintsWithAccounts(program, alice.address, 6), ...fx.mintsWithAccounts(program, bob.address, 3));
  }
  const check = (label) => {
    for (const owner of [alice.address, bob.address, keypair().address]) {
      for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
        for (const encoding of ['base64', 'jsonParsed']) {
          const filter = { programId: program };
          const config = { encoding, commitment: 'confirmed' };
          assert.strictEqual(sorted(rpc.m_getTokenAccountsByOwner(owner, filter, config)), sorted(byScan(rpc, owner, filter, config)), `${label}: ${program} ${encoding}`);
          // Asked again, from the answer kept until a transaction lands.
          assert.strictEqual(sorted(rpc.m_getTokenAccountsByOwner(owner, filter, config)), sorted(byScan(rpc, owner, filter, config)), `${label}: ${program} ${encoding}, again`);
        }
      }
      const mint = { mint: made[0].mint.address };
      for (const config of [{}, { encoding: 'base64' }]) {
        assert.strictEqual(stringify(rpc.m_getTokenAccountsByOwner(owner, mint, config)), stringify(byScan(rpc, owner, mint, config)), `${label}: by mint`);
      }
    }
  };
  check('made');
  assert.strictEqual(rpc.m_getTokenAccountsByOwner(alice.address, { programId: TOKEN_PROGRAM }, {}).value.length, 6);

  const funded = fx.wallet();
  // Alice hands two accounts to Bob and closes two others.
  for (const { program, account } of [made[0], made[9]]) fx.send([fx.payer, alice], [ix.setOwner(program, account.address, alice.address, bob.address)]);
  for (const { program, account } of [made[1], made[10]]) fx.send([fx.payer, alice], [ix.closeAccount(program, account.address, funded.address, alice.address)]);
  check('after changes of owner and closes');
  assert.strictEqual(rpc.m_getTokenAccountsByOwner(alice.address, { programId: TOKEN_PROGRAM }, {}).value.length, 4);
  assert.strictEqual(rpc.m_getTokenAccountsByOwner(bob.address, { programId: TOKEN_2022_PROGRAM }, {}).value.length, 4);

  // Accounts made after the index was built are in it.
  fx.mintsWithAccounts(TOKEN_2022_PROGRAM, bob.address, 2);
  check('after more accounts');
  assert.strictEqual(rpc.m_getTokenAccountsByOwner(bob.address, { programId: TOKEN_2022_PROGRAM }, {}).value.length, 6);
});

test('getTokenAccountsByOwner refuses what a node refuses', () => {
  const rpc = new Rpc(new Chain({ programsDir: null }));
  const owner = keypair().address;
  assert.throws(() => rpc.m_getTokenAccountsByOwner('nope', { programId: TOKEN_PROGRAM }), /Invalid param: could not find account/);
  assert.throws(() => rpc.m_getTokenAccountsByOwner(owner, { programId: owner }), /unrecognized Token program id/);
  assert.throws(() => rpc.m_getTokenAccountsByOwner(owner, { mint: owner }), /could not find mint/);
  assert.throws(() => rpc.m_getTokenAccountsByOwner(owner, {}), /expected a mint or programId filter/);
});
