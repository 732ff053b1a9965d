'use strict';
// Chain: a LiteSVM bank that behaves like a single-node cluster. Slots advance on a
// timer; each slot has its own blockhash, valid for 150 blocks; transactions land in
// the current slot and are kept with their metadata for status and history queries.
//
// Commitment follows block heights: `confirmed` is one block behind the newest,
// `finalized` (a root) 32 behind, as a lone validator that votes on every block
// sees them. Epochs are solana-test-validator's (432,000 slots, no warmup:
// EpochSchedule::without_warmup): one passes in 48 hours of slots, or at once
// by warpTo (the validator_warp* test methods); each passed epoch gets its
// StakeHistory entry as a bank writes it.

const crypto = require('crypto');
const { EventEmitter } = require('events');
const {
  LiteSvm, Account, FailedTransactionMetadata, Rent, EpochSchedule, StakeHistory, StakeHistoryEntry,
} = require('litesvm/dist/internal.js');
const bs58 = require('./base58');
const wire = require('./wire');
const errors = require('./errors');
const { tokenAccount, mintDecimals, uiAmount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');
const { OwnerIndex } = require('./ownerindex');
const { ProgramIndex } = require('./programindex');
const { AccountCache } = require('./accountcache');
const stake = require('./stake');
const ed25519 = require('./ed25519');

// A blockhash is valid for 150 blocks after its own (solana-clock
// MAX_PROCESSING_AGE); a node's preflight and simulateTransaction take 6
// fewer (MAX_PROCESSING_AGE - MAX_TRANSACTION_FORWARDING_DELAY, Agave
// runtime/src/bank.rs simulate_transaction_unchecked), leaving the leader
// time to receive what it forwards.
const MAX_PROCESSING_AGE = 150;
const MAX_TRANSACTION_FORWARDING_DELAY = 6;
const PREFLIGHT_MAX_AGE = MAX_PROCESSING_AGE - MAX_TRANSACTION_FORWARDING_DELAY;
// The status cache keeps a blockhash's transactions while the newest block
// that used it is among the last 300 roots (Agave runtime/src/status_cache.rs
// MAX_CACHE_ENTRIES = MAX_RECENT_BLOCKHASHES, purge_roots).
const MAX_CACHE_ENTRIES = 300;
const CONFIRMATION_DEPTH = 1;
const FINALIZATION_DEPTH = 32;
const SLOTS_PER_EPOCH = 432_000;
const MAX_STAKE_HISTORY = 512; // solana-stake-interface MAX_ENTRIES
const VOTE_ACCOUNT_SIZE = 3762; // VoteStateV3::size_of()
const NONCE_ACCOUNT_SIZE = 80; // nonce::state::Versions
const SYSVAR_RENT = 'SysvarRent111111111111111111111111111111111';
const SYSVAR_CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const SYSTEM_PROGRAM = Buffer.alloc(32);
const LOOKUP_TABLE_META_SIZE = 56;
const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
// SlotHashes holds at most 512 entries (solana-slot-hashes MAX_ENTRIES).
const SLOT_HASHES_MAX_ENTRIES = 512;
const SLOT_HASHES_SIZE = 8 + SLOT_HASHES_MAX_ENTRIES * 40;
const SLOT_HASHES_ID = bs58.decodePubkey('SysvarS1otHashes111111111111111111111111111');

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
    this.svm.setEpochSchedule(new EpochSchedule(BigInt(SLOTS_PER_EPOCH), BigInt(SLOTS_PER_EPOCH), false, 0n, 0n));
    this.programs = programsDir ? loadPrograms(this.svm, programsDir) : [];
    this.slotMs = slotMs;
    this.slot = 0;
    this.blockHeight = 0;
    this.rootFloor = 0; // a warp's block is a root at once
    this.transactionCount = 0;
    this.blocks = []; // index = block height: { slot, blockHeight, blockhash, blockTime, prio: [] }
    this.blockhashes = new Map(); // blockhash -> block height
    this.txs = new Map(); // signature (base58) -> landed transaction record
    this.processed = new Map(); // message hash -> landed transaction record (the status cache's key)
    this.blockhashUse = new Map(); // recent blockhash -> height of the newest block a transaction of it landed in
    this.stakeHistory = new Map(); // epoch (bigint) -> { effective, activating, deactivating }
    this.owners = new OwnerIndex(this.svm); // token accounts by owner
    this.programIndex = new ProgramIndex(this.svm); // accounts by program, for getProgramAccounts
    this.accounts = new AccountCache(this.svm); // token-program accounts, encoded
    this.faucet = ed25519.generate();
    this.svm.setAccount(this.faucet.pubkey, new Account(FAUCET_LAMPORTS, new Uint8Array(0), SYSTEM_PROGRAM, false, 0n));
    this.openBlock();
    this.genesisValidator();
  }

  // genesisValidator gives the cluster its validator, as
  // solana-test-validator's genesis does: the faucet's key is the node's
  // identity, with a vote account (made by a real vote-program
  // InitializeAccount, recorded as genesis: no ledger entry) and a bootstrap
  // stake of 1,000,000 SOL delegated to it, effective from the start
  // (activation epoch u64::MAX), which the StakeHistory entries count.
  genesisValidator() {
    const vote = ed25519.generate();
    const identity = this.faucet.pubkey;
    const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
    const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
    const voteProgram = bs58.decodePubkey(stake.VOTE_PROGRAM);
    const create = Buffer.concat([u32(0), u64(this.svm.minimumBalanceForRentExemption(BigInt(VOTE_ACCOUNT_SIZE))), u64(VOTE_ACCOUNT_SIZE), voteProgram]);
    const init = Buffer.concat([u32(0), identity, identity, identity, Buffer.from([0])]); // VoteInit: node, voter, withdrawer, commission 0
    // keys: identity (payer, node), vote, Rent, Clock, Vote program, System program
    const message = Buffer.concat([
      Buffer.from([2, 0, 4, 6]), identity, vote.pubkey, bs58.decodePubkey(SYSVAR_RENT), bs58.decodePubkey(SYSVAR_CLOCK), voteProgram, SYSTEM_PROGRAM,
      bs58.decodePubkey(this.svm.latestBlockhash()),
      Buffer.from([2, 5, 2, 0, 1, create.length]), create,
      Buffer.from([4, 4, 1, 2, 3, 0, init.length]), init,
    ]);
    const sigs = [this.faucet, vote].map((k) => crypto.sign(null, message, k.privateKey));
    const res = this.svm.sendLegacyTransaction(Buffer.concat([Buffer.from([2]), ...sigs, message]));
    if (res instanceof FailedTransactionMetadata) throw new Error(`genesis vote account: ${errors.display(errors.toJSON(res.err()))}`);
    this.voteAccount = bs58.encode(vote.pubkey);
    const reserve = this.svm.minimumBalanceForRentExemption(BigInt(stake.STAKE_ACCOUNT_SIZE));
    const data = stake.encodeStake({
      rentExemptReserve: reserve, staker: bs58.encode(identity), withdrawer: bs58.encode(identity), voter: this.voteAccount,
      stake: stake.BOOTSTRAP_STAKE, activationEpoch: stake.U64_MAX,
    });
    this.bootstrapStake = bs58.encode(ed25519.generate().pubkey);
    this.svm.setAccount(bs58.decodePubkey(this.bootstrapStake), new Account(stake.BOOTSTRAP_STAKE + reserve, data, bs58.decodePubkey(stake.STAKE_PROGRAM), false, 0n));
  }

  start() {
    this.timer = setInterval(() => this.advance(), this.slotMs);
    this.timer.unref?.();
  }

  stop() { clearInterval(this.timer); }

  // epoch is the epoch of slot (the current one by default).
  epoch(slot = this.slot) { return Math.floor(slot / SLOTS_PER_EPOCH); }

  openBlock() {
    const clock = this.svm.getClock();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const epoch = BigInt(this.epoch());
    if (this.blocks.length === 0 || clock.epoch !== epoch) clock.epochStartTimestamp = now;
    clock.slot = BigInt(this.slot);
    clock.epoch = epoch;
    clock.leaderScheduleEpoch = epoch + 1n; // without warmup the schedule is known one epoch ahead
    clock.unixTimestamp = now;
    this.svm.setClock(clock);
    if (this.blocks.length > 0) this.svm.expireBlockhash();
    const blockhash = this.svm.latestBlockhash();
    const block = { slot: this.slot, blockHeight: this.blockHeight, blockhash, blockTime: Number(clock.unixTimestamp), prio: [] };
    this.blocks[this.blockHeight] = block;
    this.blockhashes.set(blockhash, this.blockHeight);
    this.updateSlotHashes(block);
  }

  // updateSlotHashes keeps the SlotHashes sysvar's entries: the chain's own
  // blocks, the open one and those before it of the last 512 slots, newest
  // first, each with its blockhash. LiteSVM's default holds one entry at its
  // own genesis slot (447,552,000), so without this a lookup table created
  // at a slot getSlot answered was refused ("is not a recent slot"). The
  // open block is listed because a transaction lands in it here (a node's
  // leader lands it in a later block, whose SlotHashes holds the slot the
  // client read), so every slot getSlot answers, at any commitment and right
  // after a warp, is a recent slot. A warp passes slots without blocks:
  // blocks more than 512 slots back leave the window, as they have on a
  // cluster that produced those slots, so a lookup table deactivated at slot
  // D is closable from slot D + 512, after a warp as after 512 blocks.
  // The account is written when something reads it (flushSlotHashes).
  updateSlotHashes(block) {
    const floor = block.slot - SLOT_HASHES_MAX_ENTRIES;
    this.slotHashes ??= [];
    while (this.slotHashes.length > 0 && this.slotHashes[this.slotHashes.length - 1].slot <= floor) this.slotHashes.pop();
    this.slotHashes.unshift({ slot: block.slot, hash: bs58.decodePubkey(block.blockhash) });
    this.slotHashes.length = Math.min(this.slotHashes.length, SLOT_HASHES_MAX_ENTRIES);
    this.slotHashesStale = true;
  }

  // flushSlotHashes writes the SlotHashes sysvar's account, if a block has
  // opened since it was last written, before a transaction runs and before
  // an RPC call is answered (Rpc.call): its bincode (a u64 count, then slot u64 and hash per entry,
  // zero-padded to the size of 512), from which LiteSVM refreshes its sysvar
  // cache. Written at every block it cost 0.9 ms a block by setSlotHashes,
  // 0.25 ms as an account (the copy of 20 KB into LiteSVM), ten times what a
  // block costs without it; a block no transaction touches costs nothing.
  flushSlotHashes() {
    if (!this.slotHashesStale) return;
    this.slotHashesStale = false;
    const data = Buffer.alloc(SLOT_HASHES_SIZE);
    data.writeBigUInt64LE(BigInt(this.slotHashes.length), 0);
    this.slotHashes.forEach(({ slot, hash }, i) => {
      data.writeBigUInt64LE(BigInt(slot), 8 + i * 40);
      hash.copy(data, 16 + i * 40);
    });
    this.slotHashesAccount ??= this.svm.getAccount(SLOT_HASHES_ID);
    const a = this.slotHashesAccount;
    this.svm.setAccount(SLOT_HASHES_ID, new Account(a.lamports(), data, a.owner(), false, a.rentEpoch()));
  }

  // advance closes the current slot and opens the next one.
  advance() { this.moveTo(this.slot + 1); }

  // warpTo jumps to a later slot in one block, as solana-test-validator
  // --warp-slot starts from a snapshot at that slot: the new block is a root
  // at once (every commitment sees it, everything before it is finalized),
  // blockhashes stay valid by block height, and each epoch passed gets its
  // StakeHistory entry. Test-only (validator_warpSlot, validator_warpEpochs).
  warpTo(slot) {
    if (!Number.isSafeInteger(slot) || slot <= this.slot) throw new RangeError(`warp slot ${slot} is not after the current slot ${this.slot}`);
    this.moveTo(slot);
    this.rootFloor = this.blockHeight;
  }

  moveTo(slot) {
    for (let e = this.epoch(); e < this.epoch(slot); e++) this.closeEpoch(BigInt(e));
    this.slot = slot;
    this.blockHeight++;
    this.openBlock();
    if (this.blockHeight % 1000 === 0) this.pruneStatusCache();
    this.emit('slot', this.slot);
  }

  // closeEpoch adds StakeHistory's entry for epoch, as a bank crossing into
  // the next one does (Agave runtime/src/stakes.rs activate_epoch): the sum of
  // every delegation's status at epoch, with the history before it.
  closeEpoch(epoch) {
    const delegations = [];
    for (const entry of this.svm.getProgramAccounts(bs58.decodePubkey(stake.STAKE_PROGRAM))) {
      const st = stake.parseStake(Buffer.from(entry.account().data()));
      if (st?.delegation) delegations.push(st.delegation);
    }
    this.stakeHistory.set(epoch, stake.historyEntry(delegations, epoch, this.stakeHistory));
    const sysvar = new StakeHistory();
    for (const [e, v] of [...this.stakeHistory].slice(-MAX_STAKE_HISTORY)) sysvar.add(e, new StakeHistoryEntry(v.effective, v.activating, v.deactivating));
    this.svm.setStakeHistory(sysvar);
  }

  // heightAt is the height of the newest block a commitment level sees.
  heightAt(commitment) {
    let h = this.blockHeight;
    if (commitment === 'confirmed') h -= CONFIRMATION_DEPTH;
    else if (commitment === 'finalized' || commitment === undefined || commitment === 'max' || commitment === 'root') h -= FINALIZATION_DEPTH;
    return Math.max(0, this.rootFloor, h);
  }

  // block returns the newest block visible at a commitment level.
  block(commitment) { return this.blocks[this.heightAt(commitment)]; }

  lastValidBlockHeight(blockhash) {
    const h = this.blockhashes.get(blockhash);
    return h === undefined ? null : h + MAX_PROCESSING_AGE;
  }

  // isBlockhashValid tells whether a bank at height (the newest block by
  // default) accepts blockhash: it knows it and it is at most maxAge blocks
  // old (Agave BlockhashQueue::is_hash_valid_for_age).
  isBlockhashValid(blockhash, height = this.blockHeight, maxAge = MAX_PROCESSING_AGE) {
    const h = this.blockhashes.get(blockhash);
    return h !== undefined && h <= height && height - h <= maxAge;
  }

  // durableNonce tells whether message is a durable-nonce transaction that
  // may use its recent blockhash (Agave check_age ->
  // check_load_and_advance_message_nonce_account): its first instruction is
  // System AdvanceNonceAccount on an initialized nonce account whose stored
  // nonce is the message's blockhash, signed by the nonce's authority.
  durableNonce(message) {
    const ix = message.instructions[0];
    if (!ix || message.accountKeys[ix.programIdIndex] !== SYSTEM || ix.data.length < 4 || ix.data.readUInt32LE(0) !== 4) return false;
    const index = ix.accounts[0];
    if (index === undefined || index >= message.accountKeys.length || !wire.isWritableStatic(message, index)) return false;
    const acct = this.account(message.accountKeys[index]);
    const data = acct && Buffer.from(acct.data());
    if (!data || !Buffer.from(acct.owner()).equals(SYSTEM_PROGRAM) || data.length !== NONCE_ACCOUNT_SIZE || data.readUInt32LE(4) !== 1) return false;
    if (!data.subarray(40, 72).equals(bs58.decodePubkey(message.recentBlockhash))) return false;
    const authority = bs58.encode(data.subarray(8, 40));
    return ix.accounts.some((i) => i < message.header.numRequiredSignatures && message.accountKeys[i] === authority);
  }

  // ageOk is the bank's age check at height: a valid blockhash or a durable nonce.
  ageOk(message, height = this.blockHeight, maxAge = MAX_PROCESSING_AGE) {
    return this.isBlockhashValid(message.recentBlockhash, height, maxAge) || this.durableNonce(message);
  }

  // alreadyProcessed is the landed record of a message, as the status cache
  // of a bank at height knows it (Agave Bank::check_status_cache, keyed by
  // message hash and blockhash), or null.
  alreadyProcessed(tx, height = this.blockHeight) {
    const rec = this.processed.get(messageHash(tx));
    return rec && rec.blockHeight <= height && this.inStatusCache(rec) ? rec : null;
  }

  // inStatusCache tells whether the status cache still holds a landed
  // transaction: while the newest block that landed a transaction of its
  // blockhash is among the last MAX_CACHE_ENTRIES roots.
  inStatusCache(rec) {
    const newest = this.blockhashUse.get(rec.tx.message.recentBlockhash) ?? rec.blockHeight;
    return newest > this.heightAt('finalized') - MAX_CACHE_ENTRIES;
  }

  pruneStatusCache() {
    const oldest = this.heightAt('finalized') - MAX_CACHE_ENTRIES;
    for (const [blockhash, h] of this.blockhashUse) if (h <= oldest) this.blockhashUse.delete(blockhash);
  }

  // commitmentOf says how settled a landed transaction is now.
  commitmentOf(rec) {
    if (rec.blockHeight <= this.heightAt('finalized')) return 'finalized';
    if (rec.blockHeight <= this.heightAt('confirmed')) return 'confirmed';
    return 'processed';
  }

  reaches(rec, commitment) {
    const order = { processed: 0, confirmed: 1, finalized: 2 };
    const want = order[commitment ?? 'finalized'] ?? 2;
    return order[this.commitmentOf(rec)] >= want;
  }

  // setRent replaces the Rent sysvar's lamports per byte (the exemption
  // threshold and burn share stay), as a SIMD-0437 feature activation does:
  // the sysvar account, getMinimumBalanceForRentExemption and every program
  // see the new value; accounts keep their lamports. Test-only
  // (validator_setRent).
  setRent(lamportsPerByteYear) {
    const r = this.svm.getRent();
    this.svm.setRent(new Rent(BigInt(lamportsPerByteYear), r.exemptionThreshold, r.burnPercent));
    return this.svm.getRent();
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

  // run executes (or simulates) a serialized transaction (tx, when given, is
  // its wire.parseTransaction). It returns the execution outcome; it throws
  // TxFailure when the bank refuses the transaction outright.
  //
  // A simulation runs as a node's does on the bank a commitment level sees
  // (its blockhash for replaceRecentBlockhash, its age check with 144
  // blocks, its status cache), over the newest accounts (this LiteSVM keeps
  // no older state); checkAge false leaves the age check to the caller
  // (preflight makes it on its own bank). Executing is the leader: the
  // newest block, 150 blocks, every landed transaction.
  run(bytes, { tx = null, simulate = false, sigVerify = true, replaceRecentBlockhash = false, commitment = 'processed', checkAge = true } = {}) {
    tx ??= wire.parseTransaction(bytes);
    let replacement = null;
    const height = simulate ? this.heightAt(commitment) : this.blockHeight;
    if (replaceRecentBlockhash) {
      const { blockhash } = this.blocks[height];
      bytes = wire.withBlockhash(tx, blockhash);
      tx = wire.reparsed(tx, bytes, blockhash);
      replacement = { blockhash, lastValidBlockHeight: this.lastValidBlockHeight(blockhash) };
    }
    const { message } = tx;
    const signature = bs58.encode(tx.signatures[0]);
    if (checkAge && !this.ageOk(message, height, simulate ? PREFLIGHT_MAX_AGE : MAX_PROCESSING_AGE)) throw new TxFailure('BlockhashNotFound');
    if (simulate ? this.alreadyProcessed(tx, height) : this.txs.has(signature) || this.processed.has(messageHash(tx))) throw new TxFailure('AlreadyProcessed');
    const { keys, loaded } = this.resolveAccounts(message);
    const fee = wire.fee(message);
    // Balances are what a landed transaction's record shows; a simulation
    // answers none of them.
    const preBalances = simulate ? null : this.balances(keys);
    const preTokenBalances = simulate ? null : this.tokenBalances(keys);

    this.flushSlotHashes();
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
    this.programIndex.update(writable);
    this.accounts.forget(writable);
    const rec = { ...outcome, slot: this.slot, blockHeight: this.blockHeight, blockTime: block.blockTime };
    this.txs.set(outcome.signature, rec);
    this.processed.set(messageHash(outcome.tx), rec);
    this.blockhashUse.set(message.recentBlockhash, this.blockHeight);
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

// messageHash keys the status cache: a transaction is its message (its
// signatures follow from it).
function messageHash(tx) {
  return crypto.createHash('sha256').update(tx.messageBytes).digest('base64');
}

module.exports = { Chain, TxFailure, MAX_PROCESSING_AGE, PREFLIGHT_MAX_AGE, SLOTS_PER_EPOCH };
