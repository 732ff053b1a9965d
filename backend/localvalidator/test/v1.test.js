'use strict';
// v1 transactions (SIMD-0385, 4,096 bytes by SIMD-0296) as a node takes
// them: built by hand following the layout of lib/wire.js (fixtures
// transactionV1), sent and read over HTTP. What LiteSVM 1.5.0 must not see
// (a lone priority-fee bit makes its native code panic and end the process;
// it does not check the limits) is refused with -32602 before it, and the
// validator answers afterwards.

const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('child_process');
const bs58 = require('../lib/base58');
const { rpcError, testChain } = require('./client');
const { keypair, transaction, transactionV1, compileV1, ix } = require('./fixtures');

const LIMITS = { computeUnitLimit: 200_000, loadedAccountsDataSizeLimit: 1_000_000 };
const TX_TYPE = 'solana_transaction::versioned::VersionedTransaction';

async function setup(t) {
  const env = await testChain(t);
  const payer = env.fx.wallet(10_000_000_000);
  const balance = async (a) => (await env.client.call('getBalance', [a, { commitment: 'processed' }])).value;
  // v1 is a signed v1 transfer of lamports to each of recipients.
  const v1 = (recipients, config = LIMITS, lamports = 1_000_000) => transactionV1([payer], recipients.map((to) => ix.transfer(payer.address, to, lamports)), env.chain.svm.latestBlockhash(), config);
  return { ...env, payer, balance, v1 };
}

// sigOfV1 is a v1 transaction's first signature: it follows the message.
const sigOfV1 = (tx, messageLength) => bs58.encode(tx.subarray(messageLength, messageLength + 64));

test('a v1 transfer with a total priority fee lands, is simulated, and getTransaction answers version 1 only to a client that asks for it', async (t) => {
  const { chain, client, payer, balance, v1, advance } = await setup(t);
  const to = keypair().address;
  const config = { ...LIMITS, priorityFee: 7_777 };
  const tx = v1([to], config);
  const { message } = compileV1(payer.address, [ix.transfer(payer.address, to, 1_000_000)], chain.svm.latestBlockhash(), config);
  const sig = sigOfV1(tx, message.length);

  const sim = (await client.call('simulateTransaction', [tx.toString('base64'), { encoding: 'base64', commitment: 'processed', sigVerify: true }])).value;
  assert.strictEqual(sim.err, null, sim.logs.join('\n'));
  const replaced = (await client.call('simulateTransaction', [tx.toString('base64'), { encoding: 'base64', commitment: 'confirmed', replaceRecentBlockhash: true }])).value;
  assert.strictEqual(replaced.err, null);
  assert.strictEqual(replaced.replacementBlockhash.blockhash, chain.block('confirmed').blockhash);
  const fee = (await client.call('getFeeForMessage', [message.toString('base64'), { commitment: 'processed' }])).value;
  assert.strictEqual(fee, 5_000 + 7_777, 'one signature and the total priority fee');

  const before = await balance(payer.address);
  assert.strictEqual(await client.send(tx, { preflightCommitment: 'processed' }), sig);
  assert.strictEqual(await balance(to), 1_000_000);
  assert.strictEqual(await balance(payer.address), before - 1_000_000 - fee, 'to the lamport');
  advance();
  assert.deepStrictEqual((await client.call('getSignatureStatuses', [[sig]])).value[0].status, { Ok: null });

  const got = await client.call('getTransaction', [sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 1, encoding: 'base64' }]);
  assert.strictEqual(got.version, 1);
  assert.strictEqual(got.meta.fee, fee);
  assert.strictEqual(got.transaction[0], tx.toString('base64'));
  const json = await client.call('getTransaction', [sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 1 }]);
  assert.deepStrictEqual(json.transaction.signatures, [sig]);
  assert.strictEqual(json.transaction.message.recentBlockhash, chain.blocks[chain.blockHeight - 1].blockhash);
  const unsupported = {
    code: -32015,
    message: 'Transaction version (1) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 1',
  };
  assert.deepStrictEqual(await rpcError(client.call('getTransaction', [sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])), unsupported);
  assert.deepStrictEqual(await rpcError(client.call('getTransaction', [sig, { commitment: 'confirmed' }])), unsupported);
});

test('a v1 transaction is verified over its message: a bad signature is -32003, a duplicate AlreadyProcessed', async (t) => {
  const { client, v1 } = await setup(t);
  const tx = v1([keypair().address]);
  const bad = Buffer.from(tx);
  bad[bad.length - 1] ^= 1;
  assert.deepStrictEqual(await rpcError(client.send(bad, { preflightCommitment: 'processed' })), { code: -32003, message: 'Transaction signature verification failure' });
  await client.send(tx, { preflightCommitment: 'processed' });
  const dup = await rpcError(client.send(tx, { preflightCommitment: 'processed' }));
  assert.strictEqual(dup.code, -32002);
  assert.strictEqual(dup.data.err, 'AlreadyProcessed');
});

test('v1 size caps: 60 transfers in one transaction of more than 1,232 bytes land by base64; 4,097 bytes do not; base58 keeps its limit', async (t) => {
  const { client, balance, v1 } = await setup(t);
  const recipients = Array.from({ length: 60 }, () => keypair().address);
  const big = v1(recipients);
  assert.ok(big.length > 3_000 && big.length <= 4_096, `${big.length} bytes`);
  await client.send(big, { preflightCommitment: 'processed' });
  for (const to of [recipients[0], recipients[59]]) assert.strictEqual(await balance(to), 1_000_000);

  const over = Buffer.concat([Buffer.from([0x81]), Buffer.alloc(4_096)]);
  assert.deepStrictEqual(await rpcError(client.send(over, { skipPreflight: true })), {
    code: -32602, message: `decoded ${TX_TYPE} too large: 4097 bytes (max: 4096 bytes)`,
  });
  // A legacy or v0 transaction keeps the packet's 1,232 bytes in base64 too.
  assert.deepStrictEqual(await rpcError(client.send(Buffer.alloc(1_233, 1), { skipPreflight: true })), {
    code: -32602, message: `decoded ${TX_TYPE} too large: 1233 bytes (max: 1232 bytes)`,
  });
  const b58 = bs58.encode(big);
  assert.deepStrictEqual(await rpcError(client.call('sendTransaction', [b58, { skipPreflight: true }])), {
    code: -32602, message: `base58 encoded ${TX_TYPE} too large: ${b58.length} bytes (max: encoded/raw 1683/1232)`,
  });
  const small = v1([keypair().address]);
  assert.strictEqual(await client.call('sendTransaction', [bs58.encode(small), { preflightCommitment: 'processed' }]), bs58.encode(small.subarray(small.length - 64)));
});

// malformed are v1 transactions no node takes, each with the reason it gives.
function malformed(payer, blockhash) {
  const to = keypair().address;
  const good = transactionV1([payer], [ix.transfer(payer.address, to, 1)], blockhash, LIMITS);
  const withMask = (mask) => { const b = Buffer.from(good); b.writeUInt32LE(mask, 4); return b; };
  const many = Array.from({ length: 64 }, () => keypair().address); // with the payer and the System program: 66
  return [
    ['a lone fee bit (0)', withMask(0b1101), 'invalid config mask 0xd: the priority fee takes bits 0 and 1 together'],
    ['a lone fee bit (1)', withMask(0b1110), 'invalid config mask 0xe: the priority fee takes bits 0 and 1 together'],
    ['an unassigned bit (5)', withMask(0b101100), 'invalid config mask 0x2c: bits above 4 are unassigned'],
    ['an unassigned bit (31)', withMask(0x8000000c), 'invalid config mask 0x8000000c: bits above 4 are unassigned'],
    ['a truncated message', good.subarray(0, 60), 'transaction too short'],
    ['a missing signature', good.subarray(0, good.length - 64), 'transaction too short'],
    ['a trailing byte', Buffer.concat([good, Buffer.from([0])]), '1 trailing bytes after the signatures'],
    ['more than 64 addresses', transactionV1([payer], many.map((a) => ix.transfer(payer.address, a, 1)), blockhash, LIMITS), 'too many addresses: 66 (max: 64)'],
  ];
}

test('malformed v1 transactions are refused with -32602 before LiteSVM sees them, with or without preflight, and the validator answers afterwards', async (t) => {
  const { chain, client, payer, balance, v1 } = await setup(t);
  for (const [name, tx, reason] of malformed(payer, chain.svm.latestBlockhash())) {
    const want = { code: -32602, message: `failed to deserialize ${TX_TYPE}: ${reason}` };
    for (const config of [{ preflightCommitment: 'processed' }, { skipPreflight: true }]) {
      assert.deepStrictEqual(await rpcError(client.send(tx, config)), want, `${name} ${JSON.stringify(config)}`);
    }
    assert.deepStrictEqual(await rpcError(client.call('simulateTransaction', [tx.toString('base64'), { encoding: 'base64' }])), want, `${name} simulated`);
    assert.strictEqual(await client.call('getHealth', []), 'ok', `answers after ${name}`);
  }
  const to = keypair().address;
  await client.send(v1([to]), { preflightCommitment: 'processed' });
  assert.strictEqual(await balance(to), 1_000_000, 'a good v1 still lands');
});

test('the refusal matters: LiteSVM 1.5.0 given a lone fee bit ends the process it runs in', () => {
  // A child process, as the validator was, hands LiteSVM the transaction directly.
  const script = `
    const { Chain } = require('./lib/chain');
    const { Fixtures, transactionV1, keypair, ix } = require('./test/fixtures');
    const chain = new Chain({ programsDir: null });
    const fx = new Fixtures(chain);
    const tx = transactionV1([fx.payer], [ix.transfer(fx.payer.address, keypair().address, 1)], chain.svm.latestBlockhash(), { computeUnitLimit: 200000, loadedAccountsDataSizeLimit: 1000000 });
    tx.writeUInt32LE(0b1101, 4);
    chain.svm.sendVersionedTransaction(tx);
    console.log('survived');
  `;
  // Through sh, to leave no core file (ulimit -c 0) where the abort happens.
  const out = spawnSync('/bin/sh', ['-c', 'ulimit -c 0; exec "$0" -e "$1"', process.execPath, script], { cwd: require('path').join(__dirname, '..'), encoding: 'utf8', timeout: 60_000 });
  assert.ok(out.status !== 0 || out.signal !== null, `exit ${out.status} ${out.signal}`);
  assert.ok(out.stderr.includes('panicked'), out.stderr);
  assert.ok(!out.stdout.includes('survived'), out.stdout);
});

test('fuzz: 400 seeded mutations of a v1 transaction\'s header, mask, counts and config are each answered, never crash the validator', async (t) => {
  const { chain, client, payer } = await setup(t);
  const good = transactionV1([payer], [ix.transfer(payer.address, keypair().address, 1), ix.transfer(payer.address, keypair().address, 1)], chain.svm.latestBlockhash(), { ...LIMITS, priorityFee: 1, heapSize: 32 * 1024 });
  // A seeded xorshift: the same mutations every run.
  let state = 0x9e3779b9;
  const next = () => { state ^= state << 13; state ^= state >>> 17; state ^= state << 5; return state >>> 0; };
  // Bytes that matter: the version, header, mask, the two counts (0-41), the
  // config values and instruction headers after the 4 addresses (170-210).
  const spots = [...Array.from({ length: 42 }, (_, i) => i), ...Array.from({ length: 40 }, (_, i) => 170 + i)];
  const codes = new Map();
  for (let i = 0; i < 400; i++) {
    let tx = Buffer.from(good);
    for (let n = 1 + (next() % 3); n > 0; n--) tx[spots[next() % spots.length]] = next() & 0xff;
    if (next() % 8 === 0) tx = tx.subarray(0, next() % tx.length);
    let code = 'ok';
    try {
      await client.send(tx, { skipPreflight: true });
    } catch (e) {
      if (!e.rpc) throw e;
      code = e.rpc.code;
      assert.ok(code === -32602 || code === -32003, `mutation ${i}: ${JSON.stringify(e.rpc)}`);
    }
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  assert.strictEqual(await client.call('getHealth', []), 'ok');
  // 175 refused, 225 taken to LiteSVM's own decoder (which panics on what it cannot read).
  assert.ok((codes.get(-32602) ?? 0) > 100 && (codes.get('ok') ?? 0) > 100, JSON.stringify([...codes]));
});
