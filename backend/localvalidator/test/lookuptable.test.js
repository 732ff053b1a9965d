'use strict';
// The chain's slots agree with its SlotHashes sysvar, so an address lookup
// table lives as on a cluster: created at the slot getSlot answers (as every
// client does), extended, deactivated, closed once its deactivation slot has
// left the 512-slot window. The instructions are the Address Lookup Table
// program's own (bincode: a u32 tag, then the fields), sent over HTTP.

const test = require('node:test');
const assert = require('node:assert');
const crypto = require('crypto');
const bs58 = require('../lib/base58');
const { rpcError, testChain } = require('./client');
const { keypair, SYSTEM } = require('./fixtures');

const PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const META_SIZE = 56;

// onCurve tells whether 32 bytes are an ed25519 point (RFC 8032 5.1.3: x² =
// (y² - 1) / (d·y² + 1) has a root mod p); a program address is not one.
function onCurve(bytes) {
  const p = 2n ** 255n - 19n;
  const pow = (b, e) => { let r = 1n; b %= p; for (; e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p; return r; };
  const d = (-121665n * pow(121666n, p - 2n)) % p + p;
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`) & ((1n << 255n) - 1n);
  if (y >= p) return false;
  const u = (y * y - 1n + p) % p;
  const v = (d * y * y + 1n) % p;
  const x2 = (u * pow(v, p - 2n)) % p;
  if (x2 === 0n) return true;
  return pow(x2, (p - 1n) / 2n) === 1n;
}

// programAddress is findProgramAddress: the first bump from 255 down whose
// address is off the curve.
function programAddress(seeds, programId) {
  for (let bump = 255; bump >= 0; bump--) {
    const h = crypto.createHash('sha256');
    for (const s of seeds) h.update(s);
    const address = h.update(Buffer.from([bump])).update(bs58.decodePubkey(programId)).update('ProgramDerivedAddress').digest();
    if (!onCurve(address)) return { address: bs58.encode(address), bump };
  }
  throw new Error('no program address');
}

const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
const w = (pubkey, signer = false) => ({ pubkey, signer, writable: true });
const r = (pubkey, signer = false) => ({ pubkey, signer, writable: false });

const lut = {
  create: (authority, payer, recentSlot) => {
    const { address, bump } = programAddress([bs58.decodePubkey(authority), u64(recentSlot)], PROGRAM);
    return { address, ix: { programId: PROGRAM, keys: [w(address), r(authority, true), w(payer, true), r(SYSTEM)], data: Buffer.concat([u32(0), u64(recentSlot), Buffer.from([bump])]) } };
  },
  extend: (table, authority, payer, addresses) => ({
    programId: PROGRAM, keys: [w(table), r(authority, true), w(payer, true), r(SYSTEM)],
    data: Buffer.concat([u32(2), u64(addresses.length), ...addresses.map((a) => bs58.decodePubkey(a))]),
  }),
  deactivate: (table, authority) => ({ programId: PROGRAM, keys: [w(table), r(authority, true)], data: u32(3) }),
  close: (table, authority, recipient) => ({ programId: PROGRAM, keys: [w(table), r(authority, true), w(recipient)], data: u32(4) }),
};

// slotHashes reads the SlotHashes sysvar as a client does: getAccountInfo,
// then its bincode (a u64 count, then slot u64 and hash per entry).
async function slotHashes(client) {
  const { value } = await client.call('getAccountInfo', ['SysvarS1otHashes111111111111111111111111111', { encoding: 'base64', commitment: 'processed' }]);
  const data = Buffer.from(value.data[0], 'base64');
  assert.strictEqual(data.length, 8 + 512 * 40);
  return Array.from({ length: Number(data.readBigUInt64LE(0)) }, (_, i) => ({
    slot: Number(data.readBigUInt64LE(8 + i * 40)), hash: bs58.encode(data.subarray(16 + i * 40, 48 + i * 40)),
  }));
}

test('SlotHashes lists the chain\'s own blocks: the slot getSlot answers at each commitment, the newest first, 512 at most', async (t) => {
  const { chain, client, advance } = await testChain(t);
  advance(600);
  const hashes = await slotHashes(client);
  assert.strictEqual(hashes.length, 512);
  assert.deepStrictEqual(hashes[0], { slot: chain.slot, hash: chain.block('processed').blockhash });
  assert.deepStrictEqual(hashes[511], { slot: chain.slot - 511, hash: chain.blocks[chain.blockHeight - 511].blockhash });
  for (const commitment of ['processed', 'confirmed', 'finalized']) {
    const slot = await client.call('getSlot', [{ commitment }]);
    assert.ok(hashes.some((h) => h.slot === slot), `${commitment} slot ${slot} is a recent slot`);
  }
  assert.deepStrictEqual(chain.svm.getSlotHashes().map((h) => Number(h.slot)), hashes.map((h) => h.slot), 'what programs see');
  await client.call('validator_warpSlot', [{ slot: chain.slot + 100 }]);
  const warped = await slotHashes(client);
  assert.strictEqual(warped[0].slot, await client.call('getSlot', []), 'after a warp');
  assert.strictEqual(warped.length, 512 - 99, 'the 99 slots passed over have no block; the window is 512 slots');
  await client.call('validator_warpEpochs', [{ epochs: 1 }]);
  assert.deepStrictEqual((await slotHashes(client)).map((h) => h.slot), [chain.slot], 'a warp of an epoch leaves only its own block');
});

test('a lookup table created at getSlot() lands, is extended, deactivated, and closed once the cluster is 512 slots past its deactivation, not a slot before', async (t) => {
  const { chain, fx, client, land, advance } = await testChain(t);
  const authority = fx.wallet(10_000_000_000);
  const balance = async (a) => (await client.call('getBalance', [a, { commitment: 'processed' }])).value;
  const landed = async (ixs) => {
    const status = await land([authority], ixs);
    assert.deepStrictEqual(status.err, null);
  };

  const recentSlot = await client.call('getSlot', []);
  const { address: table, ix: create } = lut.create(authority.address, authority.address, recentSlot);
  await landed([create]);
  const addresses = Array.from({ length: 30 }, () => keypair().address);
  await landed([lut.extend(table, authority.address, authority.address, addresses)]);
  const data = Buffer.from((await client.call('getAccountInfo', [table, { encoding: 'base64', commitment: 'processed' }])).value.data[0], 'base64');
  assert.strictEqual(data.length, META_SIZE + 30 * 32);
  assert.deepStrictEqual(Array.from({ length: 30 }, (_, i) => bs58.encode(data.subarray(META_SIZE + i * 32, META_SIZE + (i + 1) * 32))), addresses);

  // The same slot from the finalized bank of a fresh warp, too.
  await client.call('validator_warpSlot', [{ slot: chain.slot + 1000 }]);
  const afterWarp = lut.create(authority.address, authority.address, await client.call('getSlot', []));
  await landed([afterWarp.ix]);

  await landed([lut.deactivate(table, authority.address)]);
  const deactivated = chain.slot - 1; // land opens the next block
  assert.strictEqual(Buffer.from(chain.account(table).data()).readBigUInt64LE(4), BigInt(deactivated), 'deactivation slot');

  // At slot D + 511 the deactivation slot is still in the window: the close
  // fails, as on a cluster; a slot later it lands.
  const recipient = keypair().address;
  await client.call('validator_warpSlot', [{ slot: deactivated + 511 }]);
  const early = await rpcError(client.send(require('./fixtures').transaction([authority], [lut.close(table, authority.address, recipient)], chain.svm.latestBlockhash()), { preflightCommitment: 'processed' }));
  assert.strictEqual(early.code, -32002);
  assert.ok(early.data.logs.some((l) => l.includes('cannot be closed until it\'s fully deactivated')), early.data.logs.join('\n'));

  advance();
  assert.strictEqual(chain.slot, deactivated + 512);
  const rent = (await client.call('getAccountInfo', [table, { encoding: 'base64', commitment: 'processed' }])).value.lamports;
  await landed([lut.close(table, authority.address, recipient)]);
  assert.strictEqual(await balance(recipient), rent, 'the table\'s lamports, to the lamport');
  assert.strictEqual((await client.call('getAccountInfo', [table, { commitment: 'processed' }])).value, null);
});
