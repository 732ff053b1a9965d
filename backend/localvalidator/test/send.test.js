'use strict';
// sendTransaction, getSignatureStatuses, getTransaction, isBlockhashValid and
// getBlockHeight answer as an Agave 2.3 node does (lib/rpc.js names the
// sources): duplicates, expired blockhashes, bad signatures, an unhealthy
// node, the status cache's window. Every call goes over HTTP; slots advance
// only when a test advances them.

const test = require('node:test');
const assert = require('node:assert');
const bs58 = require('../lib/base58');
const { rpcError, testChain } = require('./client');
const { keypair, transaction, ix, SYSTEM, NONCE_SIZE } = require('./fixtures');

// setup is testChain's with a funded payer.
async function setup(t) {
  const env = await testChain(t);
  const { chain, fx, client } = env;
  const payer = fx.wallet(10_000_000_000);
  const balance = async (k) => (await client.call('getBalance', [k.address, { commitment: 'processed' }])).value;
  // transfer is a signed transfer of 1,000,000 lamports to a new account.
  const transfer = (blockhash = chain.svm.latestBlockhash(), from = payer) => transaction([from], [ix.transfer(from.address, keypair().address, 1_000_000)], blockhash);
  return { ...env, payer, balance, transfer };
}

const sigOf = (tx) => bs58.encode(tx.subarray(1, 65));

// preflightFailure is the -32002 a node answers for a refused simulation
// that executed nothing.
const preflightFailure = (err, message) => ({
  code: -32002,
  message: `Transaction simulation failed: ${message}`,
  data: {
    accounts: null, err, innerInstructions: null, loadedAccountsDataSize: 0, logs: [],
    replacementBlockhash: null, returnData: null, unitsConsumed: 0,
  },
});

test('a duplicate with preflight is AlreadyProcessed; with skipPreflight its signature, dropped; nothing is paid twice', async (t) => {
  const { chain, client, payer, balance, transfer } = await setup(t);
  const tx = transfer();
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'processed' }), sigOf(tx));
  const paid = await balance(payer);
  const count = chain.transactionCount;

  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'processed' })),
    preflightFailure('AlreadyProcessed', 'This transaction has already been processed'));
  assert.strictEqual(await client.send(tx, { skipPreflight: true }), sigOf(tx));
  assert.strictEqual(await balance(payer), paid);
  assert.strictEqual(chain.transactionCount, count, 'the leader dropped the duplicate');
});

test('a duplicate is AlreadyProcessed once the preflight bank holds it: confirmed a block later, finalized (the default) 32 blocks later', async (t) => {
  const { chain, client, payer, balance, transfer, advance } = await setup(t);
  const latest = async (commitment) => (await client.call('getLatestBlockhash', commitment ? [{ commitment }] : [])).value.blockhash;
  // A blockhash the confirmed bank knows, as a client that asks
  // getLatestBlockhash and preflights at the same commitment has.
  const tx = transfer(await latest('confirmed'));
  await client.send(tx, { preflightCommitment: 'processed' });
  const paid = await balance(payer);
  // The confirmed bank is a block behind: it has not seen the transaction, so
  // the node forwards it and the leader drops it.
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'confirmed' }), sigOf(tx));
  advance();
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'confirmed' })),
    preflightFailure('AlreadyProcessed', 'This transaction has already been processed'));

  // With no preflightCommitment the bank is the finalized one: a blockhash
  // it knows (getLatestBlockhash's default commitment), and duplicates are
  // forwarded until the landing is 32 blocks deep.
  const tx2 = transfer(await latest());
  assert.strictEqual(await client.send(tx2), sigOf(tx2));
  const landed = chain.blockHeight;
  for (let depth = 0; depth < 32; depth++) {
    assert.strictEqual(await client.send(tx2), sigOf(tx2), `depth ${depth}`);
    advance();
  }
  assert.strictEqual(chain.heightAt('finalized'), landed);
  assert.deepStrictEqual(await rpcError(client.send(tx2)), preflightFailure('AlreadyProcessed', 'This transaction has already been processed'));
  assert.strictEqual(await balance(payer), paid - 1_005_000, 'tx2 paid once: 1,000,000 and its fee');
});

test('a duplicate of a transaction that failed answers its failure until the preflight bank holds it', async (t) => {
  const { chain, client, payer, advance } = await setup(t);
  // More than the payer has: it lands, fails and pays its fee.
  const tx = transaction([payer], [ix.transfer(payer.address, keypair().address, 20_000_000_000)], chain.block('confirmed').blockhash);
  await client.send(tx, { skipPreflight: true });
  const status = (await client.call('getSignatureStatuses', [[sigOf(tx)]])).value[0];
  assert.deepStrictEqual(status.err, { InstructionError: [0, { Custom: 1 }] });
  const err = await rpcError(client.send(tx, { preflightCommitment: 'confirmed' }));
  assert.strictEqual(err.code, -32002);
  assert.strictEqual(err.message, 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
  assert.deepStrictEqual(err.data.err, { InstructionError: [0, { Custom: 1 }] });
  assert.ok(err.data.logs.some((l) => l.includes('insufficient lamports')), err.data.logs.join('\n'));
  advance();
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'confirmed' })),
    preflightFailure('AlreadyProcessed', 'This transaction has already been processed'));
});

test('a blockhash expires as on a node: preflight refuses it 145 blocks on, the leader takes it through lastValidBlockHeight, then drops it', async (t) => {
  const { chain, client, payer, balance, transfer, advance } = await setup(t);
  const { value: { blockhash, lastValidBlockHeight } } = await client.call('getLatestBlockhash', [{ commitment: 'processed' }]);
  const height = await client.call('getBlockHeight', [{ commitment: 'processed' }]);
  assert.strictEqual(lastValidBlockHeight, height + 150);
  const valid = async () => (await client.call('isBlockhashValid', [blockhash, { commitment: 'processed' }])).value;
  const landed = async (tx) => (await client.call('getSignatureStatuses', [[sigOf(tx)], { searchTransactionHistory: true }])).value[0] !== null;

  advance(144);
  const at144 = transfer(blockhash);
  await client.send(at144, { preflightCommitment: 'processed' });
  assert.ok(await landed(at144), 'preflight takes a blockhash 144 blocks old');

  advance();
  const at145 = transfer(blockhash);
  assert.deepStrictEqual(await rpcError(client.send(at145, { preflightCommitment: 'processed' })), preflightFailure('BlockhashNotFound', 'Blockhash not found'));
  assert.strictEqual(await valid(), true);
  await client.send(at145, { skipPreflight: true });
  assert.ok(await landed(at145), 'the leader takes it without preflight');

  advance(lastValidBlockHeight - chain.blockHeight);
  assert.strictEqual(await client.call('getBlockHeight', [{ commitment: 'processed' }]), lastValidBlockHeight);
  assert.strictEqual(await valid(), true, 'valid at lastValidBlockHeight');
  const atLast = transfer(blockhash);
  await client.send(atLast, { skipPreflight: true });
  assert.ok(await landed(atLast), 'lands at lastValidBlockHeight');

  advance();
  assert.strictEqual(await valid(), false, 'expired past lastValidBlockHeight');
  const expired = transfer(blockhash);
  const before = await balance(payer);
  assert.strictEqual(await client.send(expired, { skipPreflight: true }), sigOf(expired));
  assert.strictEqual(await landed(expired), false);
  assert.strictEqual((await client.call('getSignatureStatuses', [[sigOf(expired)]])).value[0], null);
  assert.strictEqual(await client.call('getTransaction', [sigOf(expired), { commitment: 'confirmed' }]), null);
  assert.strictEqual(await balance(payer), before, 'nothing paid');
  assert.deepStrictEqual(await rpcError(client.send(expired, { preflightCommitment: 'processed' })), preflightFailure('BlockhashNotFound', 'Blockhash not found'));
});

test('a blockhash newer than the preflight bank is not found there: a processed blockhash with the default (finalized) preflight', async (t) => {
  const { chain, client, transfer } = await setup(t);
  const blockhash = chain.svm.latestBlockhash();
  const tx = transfer(blockhash);
  assert.deepStrictEqual(await rpcError(client.send(tx)), preflightFailure('BlockhashNotFound', 'Blockhash not found'));
  assert.strictEqual((await client.call('isBlockhashValid', [blockhash])).value, false);
  assert.strictEqual((await client.call('isBlockhashValid', [blockhash, { commitment: 'processed' }])).value, true);
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'processed' }), sigOf(tx));
});

test('a bad signature is -32003 before anything else; without preflight the leader drops it', async (t) => {
  const { chain, client, payer, balance, transfer, advance } = await setup(t);
  const blockhash = chain.svm.latestBlockhash();
  const tx = Buffer.from(transfer(blockhash));
  tx[10] ^= 1;
  const want = { code: -32003, message: 'Transaction signature verification failure' };
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'processed' })), want);
  const before = await balance(payer);
  assert.strictEqual(await client.send(tx, { skipPreflight: true }), sigOf(tx));
  assert.strictEqual((await client.call('getSignatureStatuses', [[sigOf(tx)]])).value[0], null);
  assert.strictEqual(await balance(payer), before);
  advance(151);
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'processed' })), want, 'signatures are checked before the blockhash');
});

test('an unhealthy node refuses preflight sends with -32005; getHealth and GET /health say so', async (t) => {
  const { chain, client, transfer } = await setup(t);
  const health = async () => (await fetch(`${client.url}/health`)).text();
  assert.strictEqual(await client.call('getHealth', []), 'ok');
  assert.deepStrictEqual(await client.call('validator_setHealth', [{ status: 'behind', numSlotsBehind: 42 }]), { status: 'behind', numSlotsBehind: 42 });
  const behind = { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } };
  assert.deepStrictEqual(await rpcError(client.call('getHealth', [])), behind);
  assert.strictEqual(await health(), 'behind');
  const tx = transfer();
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'processed' })), behind);
  assert.strictEqual(await client.send(tx, { skipPreflight: true }), sigOf(tx), 'skipPreflight skips the health check');
  assert.notStrictEqual(chain.txs.get(sigOf(tx)), undefined);

  await client.call('validator_setHealth', { status: 'unknown' });
  assert.deepStrictEqual(await rpcError(client.call('getHealth', [])), { code: -32005, message: 'Node is unhealthy', data: { numSlotsBehind: null } });
  assert.strictEqual(await health(), 'unknown');
  await client.call('validator_setHealth', [{ status: 'ok' }]);
  assert.strictEqual(await client.call('getHealth', []), 'ok');
  assert.strictEqual(await health(), 'ok');
  for (const bad of [[{ status: 'behind' }], [{ status: 'ok', numSlotsBehind: 3 }], [{ status: 'sick' }], [{ health: 'ok' }]]) {
    assert.strictEqual((await rpcError(client.call('validator_setHealth', bad))).code, -32602, JSON.stringify(bad));
  }
});

test('maxRetries is accepted as a usize and changes nothing here: the one forward lands', async (t) => {
  const { client, transfer } = await setup(t);
  for (const maxRetries of [0, 5]) {
    const tx = transfer();
    await client.send(tx, { preflightCommitment: 'processed', maxRetries });
    assert.notStrictEqual((await client.call('getSignatureStatuses', [[sigOf(tx)]])).value[0], null, `maxRetries ${maxRetries}`);
  }
  for (const maxRetries of [-1, 'x', 1.5]) {
    assert.strictEqual((await rpcError(client.send(transfer(), { maxRetries }))).code, -32602, `maxRetries ${maxRetries}`);
  }
});

test('getSignatureStatuses: processed, confirmed, finalized; out of the status cache 300 roots on, unless searchTransactionHistory', async (t) => {
  const { chain, client, transfer, advance } = await setup(t);
  const tx = transfer();
  await client.send(tx, { preflightCommitment: 'processed' });
  const sig = sigOf(tx);
  const { slot } = chain.txs.get(sig);
  const statuses = async (config) => (await client.call('getSignatureStatuses', [[sig, bs58.encode(Buffer.alloc(64, 7))], config])).value;
  const status = (confirmations, confirmationStatus) => ({ slot, confirmations, err: null, status: { Ok: null }, confirmationStatus });

  assert.deepStrictEqual(await statuses(), [status(0, 'processed'), null]);
  advance();
  assert.deepStrictEqual(await statuses(), [status(1, 'confirmed'), null]);
  advance(31);
  assert.deepStrictEqual(await statuses(), [status(null, 'finalized'), null]);
  // The newest block that used the transaction's blockhash is its own; the
  // status cache keeps it while that block is among the last 300 roots.
  const landed = chain.txs.get(sig).blockHeight;
  advance(landed + 32 + 299 - chain.blockHeight);
  assert.deepStrictEqual(await statuses(), [status(null, 'finalized'), null], 'still in the status cache');
  advance();
  assert.deepStrictEqual(await statuses(), [null, null], 'out of the status cache');
  assert.deepStrictEqual(await statuses({ searchTransactionHistory: false }), [null, null]);
  assert.deepStrictEqual(await statuses({ searchTransactionHistory: true }), [status(null, 'finalized'), null]);

  assert.deepStrictEqual(await rpcError(client.call('getSignatureStatuses', [['abc']])), { code: -32602, message: 'Invalid param: WrongSize' });
  assert.deepStrictEqual(await rpcError(client.call('getSignatureStatuses', [['0OIl']])), { code: -32602, message: 'Invalid param: Invalid' });
  assert.strictEqual((await rpcError(client.call('getSignatureStatuses', [Array(257).fill(sig)]))).message, 'Too many inputs provided; max 256');
});

test('getTransaction: null for an unknown signature and until the commitment asked; processed is refused', async (t) => {
  const { client, transfer, advance } = await setup(t);
  const unknown = bs58.encode(Buffer.alloc(64, 9));
  assert.strictEqual(await client.call('getTransaction', [unknown]), null);
  assert.strictEqual(await client.call('getTransaction', [unknown, { commitment: 'confirmed', encoding: 'json' }]), null);
  const tx = transfer();
  await client.send(tx, { preflightCommitment: 'processed' });
  const sig = sigOf(tx);
  assert.strictEqual(await client.call('getTransaction', [sig, { commitment: 'confirmed' }]), null, 'not yet confirmed');
  advance();
  assert.strictEqual((await client.call('getTransaction', [sig, { commitment: 'confirmed' }])).transaction.signatures[0], sig);
  assert.strictEqual(await client.call('getTransaction', [sig]), null, 'not yet finalized');
  assert.deepStrictEqual(await rpcError(client.call('getTransaction', [sig, { commitment: 'processed' }])),
    { code: -32602, message: 'Method does not support commitment below `confirmed`' });
  assert.strictEqual((await rpcError(client.call('getTransaction', ['nope']))).code, -32602);
});

test('getBlockHeight, getLatestBlockhash and isBlockhashValid follow the bank of the commitment asked', async (t) => {
  const { chain, client } = await setup(t);
  for (const [commitment, depth] of [['processed', 0], ['confirmed', 1], ['finalized', 32], [undefined, 32]]) {
    const config = commitment ? [{ commitment }] : [];
    const height = await client.call('getBlockHeight', config);
    assert.strictEqual(height, chain.blockHeight - depth, commitment);
    const { context, value } = await client.call('getLatestBlockhash', config);
    assert.strictEqual(context.slot, chain.blocks[height].slot);
    assert.strictEqual(value.blockhash, chain.blocks[height].blockhash);
    assert.strictEqual(value.lastValidBlockHeight, height + 150);
    assert.strictEqual((await client.call('isBlockhashValid', [value.blockhash, ...config])).value, true);
  }
  const newest = chain.svm.latestBlockhash();
  assert.strictEqual((await client.call('isBlockhashValid', [newest, { commitment: 'confirmed' }])).value, false, 'newer than the confirmed bank');
  assert.strictEqual((await client.call('isBlockhashValid', [bs58.encode(Buffer.alloc(32, 1))])).value, false);
  assert.deepStrictEqual(await rpcError(client.call('getSlot', [{ minContextSlot: chain.slot }])),
    { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: chain.slot - 32 } });
});

test('what a node refuses before preflight is refused with skipPreflight too: more than a packet, broken indices', async (t) => {
  const { client, transfer } = await setup(t);
  const big = Buffer.alloc(1233, 1);
  assert.deepStrictEqual(await rpcError(client.send(big, { skipPreflight: true })), {
    code: -32602, message: 'decoded solana_transaction::versioned::VersionedTransaction too large: 1233 bytes (max: 1232 bytes)',
  });
  assert.strictEqual((await rpcError(client.call('sendTransaction', ['A'.repeat(5465), { encoding: 'base64' }]))).message,
    'base64 encoded solana_transaction::versioned::VersionedTransaction too large: 5465 bytes (max: encoded/raw 5464/4096)');
  // The transfer's first account index (after the 12 bytes of data, their
  // length and the two indices) now points past the keys.
  const tx = Buffer.from(transfer());
  tx[tx.length - 15] = 99;
  assert.deepStrictEqual(await rpcError(client.send(tx, { skipPreflight: true })), {
    code: -32602, message: 'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
  });
});

test('a durable-nonce transaction lands after its blockhash expired, once: the nonce advances', async (t) => {
  const { chain, fx, client, payer, advance } = await setup(t);
  const nonce = keypair();
  fx.send([payer, nonce], [ix.createAccount(payer.address, nonce.address, fx.rent(NONCE_SIZE), NONCE_SIZE, SYSTEM), ix.initializeNonce(nonce.address, payer.address)]);
  const stored = bs58.encode(Buffer.from(chain.account(nonce.address).data()).subarray(40, 72));
  const to = fx.wallet(1_000_000_000);
  const tx = transaction([payer], [ix.advanceNonce(nonce.address, payer.address), ix.transfer(payer.address, to.address, 1_000_000)], stored);
  advance(200);
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'processed' }), sigOf(tx));
  assert.strictEqual((await client.call('getSignatureStatuses', [[sigOf(tx)]])).value[0].err, null);
  assert.notStrictEqual(bs58.encode(Buffer.from(chain.account(nonce.address).data()).subarray(40, 72)), stored, 'advanced');
  assert.deepStrictEqual(await rpcError(client.send(tx, { preflightCommitment: 'processed' })), preflightFailure('BlockhashNotFound', 'Blockhash not found'));
});
