'use strict';
// The JSON-RPC methods, shaped as an Agave node answers them (the version it
// reports, 2.3; the sources checked are Agave's rpc/src/rpc.rs, JsonRpcRequestProcessor
// and rpc_full, and rpc-client-api/src/custom_error.rs).
//
// Methods named validator_* are this validator's own, for tests: they change
// the cluster as no RPC call of a real node can (the Rent sysvar, the slot,
// the node's health). A real cluster answers them -32601 Method not found.

const crypto = require('crypto');
const bs58 = require('./base58');
const wire = require('./wire');
const errors = require('./errors');
const stake = require('./stake');
const ed25519 = require('./ed25519');
const { TxFailure, PREFLIGHT_MAX_AGE, SLOTS_PER_EPOCH } = require('./chain');
const { RpcError, invalidParams, encodeAccount, tokenAccount, uiAmount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');
const { cachable } = require('./accountcache');
const { RawJSON } = require('./json');

const VERSION = { 'solana-core': '2.3.13', 'feature-set': 3294202862 };
const API_VERSION = VERSION['solana-core'];
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;
// A transaction's wire size limit and its encoded forms' (Agave rpc.rs
// decode_and_deserialize: PACKET_DATA_SIZE, MAX_BASE58_SIZE; its MAX_BASE64_SIZE was 1,644).
// A v1 transaction may be 4,096 bytes (SIMD-0296), so base64 goes to 5,464
// characters, the encoded size of 4,096 bytes, and the decoded size is then
// checked against the transaction's own limit; base58 keeps its limit (a
// node's base58 decoding is too slow to take larger ones).
const PACKET_DATA_SIZE = 1232;
const V1_TRANSACTION_SIZE = 4096;
const MAX_BASE58_SIZE = 1683;
const MAX_BASE64_V1_SIZE = Math.ceil(V1_TRANSACTION_SIZE / 3) * 4;
const TX_TYPE = 'solana_transaction::versioned::VersionedTransaction';
const MAX_WARP_EPOCHS = 512;
const MAX_RECENT_BLOCKHASHES = 300;
const HEALTH = ['ok', 'behind', 'unknown'];

function pubkeyParam(v, what = 'pubkey') {
  try {
    return bs58.encode(bs58.decodePubkey(v));
  } catch {
    throw invalidParams(`Invalid param: Invalid ${what}`);
  }
}

// signatureParam checks a base58 signature (Agave verify_signature).
function signatureParam(v) {
  let bytes;
  try {
    bytes = typeof v === 'string' ? bs58.decode(v) : null;
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (!bytes || bytes.length !== 64) throw invalidParams(bytes ? 'Invalid param: WrongSize' : 'Invalid param: Invalid');
  return v;
}

// decodeTx decodes and parses a transaction param (wire.parseTransaction: its
// bytes are tx.bytes), refusing what a node refuses before reading it: more
// than its size limit (a packet, 1,232 bytes; 4,096 for v1) or its encoded
// size's.
function decodeTx(encoded, encoding = 'base58') {
  if (typeof encoded !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  const limit = { base58: MAX_BASE58_SIZE, base64: MAX_BASE64_V1_SIZE }[encoding];
  if (limit === undefined) throw invalidParams(`unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  if (encoded.length > limit) {
    const raw = encoding === 'base58' ? PACKET_DATA_SIZE : V1_TRANSACTION_SIZE;
    throw invalidParams(`${encoding} encoded ${TX_TYPE} too large: ${encoded.length} bytes (max: encoded/raw ${limit}/${raw})`);
  }
  let bytes;
  try {
    bytes = encoding === 'base58' ? bs58.decode(encoded) : Buffer.from(encoded, 'base64');
  } catch (e) {
    throw invalidParams(`invalid ${encoding} encoding: ${e.message}`);
  }
  const max = wire.isV1(bytes) ? V1_TRANSACTION_SIZE : PACKET_DATA_SIZE;
  if (bytes.length > max) {
    throw invalidParams(`decoded ${TX_TYPE} too large: ${bytes.length} bytes (max: ${max} bytes)`);
  }
  try {
    return wire.parseTransaction(bytes);
  } catch (e) {
    throw invalidParams(`failed to deserialize ${TX_TYPE}: ${e.message}`);
  }
}

// verifySignatures checks every signature over the message (Agave
// SanitizedTransaction::verify).
function verifySignatures(tx) {
  const { header, accountKeys } = tx.message;
  for (let i = 0; i < header.numRequiredSignatures; i++) {
    if (!crypto.verify(null, tx.messageBytes, ed25519.publicKey(bs58.decodePubkey(accountKeys[i])), tx.signatures[i])) return false;
  }
  return true;
}

// configParam is the single object param of a validator_* method, given as
// [object] (by position) or object (by name), with only the fields known.
function configParam(params, fields) {
  const config = Array.isArray(params) ? params[0] : params;
  if (Array.isArray(params) && params.length !== 1) throw invalidParams(`Invalid params: expected 1 parameter, got ${params.length}`);
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw invalidParams(`Invalid params: expected an object with ${fields.map((f) => `\`${f}\``).join(', ')}`);
  for (const k of Object.keys(config)) {
    if (!fields.includes(k)) throw invalidParams(`Invalid params: unknown field \`${k}\`, expected ${fields.map((f) => `\`${f}\``).join(' or ')}`);
  }
  return config;
}

function integerParam(config, field, min, max) {
  const v = config[field];
  if (!Number.isSafeInteger(v) || v < min || v > max) throw invalidParams(`Invalid params: \`${field}\` must be an integer from ${min} to ${max}`);
  return v;
}

function innerInstructions(meta) {
  return meta.innerInstructions().map((list, index) => ({
    index,
    instructions: list.map((ii) => {
      const ix = ii.instruction();
      return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: bs58.encode(ix.data()), stackHeight: ii.stackHeight() };
    }),
  })).filter((x) => x.instructions.length > 0);
}

function returnData(meta) {
  const rd = meta.returnData();
  const programId = Buffer.from(rd.programId());
  const data = Buffer.from(rd.data());
  if (data.length === 0 && programId.every((b) => b === 0)) return null;
  return { programId: bs58.encode(programId), data: [data.toString('base64'), 'base64'] };
}

function uiMessage(message, keys, encoding) {
  const instructions = message.instructions.map((ix) => ({
    programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bs58.encode(ix.data), stackHeight: null,
  }));
  const out = {
    accountKeys: message.accountKeys,
    header: message.header,
    recentBlockhash: message.recentBlockhash,
    instructions,
  };
  if (encoding === 'jsonParsed') {
    out.accountKeys = keys.map((k) => ({ pubkey: k.pubkey, signer: k.signer, source: k.source, writable: k.writable }));
    out.instructions = message.instructions.map((ix) => ({
      programId: keys[ix.programIdIndex].pubkey,
      accounts: ix.accounts.map((i) => keys[i].pubkey),
      data: bs58.encode(ix.data),
      stackHeight: null,
    }));
    delete out.header;
  }
  if (message.version !== 'legacy') out.addressTableLookups = message.addressTableLookups;
  return out;
}

// compileFilters is the predicate of a getProgramAccounts' filters
// (dataSize, memcmp in base58 or base64, tokenAccountState) over an
// account's data; an unknown filter is -32602. The scan runs over every
// account of the program (the System program's or a token program's tens of
// thousands in the latency benchmark), so each test reads the data in place:
// no subarray, no closure per filter per account.
function compileFilters(filters = []) {
  let size = -1;
  let tokenState = false;
  const cmps = [];
  for (const f of filters) {
    if (f.memcmp) {
      const enc = f.memcmp.encoding ?? 'base58';
      const bytes = enc === 'base64' ? Buffer.from(f.memcmp.bytes, 'base64') : bs58.decode(f.memcmp.bytes);
      cmps.push({ offset: f.memcmp.offset, bytes, end: f.memcmp.offset + bytes.length });
    } else if (f.dataSize !== undefined) {
      if (size >= 0 && size !== f.dataSize) return () => false;
      size = f.dataSize;
    } else if (f.tokenAccountState !== undefined) {
      tokenState = true;
    } else {
      throw invalidParams('Invalid param: unsupported filter');
    }
  }
  return (data) => {
    if (size >= 0 && data.length !== size) return false;
    if (tokenState && data.length < 165) return false;
    for (const { offset, bytes, end } of cmps) {
      if (end > data.length) return false;
      for (let i = 0; i < bytes.length; i++) {
        if (data[offset + i] !== bytes[i]) return false;
      }
    }
    return true;
  };
}

class Rpc {
  constructor(chain) {
    this.chain = chain;
    this.health = { status: 'ok', numSlotsBehind: null };
  }

  // bank is the newest block a commitment level sees, as the bank a node
  // answers from (get_bank_with_config: minContextSlot is checked against it).
  bank(commitment, minContextSlot) {
    const block = this.chain.block(commitment);
    if (minContextSlot !== undefined && minContextSlot > block.slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: block.slot });
    }
    return block;
  }

  ctx(commitment, minContextSlot) {
    return { slot: this.bank(commitment, minContextSlot).slot, apiVersion: API_VERSION };
  }

  withCtx(config, value) {
    return { context: this.ctx(config?.commitment, config?.minContextSlot), value };
  }

  decimalsOf() { return (mint) => this.chain.decimalsOf(mint); }

  encode(acct, config) { return acct ? encodeAccount(acct, config, this.decimalsOf()) : null; }

  // encodeAt is the account at address (base58) as config asks, from the
  // chain's encoded accounts when config is theirs (base64, whole).
  encodeAt(address, config) {
    if (cachable(config)) return this.chain.accounts.entry(address)?.base64 ?? null;
    return this.encode(this.chain.account(address), config);
  }

  async call(method, params) {
    const fn = this[`m_${method}`];
    if (typeof fn !== 'function') throw new RpcError(-32601, 'Method not found');
    this.chain.flushSlotHashes(); // the sysvar as the open block has it
    // validator_* methods take one object, by position or by name.
    if (method.startsWith('validator_')) return fn.call(this, params);
    if (params !== undefined && !Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
    return fn.apply(this, params ?? []);
  }

  // checkHealth throws what an unhealthy node answers (RpcCustomError::NodeUnhealthy,
  // -32005): getHealth, and sendTransaction's preflight unless skipped.
  checkHealth() {
    if (this.health.status === 'ok') return;
    const behind = this.health.status === 'behind' ? this.health.numSlotsBehind : null;
    throw new RpcError(-32005, behind === null ? 'Node is unhealthy' : `Node is behind by ${behind} slots`, { numSlotsBehind: behind });
  }

  m_getHealth() { this.checkHealth(); return 'ok'; }
  m_getVersion() { return VERSION; }
  m_getGenesisHash() { return this.chain.blocks[0].blockhash; }
  m_getIdentity() { return { identity: bs58.encode(this.chain.faucet.pubkey) }; }
  m_getFirstAvailableBlock() { return 0; }
  m_minimumLedgerSlot() { return 0; }
  m_getSlot(config) { return this.ctx(config?.commitment, config?.minContextSlot).slot; }
  m_getBlockHeight(config) { return this.bank(config?.commitment, config?.minContextSlot).blockHeight; }
  m_getTransactionCount() { return this.chain.transactionCount; }

  // m_getEpochInfo: epochs of solana-test-validator's schedule (432,000
  // slots, no warmup), the same the Clock sysvar's epoch follows.
  m_getEpochInfo(config) {
    const { slot, blockHeight } = this.bank(config?.commitment, config?.minContextSlot);
    return {
      absoluteSlot: slot,
      blockHeight,
      epoch: this.chain.epoch(slot),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: this.chain.transactionCount,
    };
  }

  m_getEpochSchedule() {
    const s = this.chain.svm.getEpochSchedule();
    return {
      firstNormalEpoch: Number(s.firstNormalEpoch), firstNormalSlot: Number(s.firstNormalSlot),
      leaderScheduleSlotOffset: Number(s.leaderScheduleSlotOffset), slotsPerEpoch: Number(s.slotsPerEpoch), warmup: s.warmup,
    };
  }

  // m_getLatestBlockhash is the blockhash of the bank a commitment level
  // sees; it is valid through block height lastValidBlockHeight, its own
  // height + 150 (Bank::get_blockhash_last_valid_block_height).
  m_getLatestBlockhash(config) {
    const block = this.bank(config?.commitment, config?.minContextSlot);
    return this.withCtx(config, { blockhash: block.blockhash, lastValidBlockHeight: this.chain.lastValidBlockHeight(block.blockhash) });
  }

  // m_isBlockhashValid asks the bank of a commitment level (finalized by
  // default): true while it knows the blockhash and is at most 150 blocks
  // past it (Bank::is_blockhash_valid, MAX_PROCESSING_AGE), so up to and
  // including lastValidBlockHeight.
  m_isBlockhashValid(blockhash, config) {
    if (typeof blockhash !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
    let bytes;
    try { bytes = bs58.decode(blockhash); } catch { throw invalidParams('Invalid'); }
    if (bytes.length !== 32) throw invalidParams('WrongSize');
    const block = this.bank(config?.commitment, config?.minContextSlot);
    return this.withCtx(config, this.chain.isBlockhashValid(blockhash, block.blockHeight));
  }

  m_getFeeForMessage(encoded, config) {
    let message;
    try {
      message = wire.parseMessage(Buffer.from(encoded, 'base64'));
    } catch (e) {
      throw invalidParams(`invalid message: ${e.message}`);
    }
    // The fee is known while the bank's blockhash queue holds the blockhash
    // (300 blocks, MAX_RECENT_BLOCKHASHES) or the message uses a durable nonce.
    const { blockHeight } = this.bank(config?.commitment, config?.minContextSlot);
    const known = this.chain.isBlockhashValid(message.recentBlockhash, blockHeight, MAX_RECENT_BLOCKHASHES) || this.chain.durableNonce(message);
    return this.withCtx(config, known ? wire.fee(message) : null);
  }

  m_getBalance(pubkey, config) {
    const acct = this.chain.account(pubkeyParam(pubkey));
    return this.withCtx(config, acct ? acct.lamports() : 0n);
  }

  m_getAccountInfo(pubkey, config = {}) {
    return this.withCtx(config, this.encodeAt(pubkeyParam(pubkey), config));
  }

  m_getMultipleAccounts(pubkeys, config = {}) {
    if (!Array.isArray(pubkeys)) throw invalidParams('Invalid params: expected an array of pubkeys');
    if (pubkeys.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    const keys = pubkeys.map((p) => pubkeyParam(p));
    return this.withCtx(config, keys.map((k) => this.encodeAt(k, config)));
  }

  m_getProgramAccounts(program, config = {}) {
    const programId = bs58.decodePubkey(pubkeyParam(program));
    const out = [];
    const matches = compileFilters(config.filters);
    for (const { address, data } of this.chain.programIndex.accounts(programId)) {
      if (!matches(data)) continue;
      out.push({ pubkey: bs58.encode(address), account: this.encode(this.chain.svm.getAccount(address), config) });
    }
    return config.withContext ? this.withCtx(config, out) : out;
  }

  // m_getTokenAccountsByOwner reads the owner's accounts from the chain's
  // owner index, as a node with --account-index spl-token-owner does.
  m_getTokenAccountsByOwner(owner, filter, config = {}) {
    owner = pubkeyParam(owner, 'param: could not find account');
    const candidates = (program) => this.chain.owners.accounts(program, owner);
    return this.tokenAccountsBy(filter, config, (ta) => ta.owner === owner, candidates, owner);
  }

  m_getTokenAccountsByDelegate(delegate, filter, config = {}) {
    delegate = pubkeyParam(delegate);
    return this.tokenAccountsBy(filter, config, (ta) => ta.delegate === delegate);
  }

  // tokenAccountsBy answers the token accounts of filter's program (or mint)
  // that satisfy pred, among candidates(program) (addresses) when given, else
  // among every account of the program. With candidates, a programId filter
  // and the kept encoding, the answer's value is kept under answerKey (the
  // owner) until a transaction lands (AccountCache.answer).
  tokenAccountsBy(filter, config, pred, candidates, answerKey) {
    let programs;
    let mint = null;
    if (filter?.mint) {
      mint = pubkeyParam(filter.mint, 'param: could not find mint');
      const acct = this.chain.account(mint);
      if (!acct) throw invalidParams('Invalid param: could not find mint');
      programs = [bs58.encode(acct.owner())];
    } else if (filter?.programId) {
      const p = pubkeyParam(filter.programId, 'param: unrecognized Token program id');
      if (p !== TOKEN_PROGRAM && p !== TOKEN_2022_PROGRAM) throw invalidParams('Invalid param: unrecognized Token program id');
      programs = [p];
    } else {
      throw invalidParams('Invalid params: expected a mint or programId filter');
    }
    const value = [];
    const wanted = (ta) => ta && (!mint || ta.mint === mint) && pred(ta);
    // keyed: each candidate's element as the chain's encoded accounts keep
    // it (read, parsed and written once until a transaction changes it),
    // the answer's value then written as their joined text.
    const keyed = candidates && cachable(config) ? [] : null;
    const kept = keyed && !mint && answerKey ? `${programs[0]} ${answerKey}` : null;
    const text = kept && this.chain.accounts.answer(kept);
    if (text) return this.withCtx(config, new RawJSON(text));
    for (const program of programs) {
      if (candidates) {
        for (const pubkey of candidates(program)) {
          const entry = this.chain.accounts.entry(pubkey);
          if (!entry || entry.program !== program || !wanted(entry.token)) continue;
          if (keyed) keyed.push(this.chain.accounts.keyed(pubkey));
          else value.push({ pubkey, account: this.encodeAt(pubkey, config) });
        }
        continue;
      }
      for (const entry of this.chain.svm.getProgramAccounts(bs58.decodePubkey(program))) {
        const acct = entry.account();
        if (!acct || bs58.encode(acct.owner()) !== program) continue;
        if (!wanted(tokenAccount(Buffer.from(acct.data()), program))) continue;
        value.push({ pubkey: bs58.encode(entry.address), account: this.encode(acct, config) });
      }
    }
    if (keyed) {
      // Kept encoded: the answer is written without another copy.
      const joined = Buffer.from(`[${keyed.join(',')}]`);
      if (kept) this.chain.accounts.keepAnswer(kept, joined);
      return this.withCtx(config, new RawJSON(joined));
    }
    return this.withCtx(config, value);
  }

  m_getTokenAccountBalance(pubkey, config) {
    const acct = this.chain.account(pubkeyParam(pubkey));
    const program = acct && bs58.encode(acct.owner());
    const ta = acct && tokenAccount(Buffer.from(acct.data()), program);
    const decimals = ta && this.chain.decimalsOf(ta.mint);
    if (!ta || decimals === null) throw invalidParams('Invalid param: not a Token account');
    return this.withCtx(config, uiAmount(ta.amount, decimals));
  }

  m_getTokenSupply(pubkey, config) {
    const acct = this.chain.account(pubkeyParam(pubkey));
    const program = acct && bs58.encode(acct.owner());
    const data = acct && Buffer.from(acct.data());
    const isMint = data && (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) &&
      (data.length === 82 || (program === TOKEN_2022_PROGRAM && data.length > 165 && data[165] === 1)) && data[45] === 1;
    if (!isMint) throw invalidParams('Invalid param: not a Token mint');
    return this.withCtx(config, uiAmount(data.readBigUInt64LE(36), data[44]));
  }

  m_getMinimumBalanceForRentExemption(len) {
    return this.chain.svm.minimumBalanceForRentExemption(BigInt(len ?? 0));
  }

  m_getRecentPrioritizationFees(accounts = []) {
    if (accounts.length > 128) throw invalidParams('Too many inputs provided; max 128');
    return this.chain.recentPrioritizationFees(accounts.map((a) => pubkeyParam(a)));
  }

  m_requestAirdrop(pubkey, lamports) {
    pubkey = pubkeyParam(pubkey);
    if (!Number.isSafeInteger(lamports) || lamports <= 0) throw invalidParams('Invalid params: lamports');
    try {
      return this.chain.airdrop(pubkey, lamports).signature;
    } catch (e) {
      if (e instanceof TxFailure) throw new RpcError(-32603, `airdrop request failed: ${e.message}`);
      throw e;
    }
  }

  // sanitize refuses what a node refuses before preflight, skipped or not
  // (rpc.rs sanitize_transaction: "invalid transaction: <error>"): a key
  // listed twice, an instruction's index out of range, an address lookup
  // table that does not resolve.
  sanitize(tx) {
    const { message } = tx;
    const n = message.accountKeys.length;
    const fail = (err) => { throw invalidParams(`invalid transaction: ${errors.display(err)}`); };
    if (new Set(message.accountKeys).size !== n) fail('AccountLoadedTwice');
    const total = n + message.addressTableLookups.reduce((t, l) => t + l.writableIndexes.length + l.readonlyIndexes.length, 0);
    for (const ix of message.instructions) {
      if (ix.programIdIndex === 0 || ix.programIdIndex >= n || ix.accounts.some((i) => i >= total)) fail('SanitizeFailure');
    }
    try {
      this.chain.resolveAccounts(message);
    } catch (e) {
      if (!(e instanceof TxFailure)) throw e;
      fail(e.err);
    }
  }

  // m_sendTransaction answers as Agave 2.3's rpc_full::send_transaction:
  //  - decode (size limits) and sanitize, whatever the config: -32602;
  //  - skipPreflight false: signatures (-32003 "Transaction signature
  //    verification failure"), the node's health (-32005), then a simulation
  //    on the bank of preflightCommitment (finalized when absent): a failure
  //    is -32002 "Transaction simulation failed: <error>" with the
  //    simulation as data (data.err "BlockhashNotFound" for a blockhash that
  //    bank does not know or that is more than 144 blocks old there,
  //    "AlreadyProcessed" for a transaction its status cache holds, the
  //    program error otherwise);
  //  - then the signature, the transaction forwarded to the leader.
  // The leader here is this validator, which executes a transaction as it
  // receives it: it lands in the current block, or, refused before execution
  // (expired blockhash, already processed, bad signature, fee unpaid), is
  // dropped without a trace, as a leader drops it; the caller holds a
  // signature that never gets a status. So with skipPreflight a duplicate or
  // an expired transaction answers its signature and changes nothing.
  //
  // maxRetries (a usize) is how many times a node's send-transaction service
  // re-forwards the transaction until it expires (0: never; absent: the
  // node's default). Here the one forward always arrives and is executed at
  // once, so nothing is ever re-forwarded: every send behaves as maxRetries 0
  // whose single delivery succeeds. A test of lost sends puts a proxy in
  // front.
  //
  // A preflight bank older than the newest block cannot see a transaction
  // that landed after it; a node simulates the duplicate on that older state,
  // where it succeeds (or fails) exactly as it did when it landed. This
  // validator keeps no older state, so such a duplicate answers as its
  // landing did: its signature, or the -32002 of its error.
  m_sendTransaction(encoded, config = {}) {
    config = config ?? {};
    const tx = decodeTx(encoded, config.encoding);
    if (config.maxRetries !== undefined && config.maxRetries !== null && (!Number.isSafeInteger(config.maxRetries) || config.maxRetries < 0)) {
      throw invalidParams(`Invalid params: invalid value: ${JSON.stringify(config.maxRetries)}, expected usize.`);
    }
    const commitment = config.skipPreflight ? 'processed' : config.preflightCommitment;
    const bank = this.bank(commitment, config.minContextSlot);
    this.sanitize(tx);
    if (!config.skipPreflight) this.preflight(tx, commitment, bank.blockHeight);
    try {
      this.chain.run(tx.bytes, { tx });
    } catch (e) {
      if (!(e instanceof TxFailure)) throw e;
    }
    return bs58.encode(tx.signatures[0]);
  }

  preflight(tx, commitment, height) {
    if (!verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure');
    this.checkHealth();
    const fail = (err, logs = [], unitsConsumed = 0n, meta = null) => new RpcError(-32002, `Transaction simulation failed: ${errors.display(err)}`, {
      accounts: null, err, innerInstructions: null, loadedAccountsDataSize: 0,
      logs, replacementBlockhash: null, returnData: meta ? returnData(meta) : null, unitsConsumed,
    });
    if (!this.chain.ageOk(tx.message, height, PREFLIGHT_MAX_AGE)) throw fail('BlockhashNotFound');
    if (this.chain.alreadyProcessed(tx, height)) throw fail('AlreadyProcessed');
    const landed = this.chain.alreadyProcessed(tx);
    if (landed) {
      if (landed.err) throw fail(landed.err, landed.logs, landed.unitsConsumed, landed.meta);
      return;
    }
    let sim;
    try {
      sim = this.chain.run(tx.bytes, { tx, simulate: true, sigVerify: false, checkAge: false, commitment });
    } catch (e) {
      if (!(e instanceof TxFailure)) throw e;
      throw fail(e.err, e.meta ? e.meta.logs() : [], e.meta ? e.meta.computeUnitsConsumed() : 0n, e.meta);
    }
    if (sim.err) throw fail(sim.err, sim.logs, sim.unitsConsumed, sim.meta);
  }

  // m_simulateTransaction simulates on the bank of commitment (finalized
  // when absent), as rpc_full::simulate_transaction: its blockhash for
  // replaceRecentBlockhash, its age check (144 blocks) and status cache;
  // sigVerify's failure is -32003 as in preflight.
  m_simulateTransaction(encoded, config = {}) {
    config = config ?? {};
    const tx = decodeTx(encoded, config.encoding);
    this.bank(config.commitment, config.minContextSlot);
    if (config.sigVerify && config.replaceRecentBlockhash) {
      throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    }
    this.sanitize(tx);
    if (config.sigVerify && !verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure');
    let out;
    try {
      out = this.chain.run(tx.bytes, { tx, simulate: true, sigVerify: false, replaceRecentBlockhash: !!config.replaceRecentBlockhash, commitment: config.commitment });
    } catch (e) {
      if (!(e instanceof TxFailure)) throw e;
      return this.withCtx(config, {
        err: e.err, logs: [], accounts: null, unitsConsumed: 0, returnData: null,
        innerInstructions: null, replacementBlockhash: null, loadedAccountsDataSize: 0,
      });
    }
    let accounts = null;
    if (config.accounts) {
      const wanted = config.accounts.addresses ?? [];
      const post = new Map();
      for (const aa of out.postAccounts ?? []) post.set(bs58.encode(aa.address), aa.account());
      accounts = wanted.map((a) => {
        a = pubkeyParam(a);
        const acct = post.has(a) ? post.get(a) : this.chain.account(a);
        return this.encode(acct, { encoding: config.accounts.encoding ?? 'base64' });
      });
    }
    return this.withCtx(config, {
      err: out.err,
      logs: out.logs,
      accounts,
      unitsConsumed: out.unitsConsumed,
      returnData: returnData(out.meta),
      innerInstructions: config.innerInstructions ? innerInstructions(out.meta) : null,
      replacementBlockhash: out.replacement,
      loadedAccountsDataSize: 0,
      fee: out.fee,
    });
  }

  // m_getVoteAccounts lists the vote accounts with their stake active in the
  // current epoch (delegations' effective stake, with StakeHistory). The
  // genesis validator's account votes (current); any other, whose node
  // never votes here, is delinquent and, without stake, left out unless
  // keepUnstakedDelinquents (JsonRpcRequestProcessor::get_vote_accounts).
  m_getVoteAccounts(config = {}) {
    config = config ?? {};
    const block = this.bank(config.commitment, config.minContextSlot);
    const epoch = BigInt(this.chain.epoch(block.slot));
    const activated = new Map();
    for (const entry of this.chain.svm.getProgramAccounts(bs58.decodePubkey(stake.STAKE_PROGRAM))) {
      const d = stake.parseStake(Buffer.from(entry.account().data()))?.delegation;
      if (!d) continue;
      const { effective } = stake.delegationStatus(d, epoch, this.chain.stakeHistory);
      activated.set(d.voter, (activated.get(d.voter) ?? 0n) + effective);
    }
    const current = [];
    const delinquent = [];
    for (const entry of this.chain.svm.getProgramAccounts(bs58.decodePubkey(stake.VOTE_PROGRAM))) {
      const votePubkey = bs58.encode(entry.address);
      if (config.votePubkey !== undefined && config.votePubkey !== votePubkey) continue;
      const data = Buffer.from(entry.account().data());
      if (data.length < 133) continue;
      const version = data.readUInt32LE(0); // VoteStateVersions: 1 V1_14_11, 2 V3, 3 V4
      const activatedStake = activated.get(votePubkey) ?? 0n;
      const voting = votePubkey === this.chain.voteAccount;
      const account = {
        votePubkey,
        nodePubkey: bs58.encode(data.subarray(4, 36)),
        activatedStake,
        epochVoteAccount: activatedStake > 0n,
        commission: version === 3 ? Math.floor(data.readUInt16LE(132) / 100) : data[68],
        lastVote: voting ? this.chain.slot : 0,
        epochCredits: [],
        rootSlot: voting ? this.chain.block('finalized').slot : 0,
      };
      if (voting) current.push(account);
      else if (activatedStake > 0n || config.keepUnstakedDelinquents) delinquent.push(account);
    }
    return { current, delinquent };
  }

  // Test-only methods (validator_*), each taking one object by position
  // ([{...}]) or by name ({...}); a real cluster has none of them.

  // m_validator_setRent sets the Rent sysvar's lamports per byte, as a
  // SIMD-0437 step does: {"lamportsPerByteYear": N} (since SIMD-0194 the
  // field holds 6,960, twice the historical 3,480, with an exemption
  // threshold of 1.0; SIMD-0437 steps it down toward 696). Accounts keep their lamports;
  // getMinimumBalanceForRentExemption, the SysvarRent account and every
  // program (Token-2022's WithdrawExcessLamports, the System program's
  // rent-state checks) see the new value at once. Answers the new Rent.
  m_validator_setRent(params) {
    const n = integerParam(configParam(params, ['lamportsPerByteYear']), 'lamportsPerByteYear', 1, Number.MAX_SAFE_INTEGER);
    const rent = this.chain.setRent(n);
    return { lamportsPerByteYear: rent.lamportsPerByteYear, exemptionThreshold: rent.exemptionThreshold, burnPercent: rent.burnPercent };
  }

  // m_validator_warpSlot moves the cluster to a later slot in one block, a
  // root at once (Chain.warpTo): {"slot": N}. Answers getEpochInfo.
  m_validator_warpSlot(params) {
    const slot = integerParam(configParam(params, ['slot']), 'slot', this.chain.slot + 1, Number.MAX_SAFE_INTEGER);
    this.chain.warpTo(slot);
    return this.m_getEpochInfo({ commitment: 'processed' });
  }

  // m_validator_warpEpochs moves the cluster to the first slot of the
  // epoch N epochs on: {"epochs": N} (1 to 512). Each epoch passed gets its
  // StakeHistory entry, so a stake deactivated in epoch E is withdrawable
  // whole from epoch E+1 (its 9% cooldown of the 1,000,000 SOL bootstrap
  // stake covers any test's stake). Answers getEpochInfo.
  m_validator_warpEpochs(params) {
    const epochs = integerParam(configParam(params, ['epochs']), 'epochs', 1, MAX_WARP_EPOCHS);
    this.chain.warpTo((this.chain.epoch() + epochs) * SLOTS_PER_EPOCH);
    return this.m_getEpochInfo({ commitment: 'processed' });
  }

  // m_validator_setHealth sets what the node's health check says:
  // {"status": "ok"} | {"status": "unknown"} | {"status": "behind",
  // "numSlotsBehind": N}. Unhealthy, getHealth and a preflight sendTransaction
  // answer -32005 ("Node is unhealthy", "Node is behind by N slots", data
  // {"numSlotsBehind": N|null}) and GET /health its word; everything else
  // answers as before. Answers the health set.
  m_validator_setHealth(params) {
    const config = configParam(params, ['status', 'numSlotsBehind']);
    if (!HEALTH.includes(config.status)) throw invalidParams(`Invalid params: \`status\` must be one of ${HEALTH.map((h) => `"${h}"`).join(', ')}`);
    const behind = config.status === 'behind';
    if (behind !== (config.numSlotsBehind !== undefined)) throw invalidParams('Invalid params: `numSlotsBehind` is given with, and only with, "behind"');
    this.health = { status: config.status, numSlotsBehind: behind ? integerParam(config, 'numSlotsBehind', 1, Number.MAX_SAFE_INTEGER) : null };
    return this.health;
  }

  status(rec) {
    const confirmationStatus = this.chain.commitmentOf(rec);
    return {
      slot: rec.slot,
      confirmations: confirmationStatus === 'finalized' ? null : this.chain.blockHeight - rec.blockHeight,
      err: rec.err,
      status: rec.err ? { Err: rec.err } : { Ok: null },
      confirmationStatus,
    };
  }

  // m_getSignatureStatuses answers from the processed bank's status cache,
  // which holds a transaction while its blockhash's newest use is among the
  // last 300 roots (about 2 minutes after its blockhash expires); with
  // searchTransactionHistory, a transaction no longer there is read from
  // the ledger, finalized, confirmations null (JsonRpcRequestProcessor::
  // get_signature_statuses). A transaction that never landed (dropped,
  // unknown) is null either way.
  m_getSignatureStatuses(signatures, config) {
    if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
    if (signatures.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    signatures.forEach(signatureParam);
    const history = !!config?.searchTransactionHistory;
    return this.withCtx({ commitment: 'processed' }, signatures.map((s) => {
      const rec = this.chain.txs.get(s);
      if (!rec) return null;
      if (this.chain.inStatusCache(rec)) return this.status(rec);
      if (history && this.chain.commitmentOf(rec) === 'finalized') return this.status(rec);
      return null;
    }));
  }

  m_getSignaturesForAddress(address, config = {}) {
    address = pubkeyParam(address);
    const limit = Math.min(config.limit ?? 1000, 1000);
    const out = [];
    const recs = [...this.chain.txs.values()].reverse();
    let started = !config.before;
    for (const rec of recs) {
      if (!started) { started = rec.signature === config.before; continue; }
      if (config.until && rec.signature === config.until) break;
      if (!this.chain.reaches(rec, config.commitment)) continue;
      if (!rec.keys.some((k) => k.pubkey === address)) continue;
      out.push({ signature: rec.signature, slot: rec.slot, err: rec.err, memo: null, blockTime: rec.blockTime, confirmationStatus: this.chain.commitmentOf(rec) });
      if (out.length >= limit) break;
    }
    return out;
  }

  // m_getTransaction: null for a signature the ledger does not hold (never
  // landed: dropped by the leader, or unknown) or not yet at the commitment
  // asked (confirmed or finalized; processed is refused).
  m_getTransaction(signature, config = {}) {
    signatureParam(signature);
    config = config ?? {};
    if (typeof config === 'string') config = { encoding: config };
    if (config.commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    const rec = this.chain.txs.get(signature);
    if (!rec || !this.chain.reaches(rec, config.commitment)) return null;
    const { message } = rec.tx;
    if (message.version !== 'legacy') {
      if (config.maxSupportedTransactionVersion === undefined || config.maxSupportedTransactionVersion < message.version) {
        throw new RpcError(-32015, `Transaction version (${message.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${message.version}`);
      }
    }
    const encoding = config.encoding ?? 'json';
    let transaction;
    if (encoding === 'base64') transaction = [Buffer.from(rec.bytes).toString('base64'), 'base64'];
    else if (encoding === 'base58') transaction = [bs58.encode(rec.bytes), 'base58'];
    else if (encoding === 'json' || encoding === 'jsonParsed') {
      transaction = {
        signatures: rec.tx.signatures.map((s) => bs58.encode(s)),
        message: uiMessage(message, rec.keys, encoding),
      };
    } else throw invalidParams(`Invalid param: unknown encoding ${encoding}`);
    const meta = {
      err: rec.err,
      status: rec.err ? { Err: rec.err } : { Ok: null },
      fee: rec.fee,
      preBalances: rec.preBalances,
      postBalances: rec.postBalances,
      innerInstructions: innerInstructions(rec.meta),
      logMessages: rec.logs,
      preTokenBalances: rec.preTokenBalances,
      postTokenBalances: rec.postTokenBalances,
      rewards: [],
      loadedAddresses: rec.loaded,
      computeUnitsConsumed: rec.unitsConsumed,
    };
    const rd = returnData(rec.meta);
    if (rd) meta.returnData = rd;
    const out = { slot: rec.slot, blockTime: rec.blockTime, meta, transaction };
    if (config.maxSupportedTransactionVersion !== undefined) out.version = message.version;
    return out;
  }
}

module.exports = { Rpc, VERSION, signatureParam };
