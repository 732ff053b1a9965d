'use strict';
// Chain: a LiteSVM bank that behaves like a single-node cluster. Slots advance on a
// timer; each slot has its own blockhash, valid for 150 blocks; transactions land in
// the current slot and are kept with their metadata for status and history queries.

const crypto = require('crypto');
const { EventEmitter } = require('events');
const { LiteSvm, Account, FailedTransactionMetadata } = require('litesvm/dist/internal.js');
const bs58 = require('./base58');
const wire = require('./wire');
const errors = require('./errors');
const { tokenAccount, mintDecimals, uiAmount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');
const { OwnerIndex } = require('./ownerindex');
const { AccountCache } = require('./accountcache');
const ed25519 = require('./ed25519');

const MAX_PROCESSING_AGE = 150;
const CONFIRMATION_DEPTH = 1;
const FINALIZATION_DEPTH = 32;
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const SYSTEM_PROGRAM = Buffer.alloc(32);
const LOOKUP_TABLE_META_SIZE = 56;
const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';

// TxFailure is a transaction the bank refused before execution (it does not land).
class TxFailure extends Error {
  constructor(err, meta) { super(errors.display(err)); this.err = err; this.meta = meta; }
}

// Stand-ins: programs no build of which can be had here, loaded from another
// program's file when the directory lacks their own. Lighthouse (the wallet
// guards Phantom and Solflare append) runs as SPL Noop: its assertions then
// execute, cost compute units and always pass, which is what a relay's tests
// need (that guarded transactions are accepted, land and are accounted for);
// Lighthouse's own semantics are not ours to test. See shared/programs/README.md.
const STAND_INS = {
  L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95: 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV',
};

// loadPrograms adds every <programId>.so of dir to svm as an upgradeable BPF
// program (LiteSVM's addProgramFromFile), then the stand-ins whose own file is
// missing, and returns the ids loaded. Programs LiteSVM does not ship
// (Metaplex Token Metadata, MPL Core, Bubblegum, ...) come this way.
function loadPrograms(svm, dir) {
  const fs = require('fs');
  const path = require('path');
  const loaded = [];
  const load = (id, file) => {
    const key = bs58.decode(id);
    if (key.length !== 32) throw new Error(`${file}: ${id} is not a base58 program id`);
    svm.addProgramFromFile(key, path.join(dir, file));
    loaded.push(id);
  };
  for (const name of fs.readdirSync(dir).sort()) {
    if (name.endsWith('.so')) load(name.slice(0, -'.so'.length), name);
  }
  for (const [id, from] of Object.entries(STAND_INS)) {
    if (!loaded.includes(id) && loaded.includes(from)) load(id, `${from}.so`);
  }
  return loaded;
}

class Chain extends EventEmitter {
  constructor({ slotMs = 400, programsDir = null } = {}) {
    super();
    this.svm = new LiteSvm();
    this.svm.setBlockhashCheck(false); // we check the 150-block window ourselves
    this.svm.setTransactionHistory(0n); // duplicates are caught by our own status cache
    this.svm.withNativeMints();
    this.programs = programsDir ? loadPrograms(this.svm, programsDir) : [];
    this.slotMs = slotMs;
    this.slot = 0;
    this.blockHeight = 0;
    this.transactionCount = 0;
    this.blocks = []; // index = block height: { slot, blockHeight, blockhash, blockTime, prio: [] }
    this.blockhashes = new Map(); // blockhash -> block height
    this.txs = new Map(); // signature (base58) -> landed transaction record
    this.owners = new OwnerIndex(this.svm); // token accounts by owner
    this.accounts = new AccountCache(this.svm); // token-program accounts, encoded
    this.faucet = ed25519.generate();
    this.svm.setAccount(this.faucet.pubkey, new Account(FAUCET_LAMPORTS, new Uint8Array(0), SYSTEM_PROGRAM, false, 0n));
    this.openBlock();
  }

  start() {
    this.timer = setInterval(() => this.advance(), this.slotMs);
    this.timer.unref?.();
  }

  stop() { clearInterval(this.timer); }

  openBlock() {
    const clock = this.svm.getClock();
    clock.slot = BigInt(this.slot);
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
    if (this.blocks.length > 0) this.svm.expireBlockhash();
    const blockhash = this.svm.latestBlockhash();
    const block = { slot: this.slot, blockHeight: this.blockHeight, blockhash, blockTime: Number(clock.unixTimestamp), prio: [] };
    this.blocks[this.blockHeight] = block;
    this.blockhashes.set(blockhash, this.blockHeight);
  }

  // advance closes the current slot and opens the next one.
  advance() {
    this.slot++;
    this.blockHeight++;
    this.openBlock();
    this.emit('slot', this.slot);
  }

  // block returns the newest block visible at a commitment level.
  block(commitment) {
    let h = this.blockHeight;
    if (commitment === 'confirmed') h -= CONFIRMATION_DEPTH;
    else if (commitment === 'finalized' || commitment === undefined || commitment === 'max' || commitment === 'root') h -= FINALIZATION_DEPTH;
    return this.blocks[Math.max(0, h)];
  }

  lastValidBlockHeight(blockhash) {
    const h = this.blockhashes.get(blockhash);
    return h === undefined ? null : h + MAX_PROCESSING_AGE;
  }

  isBlockhashValid(blockhash) {
    const last = this.lastValidBlockHeight(blockhash);
    return last !== null && this.blockHeight <= last;
  }

  // commitmentOf says how settled a landed transaction is now.
  commitmentOf(rec) {
    const depth = this.slot - rec.slot;
    if (depth >= FINALIZATION_DEPTH) return 'finalized';
    if (depth >= CONFIRMATION_DEPTH) return 'confirmed';
    return 'processed';
  }

  reaches(rec, commitment) {
    const order = { processed: 0, confirmed: 1, finalized: 2 };
    const want = order[commitment ?? 'finalized'] ?? 2;
    return order[this.commitmentOf(rec)] >= want;
  }

  account(pubkey) { return this.svm.getAccount(typeof pubkey === 'string' ? bs58.decodePubkey(pubkey) : pubkey); }

  decimalsOf(mint) { return mintDecimals(this.account(mint)); }

  // resolveAccounts lists every account a message loads, with writability, resolving
  // address lookup tables.
  resolveAccounts(message) {
    const keys = message.accountKeys.map((pubkey, i) => ({ pubkey, writable: wire.isWritableStatic(message, i), signer: i < message.header.numRequiredSignatures, source: 'transaction' }));
    const loaded = { writable: [], readonly: [] };
    for (const lookup of message.addressTableLookups) {
      const table = this.account(lookup.accountKey);
      if (!table) throw new TxFailure('AddressLookupTableNotFound');
      if (bs58.encode(table.owner()) !== LOOKUP_TABLE_PROGRAM) throw new TxFailure('InvalidAddressLookupTableOwner');
      const data = Buffer.from(table.data());
      const addr = (i) => {
        const off = LOOKUP_TABLE_META_SIZE + i * 32;
        if (off + 32 > data.length) throw new TxFailure('InvalidAddressLookupTableIndex');
        return bs58.encode(data.subarray(off, off + 32));
      };
      for (const i of lookup.writableIndexes) loaded.writable.push(addr(i));
      for (const i of lookup.readonlyIndexes) loaded.readonly.push(addr(i));
    }
    for (const pubkey of loaded.writable) keys.push({ pubkey, writable: true, signer: false, source: 'lookupTable' });
    for (const pubkey of loaded.readonly) keys.push({ pubkey, writable: false, signer: false, source: 'lookupTable' });
    return { keys, loaded };
  }

  balances(keys) {
    return keys.map((k) => {
      const b = this.svm.getBalance(bs58.decodePubkey(k.pubkey));
      return b === null ? 0n : b;
    });
  }

  tokenBalances(keys) {
    const out = [];
    keys.forEach((k, accountIndex) => {
      const acct = this.account(k.pubkey);
      if (!acct) return;
      const programId = bs58.encode(acct.owner());
      if (programId !== TOKEN_PROGRAM && programId !== TOKEN_2022_PROGRAM) return;
      const ta = tokenAccount(Buffer.from(acct.data()), programId);
      if (!ta) return;
      const decimals = this.decimalsOf(ta.mint);
      if (decimals === null) return;
      out.push({ accountIndex, mint: ta.mint, owner: ta.owner, programId, uiTokenAmount: uiAmount(ta.amount, decimals) });
    });
    return out;
  }

  // run executes (or simulates) a serialized transaction. It returns the execution
  // outcome; it throws TxFailure when the bank refuses the transaction outright.
  run(bytes, { simulate = false, sigVerify = true, replaceRecentBlockhash = false } = {}) {
    let tx = wire.parseTransaction(bytes);
    let replacement = null;
    if (replaceRecentBlockhash) {
      const blockhash = this.svm.latestBlockhash();
      bytes = wire.withBlockhash(tx, blockhash);
      tx = wire.parseTransaction(bytes);
      replacement = { blockhash, lastValidBlockHeight: this.lastValidBlockHeight(blockhash) };
    }
    const { message } = tx;
    const signature = bs58.encode(tx.signatures[0]);
    if (!simulate && this.txs.has(signature)) throw new TxFailure('AlreadyProcessed');
    if (!this.isBlockhashValid(message.recentBlockhash)) throw new TxFailure('BlockhashNotFound');
    const { keys, loaded } = this.resolveAccounts(message);
    const fee = wire.fee(message);
    // Balances are what a landed transaction's record shows; a simulation
    // answers none of them.
    const preBalances = simulate ? null : this.balances(keys);
    const preTokenBalances = simulate ? null : this.tokenBalances(keys);

    const previousSigverify = this.svm.getSigverify();
    this.svm.setSigverify(sigVerify);
    let res;
    try {
      res = simulate ? this.svm.simulateVersionedTransaction(bytes) : this.svm.sendVersionedTransaction(bytes);
    } finally {
      this.svm.setSigverify(previousSigverify);
    }
    const failed = res instanceof FailedTransactionMetadata;
    const meta = failed ? res.meta() : (simulate ? res.meta() : res);
    const err = failed ? errors.toJSON(res.err()) : null;
    const outcome = {
      signature, tx, bytes, keys, loaded, fee, err, meta, replacement,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      postAccounts: !failed && simulate ? res.postAccounts() : null,
      preBalances, preTokenBalances,
    };
    if (simulate) return outcome;

    outcome.postBalances = this.balances(keys);
    outcome.postTokenBalances = this.tokenBalances(keys);
    // A transaction lands (and pays its fee) unless the bank refused it before
    // execution; only then does the fee payer's balance move.
    if (failed && outcome.postBalances[0] === preBalances[0]) throw new TxFailure(err, meta);
    this.land(outcome);
    return outcome;
  }

  land(outcome) {
    const block = this.blocks[this.blockHeight];
    const { message } = outcome.tx;
    const { price } = wire.computeBudget(message);
    const writable = outcome.keys.filter((k) => k.writable).map((k) => k.pubkey);
    block.prio.push({ price, writable });
    this.owners.update(writable);
    this.accounts.forget(writable);
    const rec = { ...outcome, slot: this.slot, blockTime: block.blockTime };
    this.txs.set(outcome.signature, rec);
    this.transactionCount++;
    this.emit('transaction', rec);
  }

  // recentPrioritizationFees mirrors the node's cache: per recent slot, the lowest
  // price paid by a transaction (0 if none), or with accounts the highest, over
  // the accounts, of the lowest price paid by a transaction that write-locked it.
  recentPrioritizationFees(accounts) {
    const out = [];
    const from = Math.max(0, this.blockHeight - MAX_PROCESSING_AGE + 1);
    for (let h = from; h < this.blockHeight; h++) {
      const block = this.blocks[h];
      const { min, byAccount } = blockPrices(block);
      let fee = min;
      if (accounts.length > 0) {
        fee = 0n;
        for (const a of accounts) {
          const f = byAccount.get(a) ?? 0n;
          if (f > fee) fee = f;
        }
      }
      out.push({ slot: block.slot, prioritizationFee: fee });
    }
    return out;
  }

  // airdrop sends a real, signed transfer from the faucet.
  airdrop(to, lamports) {
    const blockhash = this.svm.latestBlockhash();
    const keys = Buffer.concat([this.faucet.pubkey, bs58.decodePubkey(to), SYSTEM_PROGRAM]);
    const data = Buffer.alloc(12);
    data.writeUInt32LE(2, 0);
    data.writeBigUInt64LE(BigInt(lamports), 4);
    const message = Buffer.concat([
      Buffer.from([1, 0, 1, 3]), keys, bs58.decodePubkey(blockhash),
      Buffer.from([1, 2, 2, 0, 1, data.length]), data,
    ]);
    const sig = crypto.sign(null, message, this.faucet.privateKey);
    return this.run(Buffer.concat([Buffer.from([1]), sig, message]));
  }
}

// blockPrices is a closed block's lowest price and, per write-locked account,
// the lowest price of the transactions that write-locked it; computed once (a
// block closes when the next opens, and only the open one gains transactions).
function blockPrices(block) {
  if (block.prices) return block.prices;
  let min = null;
  const byAccount = new Map();
  for (const p of block.prio) {
    if (min === null || p.price < min) min = p.price;
    for (const a of p.writable) {
      const f = byAccount.get(a);
      if (f === undefined || p.price < f) byAccount.set(a, p.price);
    }
  }
  block.prices = { min: min ?? 0n, byAccount };
  return block.prices;
}

module.exports = { Chain, TxFailure, MAX_PROCESSING_AGE };
