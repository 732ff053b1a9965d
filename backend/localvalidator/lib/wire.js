'use strict';
// Solana transaction wire format (legacy, v0 and v1): parsing, the fee a message pays,
// and the small rewrites the RPC needs (replacing the recent blockhash).
//
// A v1 transaction (SIMD-0385, with SIMD-0296's 4,096 bytes) is its message
// first, then its signatures, one per required signer and no count byte:
//   0x81 | header (3 bytes) | config mask u32 | lifetime (32) | #instructions u8
//   | #addresses u8 | addresses (32 each) | config values, in bit order
//   (bits 0 and 1 together: total priority fee u64; bit 2: compute-unit limit
//   u32; bit 3: loaded-data limit u32; bit 4: heap size u32) | instruction
//   headers (program index u8, #accounts u8, #data bytes u16) | their account
//   indexes and data, in order | signatures (64 each).
// All integers are little-endian. The parser refuses what LiteSVM 1.5.0 must
// not see (its native code panics on one lone fee bit and it does not check
// the limits): unassigned mask bits, a lone fee bit, more than 64 addresses
// or instructions, a truncated message, bytes after the signatures.

const bs58 = require('./base58');

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000n;
const BUILTINS = new Set([
  '11111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
const V1_PREFIX = 0x81;
const V1_MAX_ADDRESSES = 64;
const V1_MAX_INSTRUCTIONS = 64;
const V1_MAX_SIGNATURES = 12;
const V1_MASK_PRIORITY_FEE = 0b11;
const V1_MASK_KNOWN = 0b11111;
const SIGNATURE_PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  need(n) { if (this.pos + n > this.buf.length) throw new Error('transaction too short'); }
  u8() { this.need(1); return this.buf[this.pos++]; }
  u16() { this.need(2); const v = this.buf.readUInt16LE(this.pos); this.pos += 2; return v; }
  u32() { this.need(4); const v = this.buf.readUInt32LE(this.pos); this.pos += 4; return v; }
  u64() { this.need(8); const v = this.buf.readBigUInt64LE(this.pos); this.pos += 8; return v; }
  bytes(n) { this.need(n); const b = this.buf.subarray(this.pos, this.pos + n); this.pos += n; return b; }
  shortvec() {
    let len = 0;
    for (let size = 0; ; size++) {
      const b = this.u8();
      len |= (b & 0x7f) << (size * 7);
      if ((b & 0x80) === 0) return len;
      if (size >= 2) throw new Error('invalid compact-u16');
    }
  }
}

function encodeShortvec(n) {
  const out = [];
  for (;;) {
    let b = n & 0x7f;
    n >>= 7;
    if (n === 0) { out.push(b); return Buffer.from(out); }
    out.push(b | 0x80);
  }
}

// readV1Message reads a v1 message from r (at its version byte) and leaves
// r after it; config holds the mask and the values it carries (bigints).
function readV1Message(r) {
  r.u8();
  const header = {
    numRequiredSignatures: r.u8(),
    numReadonlySignedAccounts: r.u8(),
    numReadonlyUnsignedAccounts: r.u8(),
  };
  const mask = r.u32();
  if (mask & ~V1_MASK_KNOWN) throw new Error(`invalid config mask 0x${mask.toString(16)}: bits above 4 are unassigned`);
  const fee = mask & V1_MASK_PRIORITY_FEE;
  if (fee !== 0 && fee !== V1_MASK_PRIORITY_FEE) throw new Error(`invalid config mask 0x${mask.toString(16)}: the priority fee takes bits 0 and 1 together`);
  const blockhashOffset = r.pos;
  const recentBlockhash = bs58.encode(r.bytes(32));
  const nIx = r.u8();
  const nKeys = r.u8();
  if (nIx > V1_MAX_INSTRUCTIONS) throw new Error(`too many instructions: ${nIx} (max: ${V1_MAX_INSTRUCTIONS})`);
  if (nKeys > V1_MAX_ADDRESSES) throw new Error(`too many addresses: ${nKeys} (max: ${V1_MAX_ADDRESSES})`);
  const { numRequiredSignatures: nSigs, numReadonlySignedAccounts: roSigned, numReadonlyUnsignedAccounts: roUnsigned } = header;
  if (nSigs === 0 || nSigs > V1_MAX_SIGNATURES) throw new Error(`invalid header: ${nSigs} required signatures (1 to ${V1_MAX_SIGNATURES})`);
  if (nSigs > nKeys || roSigned >= nSigs || roUnsigned > nKeys - nSigs) throw new Error('invalid header: it does not fit the addresses');
  const accountKeys = [];
  for (let i = 0; i < nKeys; i++) accountKeys.push(bs58.encode(r.bytes(32)));
  const config = { mask };
  if (fee) config.priorityFee = r.u64();
  if (mask & 0b100) config.computeUnitLimit = BigInt(r.u32());
  if (mask & 0b1000) config.loadedAccountsDataSizeLimit = BigInt(r.u32());
  if (mask & 0b10000) config.heapSize = BigInt(r.u32());
  const heads = [];
  for (let i = 0; i < nIx; i++) heads.push({ programIdIndex: r.u8(), nAccounts: r.u8(), nData: r.u16() });
  const instructions = heads.map(({ programIdIndex, nAccounts, nData }) => ({
    programIdIndex, accounts: [...r.bytes(nAccounts)], data: Buffer.from(r.bytes(nData)),
  }));
  return { version: 1, header, config, accountKeys, recentBlockhash, blockhashOffset, instructions, addressTableLookups: [] };
}

// parseMessage parses a serialized message (legacy or versioned).
function parseMessage(buf) {
  const r = new Reader(buf);
  if (buf[0] === V1_PREFIX) {
    const message = readV1Message(r);
    if (r.pos !== buf.length) throw new Error('trailing bytes after message');
    return message;
  }
  let version = 'legacy';
  if (buf.length > 0 && (buf[0] & 0x80)) {
    version = r.u8() & 0x7f;
    if (version !== 0) throw new Error(`unsupported transaction version ${version}`);
  }
  const header = {
    numRequiredSignatures: r.u8(),
    numReadonlySignedAccounts: r.u8(),
    numReadonlyUnsignedAccounts: r.u8(),
  };
  const nKeys = r.shortvec();
  const accountKeys = [];
  for (let i = 0; i < nKeys; i++) accountKeys.push(bs58.encode(r.bytes(32)));
  const blockhashOffset = r.pos;
  const recentBlockhash = bs58.encode(r.bytes(32));
  const nIx = r.shortvec();
  const instructions = [];
  for (let i = 0; i < nIx; i++) {
    const programIdIndex = r.u8();
    const accounts = [...r.bytes(r.shortvec())];
    const data = Buffer.from(r.bytes(r.shortvec()));
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups = [];
  if (version !== 'legacy') {
    const nLookups = r.shortvec();
    for (let i = 0; i < nLookups; i++) {
      const accountKey = bs58.encode(r.bytes(32));
      const writableIndexes = [...r.bytes(r.shortvec())];
      const readonlyIndexes = [...r.bytes(r.shortvec())];
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (r.pos !== buf.length) throw new Error('trailing bytes after message');
  if (header.numRequiredSignatures > nKeys) throw new Error('header requires more signatures than keys');
  return { version, header, accountKeys, recentBlockhash, blockhashOffset, instructions, addressTableLookups };
}

// parseV1Transaction parses a v1 transaction: its message, then its signatures.
function parseV1Transaction(buf) {
  const r = new Reader(buf);
  const message = readV1Message(r);
  const messageBytes = buf.subarray(0, r.pos);
  const signatures = [];
  for (let i = 0; i < message.header.numRequiredSignatures; i++) signatures.push(Buffer.from(r.bytes(64)));
  if (r.pos !== buf.length) throw new Error(`${buf.length - r.pos} trailing bytes after the signatures`);
  return { signatures, message, messageOffset: 0, messageBytes, bytes: buf };
}

// isV1 tells whether serialized transaction bytes are a v1 transaction (a
// legacy or v0 one opens with its signature count, below 128).
function isV1(buf) { return buf.length > 0 && buf[0] === V1_PREFIX; }

// parseTransaction parses a serialized transaction; messageBytes are the signed bytes.
function parseTransaction(buf) {
  if (isV1(buf)) return parseV1Transaction(buf);
  const r = new Reader(buf);
  const nSigs = r.shortvec();
  const signatures = [];
  for (let i = 0; i < nSigs; i++) signatures.push(Buffer.from(r.bytes(64)));
  const messageOffset = r.pos;
  const messageBytes = buf.subarray(messageOffset);
  const message = parseMessage(messageBytes);
  if (nSigs !== message.header.numRequiredSignatures) {
    throw new Error(`${nSigs} signatures for ${message.header.numRequiredSignatures} required signers`);
  }
  return { signatures, message, messageOffset, messageBytes, bytes: buf };
}

// withBlockhash returns a copy of a serialized transaction with its recent blockhash replaced.
function withBlockhash(tx, blockhash) {
  const out = Buffer.from(tx.bytes);
  bs58.decodePubkey(blockhash).copy(out, tx.messageOffset + tx.message.blockhashOffset);
  return out;
}

// reparsed is what parseTransaction gives for bytes, a copy of tx's with its
// recent blockhash replaced (withBlockhash), without parsing them again.
function reparsed(tx, bytes, blockhash) {
  return {
    ...tx,
    bytes,
    messageBytes: bytes.subarray(tx.messageOffset, tx.messageOffset + tx.messageBytes.length),
    message: { ...tx.message, recentBlockhash: blockhash },
  };
}

// isWritableStatic tells whether static account key i is writable by the header.
function isWritableStatic(message, i) {
  const h = message.header;
  const n = message.accountKeys.length;
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < n - h.numReadonlyUnsignedAccounts;
}

// computeBudget reads the compute-budget instructions of a message the way the runtime does.
// A v1 message says its limit and total priority fee in its config (its
// compute-budget instructions are no-ops); its price is that fee per
// million compute units of its limit, for the prioritization-fee cache.
function computeBudget(message) {
  if (message.version === 1) {
    const limit = message.config.computeUnitLimit ?? 0n;
    const total = message.config.priorityFee ?? 0n;
    return { limit, price: limit > 0n ? (total * 1_000_000n) / limit : 0n, total };
  }
  let limit = null;
  let price = 0n;
  let builtin = 0n;
  let nonBuiltin = 0n;
  for (const ix of message.instructions) {
    const program = message.accountKeys[ix.programIdIndex];
    if (program === COMPUTE_BUDGET) {
      builtin++;
      const d = ix.data;
      if (d[0] === 2 && d.length >= 5) limit = BigInt(d.readUInt32LE(1));
      else if (d[0] === 3 && d.length >= 9) price = d.readBigUInt64LE(1);
    } else if (BUILTINS.has(program)) {
      builtin++;
    } else {
      nonBuiltin++;
    }
  }
  if (limit === null) {
    limit = nonBuiltin * DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT + builtin * MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT;
  }
  if (limit > MAX_COMPUTE_UNIT_LIMIT) limit = MAX_COMPUTE_UNIT_LIMIT;
  return { limit, price };
}

// fee is what the fee payer pays: 5000 lamports per signature (precompile signatures
// included) plus the prioritization fee ceil(price * limit / 1e6).
function fee(message) {
  let sigs = BigInt(message.header.numRequiredSignatures);
  for (const ix of message.instructions) {
    if (SIGNATURE_PRECOMPILES.has(message.accountKeys[ix.programIdIndex]) && ix.data.length > 0) {
      sigs += BigInt(ix.data[0]);
    }
  }
  const { limit, price, total } = computeBudget(message);
  const priority = total ?? (price * limit + 999_999n) / 1_000_000n;
  return sigs * LAMPORTS_PER_SIGNATURE + priority;
}

module.exports = {
  parseMessage, parseTransaction, isV1, withBlockhash, reparsed, isWritableStatic, computeBudget, fee,
  encodeShortvec, LAMPORTS_PER_SIGNATURE, V1_PREFIX, V1_MAX_ADDRESSES,
};
