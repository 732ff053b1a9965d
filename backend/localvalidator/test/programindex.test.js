'use strict';
// getProgramAccounts from the program index answers as a scan of every
// account of the program does, as accounts are made, change and close: the
// scans Reclaim's listing makes (mints by authority, buffers by authority,
// nonce and stake accounts by authority), and filters refused as a node
// refuses them.

const test = require('node:test');
const assert = require('node:assert');
const bs58 = require('../lib/base58');
const { Chain } = require('../lib/chain');
const { Rpc } = require('../lib/rpc');
const { stringify } = require('../lib/json');
const {
  Fixtures, keypair, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, MINT_SIZE, SYSTEM, LOADER, STAKE, NONCE_SIZE, STAKE_SIZE, BUFFER_METADATA_SIZE,
} = require('./fixtures');

// matches is the filters' meaning, written plainly: the reference the
// validator's compiled filters are checked against.
function matches(data, filters = []) {
  return filters.every((f) => {
    if (f.dataSize !== undefined) return data.length === f.dataSize;
    if (f.memcmp) {
      const bytes = f.memcmp.encoding === 'base64' ? Buffer.from(f.memcmp.bytes, 'base64') : bs58.decode(f.memcmp.bytes);
      const off = f.memcmp.offset;
      return off + bytes.length <= data.length && data.subarray(off, off + bytes.length).equals(bytes);
    }
    return data.length >= 165; // tokenAccountState
  });
}

// byScan answers getProgramAccounts by reading every account of the program
// out of LiteSVM, as the validator did before the index.
function byScan(rpc, program, config) {
  const out = [];
  for (const entry of rpc.chain.svm.getProgramAccounts(bs58.decodePubkey(program))) {
    const acct = entry.account();
    if (!matches(Buffer.from(acct.data()), config.filters)) continue;
    out.push({ pubkey: bs58.encode(entry.address), account: rpc.encode(acct, config) });
  }
  return out;
}

const sorted = (answer) => stringify([...answer].sort((a, b) => a.pubkey.localeCompare(b.pubkey)));

const memcmp = (offset, bytes) => ({ memcmp: { offset, bytes: bs58.encode(Buffer.from(bytes)) } });

test('getProgramAccounts from the index equals a scan', () => {
  const chain = new Chain({ programsDir: null });
  const rpc = new Rpc(chain);
  const fx = new Fixtures(chain);
  const owner = fx.wallet();
  const queries = (who) => {
    const key = bs58.decodePubkey(who);
    return [
      [TOKEN_2022_PROGRAM, { filters: [memcmp(0, Buffer.concat([Buffer.from([1, 0, 0, 0]), key]))] }],
      [TOKEN_PROGRAM, { filters: [memcmp(0, Buffer.concat([Buffer.from([1, 0, 0, 0]), key])), { dataSize: MINT_SIZE }] }],
      [LOADER, { filters: [memcmp(0, Buffer.concat([Buffer.from([1, 0, 0, 0, 1]), key]))], dataSlice: { offset: 0, length: BUFFER_METADATA_SIZE } }],
      [SYSTEM, { filters: [{ dataSize: NONCE_SIZE }, memcmp(8, key)] }],
      [STAKE, { filters: [{ dataSize: STAKE_SIZE }, memcmp(44, key)] }],
      [SYSTEM, {}],
      // Not counted: the owner's token accounts by a base64 memcmp, and
      // filters no account meets.
      [TOKEN_PROGRAM, { filters: [{ tokenAccountState: true }, { memcmp: { offset: 32, bytes: key.toString('base64'), encoding: 'base64' } }] }, false],
      [SYSTEM, { filters: [{ dataSize: NONCE_SIZE }, { dataSize: 0 }] }, false],
      [STAKE, { filters: [memcmp(STAKE_SIZE - 4, Buffer.alloc(8))] }, false],
    ];
  };
  const check = (label, want) => {
    for (const [program, filters, counted = true] of queries(owner.address)) {
      for (const encoding of ['base64']) {
        const config = { encoding, commitment: 'confirmed', ...filters };
        const got = rpc.m_getProgramAccounts(program, config);
        assert.strictEqual(sorted(got), sorted(byScan(rpc, program, config)), `${label}: ${program} ${JSON.stringify(filters)} ${encoding}`);
        if (want && counted && filters.filters) assert.strictEqual(got.length, want[program] ?? 0, `${label}: ${program}`);
      }
    }
  };
  check('before any account of the owner', null);
  const make = () => {
    const buffer = keypair();
    const nonce = keypair();
    const stake = keypair();
    fx.send([owner, buffer, nonce, stake], [
      ix.createAccount(owner.address, buffer.address, Number(fx.rent(BUFFER_METADATA_SIZE + 100)), BUFFER_METADATA_SIZE + 100, LOADER),
      ix.initializeBuffer(buffer.address, owner.address),
      ix.createAccount(owner.address, nonce.address, Number(fx.rent(NONCE_SIZE)), NONCE_SIZE, SYSTEM),
      ix.initializeNonce(nonce.address, owner.address),
      ix.createAccount(owner.address, stake.address, Number(fx.rent(STAKE_SIZE)), STAKE_SIZE, STAKE),
      ix.initializeStake(stake.address, owner.address, owner.address),
    ]);
    const mint22 = keypair();
    const mint = keypair();
    fx.send([fx.payer, mint22, mint], [
      ix.createAccount(fx.payer.address, mint22.address, Number(fx.rent(MINT_SIZE)), MINT_SIZE, TOKEN_2022_PROGRAM),
      ix.initializeMint2(TOKEN_2022_PROGRAM, mint22.address, owner.address),
      ix.createAccount(fx.payer.address, mint.address, Number(fx.rent(MINT_SIZE)), MINT_SIZE, TOKEN_PROGRAM),
      ix.initializeMint2(TOKEN_PROGRAM, mint.address, owner.address),
    ]);
    return { buffer, nonce, stake };
  };
  const first = make();
  check('made after the index was built', { [TOKEN_2022_PROGRAM]: 1, [TOKEN_PROGRAM]: 1, [LOADER]: 1, [SYSTEM]: 1, [STAKE]: 1 });
  make();
  check('more made', { [TOKEN_2022_PROGRAM]: 2, [TOKEN_PROGRAM]: 2, [LOADER]: 2, [SYSTEM]: 2, [STAKE]: 2 });
  // The buffer closes, the stake is withdrawn whole; the nonce's authority
  // changes hands by a withdrawal of part of its balance (it stays).
  chain.advance();
  fx.send([owner], [ix.closeBuffer(first.buffer.address, owner.address, owner.address)]);
  fx.send([owner], [ix.withdrawStake(first.stake.address, owner.address, owner.address, Number(fx.rent(STAKE_SIZE)))]);
  check('closed', { [TOKEN_2022_PROGRAM]: 2, [TOKEN_PROGRAM]: 2, [LOADER]: 1, [SYSTEM]: 2, [STAKE]: 1 });
});

test('getProgramAccounts refuses a filter it does not know, as a node does', () => {
  const chain = new Chain({ programsDir: null });
  const rpc = new Rpc(chain);
  assert.throws(() => rpc.m_getProgramAccounts(SYSTEM, { filters: [{ colour: 'red' }] }), (e) => e.code === -32602);
});
