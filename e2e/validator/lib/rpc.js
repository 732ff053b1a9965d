'use strict';
// The JSON-RPC methods, shaped as an Agave node answers them.

const bs58 = require('./base58');
const wire = require('./wire');
const errors = require('./errors');
const { TxFailure } = require('./chain');
const { RpcError, invalidParams, encodeAccount, tokenAccount, uiAmount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');
const { cachable } = require('./accountcache');

const VERSION = { 'solana-core': '2.3.13', 'feature-set': 3294202862 };
const API_VERSION = VERSION['solana-core'];
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;

function pubkeyParam(v, what = 'pubkey') {
  try {
    return bs58.encode(bs58.decodePubkey(v));
  } catch {
    throw invalidParams(`Invalid param: Invalid ${what}`);
  }
}

function decodeTx(encoded, encoding = 'base58') {
  if (typeof encoded !== 'string') throw invalidParams('Invalid params: invalid type: expected a string.');
  let bytes;
  try {
    if (encoding === 'base58') bytes = bs58.decode(encoded);
    else if (encoding === 'base64') bytes = Buffer.from(encoded, 'base64');
    else throw invalidParams(`unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw invalidParams(`invalid ${encoding} encoding: ${e.message}`);
  }
  try {
    wire.parseTransaction(bytes);
  } catch (e) {
    throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${e.message}`);
  }
  return bytes;
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

class Rpc {
  constructor(chain) {
    this.chain = chain;
  }

  ctx(commitment, minContextSlot) {
    const block = this.chain.block(commitment);
    if (minContextSlot !== undefined && minContextSlot > this.chain.slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: this.chain.slot });
    }
    return { slot: commitment === 'processed' ? this.chain.slot : block.slot, apiVersion: API_VERSION };
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
    if (params !== undefined && !Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
    return fn.apply(this, params ?? []);
  }

  m_getHealth() { return 'ok'; }
  m_getVersion() { return VERSION; }
  m_getGenesisHash() { return this.chain.blocks[0].blockhash; }
  m_getIdentity() { return { identity: bs58.encode(this.chain.faucet.pubkey) }; }
  m_getFirstAvailableBlock() { return 0; }
  m_minimumLedgerSlot() { return 0; }
  m_getSlot(config) { return this.ctx(config?.commitment, config?.minContextSlot).slot; }
  m_getBlockHeight(config) {
    this.ctx(config?.commitment, config?.minContextSlot);
    return config?.commitment === 'processed' ? this.chain.blockHeight : this.chain.block(config?.commitment).blockHeight;
  }
  m_getTransactionCount() { return this.chain.transactionCount; }

  m_getEpochInfo(config) {
    const slot = this.m_getSlot(config);
    const slotsInEpoch = Number(this.chain.svm.getEpochSchedule().slotsPerEpoch);
    return {
      absoluteSlot: slot,
      blockHeight: this.m_getBlockHeight(config),
      epoch: Math.floor(slot / slotsInEpoch),
      slotIndex: slot % slotsInEpoch,
      slotsInEpoch,
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

  m_getLatestBlockhash(config) {
    const commitment = config?.commitment;
    const block = commitment === 'processed' ? this.chain.blocks[this.chain.blockHeight] : this.chain.block(commitment);
    return this.withCtx(config, { blockhash: block.blockhash, lastValidBlockHeight: this.chain.lastValidBlockHeight(block.blockhash) });
  }

  m_isBlockhashValid(blockhash, config) {
    return this.withCtx(config, this.chain.isBlockhashValid(blockhash));
  }

  m_getFeeForMessage(encoded, config) {
    let message;
    try {
      message = wire.parseMessage(Buffer.from(encoded, 'base64'));
    } catch (e) {
      throw invalidParams(`invalid message: ${e.message}`);
    }
    const fee = this.chain.isBlockhashValid(message.recentBlockhash) ? wire.fee(message) : null;
    return this.withCtx(config, fee);
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
    const filters = config.filters ?? [];
    const matches = (data) => filters.every((f) => {
      if (f.dataSize !== undefined) return data.length === f.dataSize;
      if (f.memcmp) {
        const enc = f.memcmp.encoding ?? 'base58';
        const bytes = enc === 'base64' ? Buffer.from(f.memcmp.bytes, 'base64') : bs58.decode(f.memcmp.bytes);
        const off = f.memcmp.offset;
        return off + bytes.length <= data.length && data.subarray(off, off + bytes.length).equals(bytes);
      }
      if (f.tokenAccountState !== undefined) return data.length >= 165;
      throw invalidParams('Invalid param: unsupported filter');
    });
    const out = [];
    for (const entry of this.chain.svm.getProgramAccounts(programId)) {
      const acct = entry.account();
      if (!matches(Buffer.from(acct.data()))) continue;
      out.push({ pubkey: bs58.encode(entry.address), account: this.encode(acct, config) });
    }
    return config.withContext ? this.withCtx(config, out) : out;
  }

  // m_getTokenAccountsByOwner reads the owner's accounts from the chain's
  // owner index, as a node with --account-index spl-token-owner does.
  m_getTokenAccountsByOwner(owner, filter, config = {}) {
    owner = pubkeyParam(owner, 'param: could not find account');
    const candidates = (program) => this.chain.owners.accounts(program, owner);
    return this.tokenAccountsBy(filter, config, (ta) => ta.owner === owner, candidates);
  }

  m_getTokenAccountsByDelegate(delegate, filter, config = {}) {
    delegate = pubkeyParam(delegate);
    return this.tokenAccountsBy(filter, config, (ta) => ta.delegate === delegate);
  }

  // tokenAccountsBy answers the token accounts of filter's program (or mint)
  // that satisfy pred, among candidates(program) (addresses) when given, else
  // among every account of the program.
  tokenAccountsBy(filter, config, pred, candidates) {
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
    for (const program of programs) {
      if (candidates) {
        // Each candidate as the chain's encoded accounts keep it: read and
        // parsed once until a transaction changes it.
        for (const address of candidates(program)) {
          const pubkey = bs58.encode(address);
          const entry = this.chain.accounts.entry(pubkey);
          if (!entry || entry.program !== program || !wanted(entry.token)) continue;
          value.push({ pubkey, account: this.encodeAt(pubkey, config) });
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

  m_sendTransaction(encoded, config = {}) {
    const bytes = decodeTx(encoded, config.encoding);
    this.ctx(config.preflightCommitment, config.minContextSlot);
    const signature = bs58.encode(wire.parseTransaction(bytes).signatures[0]);
    if (this.chain.txs.has(signature)) return signature; // a duplicate is dropped, as a leader does
    if (!config.skipPreflight) {
      let sim;
      try {
        sim = this.chain.run(bytes, { simulate: true, sigVerify: true });
      } catch (e) {
        if (!(e instanceof TxFailure)) throw e;
        sim = { err: e.err, logs: e.meta ? e.meta.logs() : [], unitsConsumed: e.meta ? e.meta.computeUnitsConsumed() : 0n, meta: e.meta };
      }
      if (sim.err === 'SignatureFailure') throw new RpcError(-32003, 'Transaction signature verification failure');
      if (sim.err) {
        throw new RpcError(-32002, `Transaction simulation failed: ${errors.display(sim.err)}`, {
          accounts: null, err: sim.err, innerInstructions: null, loadedAccountsDataSize: 0,
          logs: sim.logs, replacementBlockhash: null, returnData: sim.meta ? returnData(sim.meta) : null,
          unitsConsumed: sim.unitsConsumed,
        });
      }
    }
    try {
      this.chain.run(bytes);
    } catch (e) {
      if (!(e instanceof TxFailure)) throw e;
      // Refused before execution: a real leader drops it; the client sees a signature
      // that never lands.
    }
    return signature;
  }

  m_simulateTransaction(encoded, config = {}) {
    const bytes = decodeTx(encoded, config.encoding);
    if (config.sigVerify && config.replaceRecentBlockhash) {
      throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    }
    let out;
    try {
      out = this.chain.run(bytes, { simulate: true, sigVerify: !!config.sigVerify, replaceRecentBlockhash: !!config.replaceRecentBlockhash });
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

  status(rec) {
    const confirmationStatus = this.chain.commitmentOf(rec);
    return {
      slot: rec.slot,
      confirmations: confirmationStatus === 'finalized' ? null : this.chain.slot - rec.slot,
      err: rec.err,
      status: rec.err ? { Err: rec.err } : { Ok: null },
      confirmationStatus,
    };
  }

  m_getSignatureStatuses(signatures, config) {
    if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
    if (signatures.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    return this.withCtx({ commitment: 'processed' }, signatures.map((s) => {
      const rec = this.chain.txs.get(s);
      return rec ? this.status(rec) : null;
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

  m_getTransaction(signature, config = {}) {
    if (typeof config === 'string') config = { encoding: config };
    if (config.commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    const rec = this.chain.txs.get(signature);
    if (!rec || !this.chain.reaches(rec, config.commitment)) return null;
    const { message } = rec.tx;
    if (message.version !== 'legacy') {
      if (config.maxSupportedTransactionVersion === undefined || config.maxSupportedTransactionVersion < message.version) {
        throw new RpcError(-32015, `Transaction version (${message.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0`);
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

module.exports = { Rpc, VERSION };
