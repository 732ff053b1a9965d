'use strict';
// validator_setRent cuts the Rent sysvar as a SIMD-0437 step does: accounts
// keep their lamports, getMinimumBalanceForRentExemption, the sysvar account
// and the programs see the new rate, and the owner withdraws the excess with
// WithdrawExcessLamports (Token-2022's instruction 38; this LiteSVM's SPL
// Token is p-token, which has it too), leaving the account open. Every call
// goes over HTTP.

const test = require('node:test');
const assert = require('node:assert');
const bs58 = require('../lib/base58');
const { rpcError, testChain } = require('./client');
const { keypair, transaction, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, SYSVAR } = require('./fixtures');

const OLD = 6960; // lamports per byte (SIMD-0194's representation, threshold 1.0)
const NEW = 5080; // a first SIMD-0437 step: 550,840 lamports less per token account
const P_TOKEN_FEATURE = 'ptokFjwyJtrwCa9Kgo9xoDS59V4QccBGEaRFnRPnSdP'; // SIMD-0266, "Efficient Token program"

const minimum = (client, len) => client.call('getMinimumBalanceForRentExemption', [len]);

test('validator_setRent takes {"lamportsPerByteYear": N} by position or by name and refuses anything else', async (t) => {
  const { client } = await testChain(t);
  assert.deepStrictEqual(await client.call('validator_setRent', [{ lamportsPerByteYear: 3480 }]), { lamportsPerByteYear: 3480, exemptionThreshold: 1, burnPercent: 50 });
  assert.strictEqual(await minimum(client, 0), 128 * 3480);
  assert.deepStrictEqual(await client.call('validator_setRent', { lamportsPerByteYear: OLD }), { lamportsPerByteYear: OLD, exemptionThreshold: 1, burnPercent: 50 });
  assert.strictEqual(await minimum(client, 165), 2_039_280);
  for (const bad of [[], [{}], [{ lamportsPerByteYear: 0 }], [{ lamportsPerByteYear: '696' }], [{ lamportsPerByteYear: 696, burnPercent: 0 }], [{ lamportsPerByteYear: 696 }, {}], 696]) {
    assert.strictEqual((await rpcError(client.call('validator_setRent', bad))).code, -32602, JSON.stringify(bad));
  }
  assert.strictEqual(await minimum(client, 165), 2_039_280, 'a refused call changes nothing');
  assert.deepStrictEqual(await rpcError(client.call('validator_nope', [])), { code: -32601, message: 'Method not found' });
});

test('a rent cut: accounts keep their lamports, the sysvar and the minimum follow, WithdrawExcessLamports takes exactly the excess', async (t) => {
  const { fx, client, account, land } = await testChain(t);
  const owner = fx.wallet();
  const [made] = fx.mintsWithAccounts(TOKEN_2022_PROGRAM, owner.address, 1);
  fx.send([fx.payer], [ix.mintTo(TOKEN_2022_PROGRAM, made.mint.address, made.account.address, fx.payer.address, 1234)]);
  const before = await account(made.account.address);
  const mintBefore = await account(made.mint.address);
  assert.strictEqual(before.lamports, 2_039_280);

  await client.call('validator_setRent', [{ lamportsPerByteYear: NEW }]);
  const rent = Buffer.from((await account(SYSVAR.rent)).data[0], 'base64');
  assert.strictEqual(rent.readBigUInt64LE(0), BigInt(NEW), 'the Rent sysvar account');
  assert.strictEqual(rent.readDoubleLE(8), 1);
  assert.strictEqual(rent[16], 50);
  const newMin = (128 + 165) * NEW;
  assert.strictEqual(await minimum(client, 165), newMin);
  assert.deepStrictEqual(await account(made.account.address), before, 'the account keeps its lamports');
  assert.strictEqual(before.lamports - newMin, 550_840);

  const dest = fx.wallet(1_000_000_000);
  const destBefore = (await account(dest.address)).lamports;
  assert.strictEqual((await land([owner], [ix.withdrawExcessLamports(TOKEN_2022_PROGRAM, made.account.address, dest.address, owner.address)])).err, null);
  const after = await account(made.account.address);
  assert.strictEqual(after.lamports, newMin, 'left with exactly the new minimum');
  assert.deepStrictEqual(after.data, before.data, 'open, its owner, mint and 1234 tokens unchanged');
  assert.strictEqual((await client.call('getTokenAccountBalance', [made.account.address])).value.amount, '1234');
  // owner paid the fee; dest only received
  assert.strictEqual((await account(dest.address)).lamports - destBefore, before.lamports - newMin);

  // The mint's authority withdraws the mint's excess.
  const mintMin = (128 + 82) * NEW;
  assert.strictEqual((await land([fx.payer], [ix.withdrawExcessLamports(TOKEN_2022_PROGRAM, made.mint.address, dest.address, fx.payer.address)])).err, null);
  assert.strictEqual((await account(dest.address)).lamports - destBefore, before.lamports - newMin + mintBefore.lamports - mintMin);
  assert.strictEqual((await account(made.mint.address)).lamports, mintMin);

  // Anyone else is refused (Token-2022 OwnerMismatch, 0x4).
  const other = fx.wallet();
  const status = await land([other], [ix.withdrawExcessLamports(TOKEN_2022_PROGRAM, made.account.address, other.address, other.address)]).catch((e) => e.rpc);
  assert.strictEqual(status.code, -32002);
  assert.deepStrictEqual(status.data.err, { InstructionError: [0, { Custom: 4 }] });
  assert.strictEqual((await account(made.account.address)).lamports, newMin);
});

test('this LiteSVM\'s SPL Token is p-token: WithdrawExcessLamports works there too, and the SIMD-0266 feature is active', async (t) => {
  const { fx, client, account, land } = await testChain(t);
  const feature = await account(P_TOKEN_FEATURE);
  assert.strictEqual(feature.owner, 'Feature111111111111111111111111111111111111');
  const data = Buffer.from(feature.data[0], 'base64');
  assert.strictEqual(data[0], 1, 'activated');
  const owner = fx.wallet();
  const [made] = fx.mintsWithAccounts(TOKEN_PROGRAM, owner.address, 1);
  await client.call('validator_setRent', [{ lamportsPerByteYear: 696 }]);
  const dest = fx.wallet(1_000_000_000);
  const destBefore = (await account(dest.address)).lamports;
  // A service can learn support, and the figure, without a signature: the
  // instruction simulated unsigned on replaceRecentBlockhash, the source's
  // lamports after it read from the simulation.
  const withdraw = ix.withdrawExcessLamports(TOKEN_PROGRAM, made.account.address, dest.address, owner.address);
  const sim = await client.call('simulateTransaction', [
    Buffer.from(transaction([owner], [withdraw], bs58.encode(Buffer.alloc(32)))).toString('base64'),
    { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'processed', accounts: { addresses: [made.account.address], encoding: 'base64' } },
  ]);
  assert.strictEqual(sim.value.err, null);
  assert.strictEqual(sim.value.accounts[0].lamports, 293 * 696);
  const status = await land([owner], [withdraw]);
  assert.strictEqual(status.err, null);
  assert.strictEqual((await account(made.account.address)).lamports, 293 * 696);
  assert.strictEqual((await account(dest.address)).lamports - destBefore, 2_039_280 - 293 * 696);
});

test('the System program\'s rent check follows the cut: a new account needs the new minimum', async (t) => {
  const { fx, land, client } = await testChain(t);
  const payer = fx.wallet();
  const lamports = 128 * 3480; // 445,440: below 6,960's minimum of 890,880, above 3,480's
  const refused = await land([payer], [ix.transfer(payer.address, keypair().address, lamports)]).catch((e) => e.rpc);
  assert.deepStrictEqual(refused.data.err, { InsufficientFundsForRent: { account_index: 1 } });
  await client.call('validator_setRent', [{ lamportsPerByteYear: 3480 }]);
  assert.strictEqual((await land([payer], [ix.transfer(payer.address, keypair().address, lamports)])).err, null);
  const below = await land([payer], [ix.transfer(payer.address, keypair().address, lamports - 1)]).catch((e) => e.rpc);
  assert.deepStrictEqual(below.data.err, { InsufficientFundsForRent: { account_index: 1 } });
});
