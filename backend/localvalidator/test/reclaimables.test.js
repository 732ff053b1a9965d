'use strict';
// The other accounts a wallet can reclaim, made and reclaimed with real
// transactions sent over HTTP: upgradeable-loader buffers (closed by their
// authority), durable nonce accounts (withdrawn whole) and stake accounts
// (withdrawn whole once fully deactivated, after validator_warpEpochs).

const test = require('node:test');
const assert = require('node:assert');
const bs58 = require('../lib/base58');
const { rpcError, testChain } = require('./client');
const {
  Fixtures, keypair, transaction, ix, SYSTEM, LOADER, STAKE, SYSVAR, NONCE_SIZE, STAKE_SIZE, BUFFER_METADATA_SIZE,
} = require('./fixtures');

const SOL = 1_000_000_000;

async function setup(t) {
  const env = await testChain(t);
  const lamports = async (address) => (await env.account(address))?.lamports ?? 0;
  // fee is what a transaction of n signatures costs.
  const fee = (n = 1) => 5000 * n;
  return { ...env, lamports, fee };
}

test('a program buffer: InitializeBuffer and Write, then Close by its authority returns every lamport', async (t) => {
  const { fx, account, lamports, land, fee } = await setup(t);
  const authority = fx.wallet(10 * SOL);
  const buffer = keypair();
  const size = BUFFER_METADATA_SIZE + 1000;
  const rent = Number(fx.rent(size));
  await land([authority, buffer], [ix.createAccount(authority.address, buffer.address, rent, size, LOADER), ix.initializeBuffer(buffer.address, authority.address)]);
  await land([authority], [ix.writeBuffer(buffer.address, authority.address, 0, Buffer.alloc(600, 7))]);
  const made = await account(buffer.address);
  assert.strictEqual(made.owner, LOADER);
  const data = Buffer.from(made.data[0], 'base64');
  assert.strictEqual(data.readUInt32LE(0), 1, 'UpgradeableLoaderState::Buffer');
  assert.strictEqual(bs58.encode(data.subarray(5, 37)), authority.address, 'its authority');
  assert.strictEqual(data[BUFFER_METADATA_SIZE + 599], 7, 'written');

  const other = fx.wallet();
  const refused = await rpcError(land([other], [ix.closeBuffer(buffer.address, other.address, other.address)]));
  assert.deepStrictEqual(refused.data.err, { InstructionError: [0, 'IncorrectAuthority'] });

  const before = await lamports(authority.address);
  assert.strictEqual((await land([authority], [ix.closeBuffer(buffer.address, authority.address, authority.address)])).err, null);
  assert.strictEqual(await account(buffer.address), null);
  assert.strictEqual(await lamports(authority.address), before + rent - fee());
});

test('a durable nonce account: created, initialized, withdrawn whole by its authority once its blockhash has passed', async (t) => {
  const { chain, fx, client, account, lamports, land, fee } = await setup(t);
  const authority = fx.wallet(10 * SOL);
  const nonce = keypair();
  const rent = Number(fx.rent(NONCE_SIZE));
  const send = (signers, ixs) => client.send(transaction(signers, ixs, chain.svm.latestBlockhash()), { preflightCommitment: 'processed' });
  await send([authority, nonce], [ix.createAccount(authority.address, nonce.address, rent, NONCE_SIZE, SYSTEM), ix.initializeNonce(nonce.address, authority.address)]);
  const data = Buffer.from((await account(nonce.address)).data[0], 'base64');
  assert.strictEqual(data.readUInt32LE(4), 1, 'initialized');
  assert.strictEqual(bs58.encode(data.subarray(8, 40)), authority.address);

  // In the block whose blockhash the nonce holds, it may not be emptied
  // (SystemError::NonceBlockhashNotExpired, 7).
  const early = await rpcError(send([authority], [ix.withdrawNonce(nonce.address, authority.address, authority.address, rent)]));
  assert.deepStrictEqual(early.data.err, { InstructionError: [0, { Custom: 7 }] });
  chain.advance();
  const other = fx.wallet();
  const refused = await rpcError(land([other], [ix.withdrawNonce(nonce.address, other.address, other.address, rent)]));
  assert.deepStrictEqual(refused.data.err, { InstructionError: [0, 'MissingRequiredSignature'] });

  const before = await lamports(authority.address);
  assert.strictEqual((await land([authority], [ix.withdrawNonce(nonce.address, authority.address, authority.address, rent)])).err, null);
  assert.strictEqual(await account(nonce.address), null);
  assert.strictEqual(await lamports(authority.address), before + rent - fee());
});

test('a stake account: delegated, deactivated, withdrawable whole one epoch on; StakeHistory, the Clock and getEpochInfo agree', async (t) => {
  const { chain, fx, client, account, lamports, land, fee } = await setup(t);
  const { current } = await client.call('getVoteAccounts', []);
  assert.strictEqual(current.length, 1, 'the genesis validator');
  const vote = current[0].votePubkey;
  assert.strictEqual(current[0].nodePubkey, (await client.call('getIdentity', [])).identity);
  assert.strictEqual(current[0].activatedStake, 1_000_000 * SOL);

  const owner = fx.wallet(100 * SOL);
  const stakeAccount = keypair();
  const rent = Number(fx.rent(STAKE_SIZE));
  const staked = 5 * SOL;
  await land([owner, stakeAccount], [
    ix.createAccount(owner.address, stakeAccount.address, rent + staked, STAKE_SIZE, STAKE),
    ix.initializeStake(stakeAccount.address, owner.address, owner.address),
  ]);
  await land([owner], [ix.delegateStake(stakeAccount.address, vote, owner.address)]);
  const epochInfo = () => client.call('getEpochInfo', [{ commitment: 'processed' }]);
  const clock = async () => Buffer.from((await account(SYSVAR.clock)).data[0], 'base64').readBigUInt64LE(16);
  assert.strictEqual((await epochInfo()).epoch, 0);

  const warped = await client.call('validator_warpEpochs', [{ epochs: 1 }]);
  assert.deepStrictEqual(
    { epoch: warped.epoch, absoluteSlot: warped.absoluteSlot, slotIndex: warped.slotIndex, slotsInEpoch: warped.slotsInEpoch, blockHeight: warped.blockHeight },
    { epoch: 1, absoluteSlot: 432_000, slotIndex: 0, slotsInEpoch: 432_000, blockHeight: chain.blockHeight },
  );
  for (const commitment of ['processed', 'confirmed', 'finalized']) {
    assert.strictEqual((await client.call('getEpochInfo', [{ commitment }])).epoch, 1, `the warp's block is a root: ${commitment}`);
  }
  assert.strictEqual(await clock(), 1n, 'Clock.epoch');
  assert.strictEqual((await client.call('getVoteAccounts', [])).current[0].activatedStake, 1_000_005 * SOL, 'the stake is active in epoch 1');

  await land([owner], [ix.deactivateStake(stakeAccount.address, owner.address)]);
  const whole = rent + staked;
  assert.strictEqual(await lamports(stakeAccount.address), whole);
  // Still effective in its deactivation epoch: nothing above the reserve may go.
  const early = await rpcError(land([owner], [ix.withdrawStake(stakeAccount.address, owner.address, owner.address, whole)]));
  assert.deepStrictEqual(early.data.err, { InstructionError: [0, 'InsufficientFunds'] });

  await client.call('validator_warpEpochs', { epochs: 1 });
  assert.strictEqual((await epochInfo()).epoch, 2);
  assert.strictEqual(await clock(), 2n);
  // StakeHistory (newest first): epoch 1 had the stake effective and
  // deactivating, epoch 0 had it activating; the bootstrap stake effective throughout.
  const history = Buffer.from((await account(SYSVAR.stakeHistory)).data[0], 'base64');
  const entries = [];
  for (let i = 0; i < Number(history.readBigUInt64LE(0)); i++) {
    const off = 8 + i * 32;
    entries.push([1, 2, 3].map((k) => Number(history.readBigUInt64LE(off + k * 8))).concat(Number(history.readBigUInt64LE(off))));
  }
  const boot = 1_000_000 * SOL;
  assert.deepStrictEqual(entries, [[boot + staked, 0, staked, 1], [boot, staked, 0, 0]], '[effective, activating, deactivating, epoch]');

  const before = await lamports(owner.address);
  assert.strictEqual((await land([owner], [ix.withdrawStake(stakeAccount.address, owner.address, owner.address, whole)])).err, null);
  assert.strictEqual(await account(stakeAccount.address), null);
  assert.strictEqual(await lamports(owner.address), before + whole - fee());
});

test('validator_warpSlot and validator_warpEpochs: forward only; blockhashes stay valid by height, earlier landings are finalized', async (t) => {
  const { chain, fx, client, land } = await setup(t);
  const payer = fx.wallet();
  const status = await land([payer], [ix.transfer(payer.address, keypair().address, SOL)]);
  const { value: { blockhash } } = await client.call('getLatestBlockhash', [{ commitment: 'processed' }]);
  const info = await client.call('validator_warpSlot', [{ slot: 1_000_000 }]);
  assert.strictEqual(info.absoluteSlot, 1_000_000);
  assert.strictEqual(info.epoch, 2);
  assert.strictEqual(await client.call('getSlot', [{ commitment: 'finalized' }]), 1_000_000);
  const sigs = [...chain.txs.keys()];
  const after = (await client.call('getSignatureStatuses', [[sigs[sigs.length - 1]]])).value[0];
  assert.strictEqual(after.slot, status.slot);
  assert.strictEqual(after.confirmationStatus, 'finalized');
  assert.strictEqual((await client.call('isBlockhashValid', [blockhash, { commitment: 'processed' }])).value, true);
  const tx = transaction([payer], [ix.transfer(payer.address, keypair().address, SOL)], blockhash);
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'processed' }), bs58.encode(tx.subarray(1, 65)));
  // Two epochs passed: an entry each.
  assert.deepStrictEqual([...chain.stakeHistory.keys()], [0n, 1n]);
  for (const bad of [[{ slot: 1_000_000 }], [{ slot: 5 }], [{ epochs: 0 }], [{ epochs: 513 }], [{ slot: 2_000_000, epochs: 1 }]]) {
    const method = 'epochs' in bad[0] && !('slot' in bad[0]) ? 'validator_warpEpochs' : 'validator_warpSlot';
    assert.strictEqual((await rpcError(client.call(method, bad))).code, -32602, `${method} ${JSON.stringify(bad)}`);
  }
  assert.strictEqual(chain.slot, 1_000_000);
});
