'use strict';
// Test fixtures built as a client builds them: real signed legacy transactions of
// System and SPL Token (or Token-2022) instructions, sent through Chain.run, so the
// accounts change the way they do under the e2e suite.

const crypto = require('crypto');
const bs58 = require('../lib/base58');
const ed25519 = require('../lib/ed25519');
const { encodeShortvec } = require('../lib/wire');
const { TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('../lib/accounts');

const SYSTEM = '11111111111111111111111111111111';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const STAKE = 'Stake11111111111111111111111111111111111111';
const SYSVAR = {
  rent: 'SysvarRent111111111111111111111111111111111',
  clock: 'SysvarC1ock11111111111111111111111111111111',
  recentBlockhashes: 'SysvarRecentB1ockHashes11111111111111111111',
  stakeHistory: 'SysvarStakeHistory1111111111111111111111111',
};
const STAKE_CONFIG = 'StakeConfig11111111111111111111111111111111';
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
const NONCE_SIZE = 80;
const STAKE_SIZE = 200;
const BUFFER_METADATA_SIZE = 37; // UpgradeableLoaderState::Buffer: u32 tag, Option<Pubkey> authority

function keypair() {
  const { pubkey, privateKey } = ed25519.generate();
  return { pubkey, address: bs58.encode(pubkey), privateKey };
}

function u64(n) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

function u32(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

const shortvec = encodeShortvec;

// orderKeys lists the keys of instructions ({ programId, keys: [{ pubkey,
// signer, writable }], data }) paid by payer, ordered as the runtime wants
// them, with the message header and each key's index.
function orderKeys(payer, instructions) {
  const metas = new Map([[payer, { signer: true, writable: true }]]);
  const meta = (pubkey, signer, writable) => {
    const m = metas.get(pubkey) ?? { signer: false, writable: false };
    metas.set(pubkey, { signer: m.signer || signer, writable: m.writable || writable });
  };
  for (const ix of instructions) {
    for (const k of ix.keys) meta(k.pubkey, !!k.signer, !!k.writable);
    meta(ix.programId, false, false);
  }
  const rank = ([, m]) => (m.signer ? 0 : 2) + (m.writable ? 0 : 1);
  const keys = [...metas].map((e, i) => [e, i]).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([e]) => e);
  const index = new Map(keys.map(([k], i) => [k, i]));
  const header = Buffer.from([
    keys.filter(([, m]) => m.signer).length,
    keys.filter(([, m]) => m.signer && !m.writable).length,
    keys.filter(([, m]) => !m.signer && !m.writable).length,
  ]);
  return { keys, index, header, signers: keys.filter(([, m]) => m.signer).map(([k]) => k) };
}

// compile is a legacy message of instructions paid by payer.
function compile(payer, instructions, blockhash) {
  const { keys, index, header, signers } = orderKeys(payer, instructions);
  const parts = [header, shortvec(keys.length), ...keys.map(([k]) => bs58.decodePubkey(k)), bs58.decodePubkey(blockhash), shortvec(instructions.length)];
  for (const ix of instructions) {
    parts.push(Buffer.from([index.get(ix.programId)]), shortvec(ix.keys.length), Buffer.from(ix.keys.map((k) => index.get(k.pubkey))), shortvec(ix.data.length), ix.data);
  }
  return { message: Buffer.concat(parts), signers };
}

// compileV1 is a v1 message (SIMD-0385; lib/wire.js gives the layout) of
// instructions paid by payer, with config's values in its mask
// ({ priorityFee, computeUnitLimit, loadedAccountsDataSizeLimit, heapSize }).
function compileV1(payer, instructions, blockhash, config = {}) {
  const { keys, index, header, signers } = orderKeys(payer, instructions);
  let mask = 0;
  const values = [];
  if (config.priorityFee !== undefined) { mask |= 0b11; values.push(u64(config.priorityFee)); }
  [['computeUnitLimit', 0b100], ['loadedAccountsDataSizeLimit', 0b1000], ['heapSize', 0b10000]].forEach(([k, bit]) => {
    if (config[k] !== undefined) { mask |= bit; values.push(u32(config[k])); }
  });
  const u16 = (n) => { const b = Buffer.alloc(2); b.writeUInt16LE(n); return b; };
  const message = Buffer.concat([
    Buffer.from([0x81]), header, u32(mask), bs58.decodePubkey(blockhash), Buffer.from([instructions.length, keys.length]),
    ...keys.map(([k]) => bs58.decodePubkey(k)), ...values,
    ...instructions.map((i) => Buffer.concat([Buffer.from([index.get(i.programId), i.keys.length]), u16(i.data.length)])),
    ...instructions.map((i) => Buffer.concat([Buffer.from(i.keys.map((k) => index.get(k.pubkey))), i.data])),
  ]);
  return { message, signers };
}

// transactionV1 signs a v1 transaction: the message, then its signatures.
function transactionV1(signers, instructions, blockhash, config) {
  const { message, signers: needed } = compileV1(signers[0].address, instructions, blockhash, config);
  const byAddress = new Map(signers.map((s) => [s.address, s]));
  return Buffer.concat([message, ...needed.map((a) => crypto.sign(null, message, byAddress.get(a).privateKey))]);
}

// transaction signs a legacy transaction; signers are keypairs, the payer first.
function transaction(signers, instructions, blockhash) {
  const { message, signers: needed } = compile(signers[0].address, instructions, blockhash);
  const byAddress = new Map(signers.map((s) => [s.address, s]));
  const sigs = needed.map((a) => crypto.sign(null, message, byAddress.get(a).privateKey));
  return Buffer.concat([shortvec(sigs.length), ...sigs, message]);
}

const w = (pubkey, signer = false) => ({ pubkey, signer, writable: true });
const r = (pubkey, signer = false) => ({ pubkey, signer, writable: false });

const ix = {
  createAccount: (from, to, lamports, space, owner) => ({
    programId: SYSTEM, keys: [w(from, true), w(to, true)],
    data: Buffer.concat([Buffer.from([0, 0, 0, 0]), u64(lamports), u64(space), bs58.decodePubkey(owner)]),
  }),
  initializeMint2: (program, mint, authority, decimals = 0) => ({
    programId: program, keys: [w(mint)], data: Buffer.concat([Buffer.from([20, decimals]), bs58.decodePubkey(authority), Buffer.from([0])]),
  }),
  initializeAccount3: (program, account, mint, owner) => ({
    programId: program, keys: [w(account), r(mint)], data: Buffer.concat([Buffer.from([18]), bs58.decodePubkey(owner)]),
  }),
  mintTo: (program, mint, account, authority, amount) => ({
    programId: program, keys: [w(mint), w(account), r(authority, true)], data: Buffer.concat([Buffer.from([7]), u64(amount)]),
  }),
  approve: (program, account, delegate, owner, amount) => ({
    programId: program, keys: [w(account), r(delegate), r(owner, true)], data: Buffer.concat([Buffer.from([4]), u64(amount)]),
  }),
  revoke: (program, account, owner) => ({ programId: program, keys: [w(account), r(owner, true)], data: Buffer.from([5]) }),
  // setOwner is SetAuthority of the AccountOwner kind.
  setOwner: (program, account, owner, newOwner) => ({
    programId: program, keys: [w(account), r(owner, true)], data: Buffer.concat([Buffer.from([6, 2, 1]), bs58.decodePubkey(newOwner)]),
  }),
  closeAccount: (program, account, destination, owner) => ({
    programId: program, keys: [w(account), w(destination), r(owner, true)], data: Buffer.from([9]),
  }),
  computeUnitPrice: (microLamports) => ({ programId: COMPUTE_BUDGET, keys: [], data: Buffer.concat([Buffer.from([3]), u64(microLamports)]) }),
  transfer: (from, to, lamports) => ({ programId: SYSTEM, keys: [w(from, true), w(to)], data: Buffer.concat([u32(2), u64(lamports)]) }),
  // withdrawExcessLamports is Token-2022's (and p-token's) instruction 38:
  // source (a token account, a mint or a multisig), destination, authority.
  withdrawExcessLamports: (program, source, destination, authority) => ({
    programId: program, keys: [w(source), w(destination), r(authority, true)], data: Buffer.from([38]),
  }),
  // The upgradeable BPF loader's InitializeBuffer (0), Write (1: offset u32,
  // bytes as a u64-length vector) and Close (5: account, recipient, authority).
  initializeBuffer: (buffer, authority) => ({ programId: LOADER, keys: [w(buffer), r(authority)], data: u32(0) }),
  writeBuffer: (buffer, authority, offset, bytes) => ({
    programId: LOADER, keys: [w(buffer), r(authority, true)], data: Buffer.concat([u32(1), u32(offset), u64(bytes.length), bytes]),
  }),
  closeBuffer: (buffer, recipient, authority) => ({ programId: LOADER, keys: [w(buffer), w(recipient), r(authority, true)], data: u32(5) }),
  // The System program's nonce instructions: AdvanceNonceAccount (4),
  // WithdrawNonceAccount (5), InitializeNonceAccount (6).
  initializeNonce: (nonce, authority) => ({
    programId: SYSTEM, keys: [w(nonce), r(SYSVAR.recentBlockhashes), r(SYSVAR.rent)], data: Buffer.concat([u32(6), bs58.decodePubkey(authority)]),
  }),
  advanceNonce: (nonce, authority) => ({
    programId: SYSTEM, keys: [w(nonce), r(SYSVAR.recentBlockhashes), r(authority, true)], data: u32(4),
  }),
  withdrawNonce: (nonce, to, authority, lamports) => ({
    programId: SYSTEM, keys: [w(nonce), w(to), r(SYSVAR.recentBlockhashes), r(SYSVAR.rent), r(authority, true)], data: Buffer.concat([u32(5), u64(lamports)]),
  }),
  // The stake program's Initialize (0: Authorized, Lockup none), DelegateStake
  // (2), Withdraw (4: lamports) and Deactivate (5).
  initializeStake: (account, staker, withdrawer) => ({
    programId: STAKE, keys: [w(account), r(SYSVAR.rent)],
    data: Buffer.concat([u32(0), bs58.decodePubkey(staker), bs58.decodePubkey(withdrawer), Buffer.alloc(48)]),
  }),
  delegateStake: (account, vote, staker) => ({
    programId: STAKE, keys: [w(account), r(vote), r(SYSVAR.clock), r(SYSVAR.stakeHistory), r(STAKE_CONFIG), r(staker, true)], data: u32(2),
  }),
  deactivateStake: (account, staker) => ({ programId: STAKE, keys: [w(account), r(SYSVAR.clock), r(staker, true)], data: u32(5) }),
  withdrawStake: (account, to, withdrawer, lamports) => ({
    programId: STAKE, keys: [w(account), w(to), r(SYSVAR.clock), r(SYSVAR.stakeHistory), r(withdrawer, true)], data: Buffer.concat([u32(4), u64(lamports)]),
  }),
};

// Fixtures sends fixture transactions to a chain, paid by a funded wallet.
class Fixtures {
  constructor(chain) {
    this.chain = chain;
    this.payer = this.wallet(1_000_000_000_000);
  }

  // send lands a transaction and returns its outcome; it throws when it fails.
  send(signers, instructions) {
    const out = this.chain.run(transaction(signers, instructions, this.chain.svm.latestBlockhash()));
    if (out.err) throw new Error(`transaction failed: ${JSON.stringify(out.err)}\n${out.logs.join('\n')}`);
    return out;
  }

  wallet(lamports = 10_000_000_000) {
    const k = keypair();
    this.chain.airdrop(k.address, lamports);
    return k;
  }

  rent(size) { return this.chain.svm.minimumBalanceForRentExemption(BigInt(size)); }

  // mintsWithAccounts makes n mints of program and an account of each for owner
  // (several to a transaction); it returns the accounts' and mints' keypairs.
  mintsWithAccounts(program, owner, n, perTx = 4) {
    const made = [];
    for (let i = 0; i < n; i += perTx) {
      const signers = [this.payer];
      const ixs = [];
      for (let j = i; j < Math.min(n, i + perTx); j++) {
        const mint = keypair();
        const account = keypair();
        signers.push(mint, account);
        ixs.push(
          ix.createAccount(this.payer.address, mint.address, this.rent(MINT_SIZE), MINT_SIZE, program),
          ix.initializeMint2(program, mint.address, this.payer.address),
          ix.createAccount(this.payer.address, account.address, this.rent(TOKEN_ACCOUNT_SIZE), TOKEN_ACCOUNT_SIZE, program),
          ix.initializeAccount3(program, account.address, mint.address, owner),
        );
        made.push({ program, mint, account });
      }
      this.send(signers, ixs);
    }
    return made;
  }
}

module.exports = {
  Fixtures, keypair, transaction, transactionV1, compileV1, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_ACCOUNT_SIZE, MINT_SIZE,
  NONCE_SIZE, STAKE_SIZE, BUFFER_METADATA_SIZE, SYSTEM, LOADER, STAKE, SYSVAR,
};
