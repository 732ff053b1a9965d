'use strict';
// Solana transaction wire format (legacy and v0): parsing, the fee a message pays, and
// the small rewrites the RPC needs (replacing the recent blockhash).

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
const SIGNATURE_PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  need(n) { if (this.pos + n > this.buf.length) throw new Error('transaction too short'); }
  u8() { this.need(1); return this.buf[this.pos++]; }
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

// parseMessage parses a serialized message (legacy or versioned).
function parseMessage(buf) {
  const r = new Reader(buf);
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

// parseTransaction parses a serialized transaction; message.bytes are the signed bytes.
function parseTransaction(buf) {
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
    messageBytes: bytes.subarray(tx.messageOffset),
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
function computeBudget(message) {
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
  const { limit, price } = computeBudget(message);
  const priority = (price * limit + 999_999n) / 1_000_000n;
  return sigs * LAMPORTS_PER_SIGNATURE + priority;
}

module.exports = {
  parseMessage, parseTransaction, withBlockhash, reparsed, isWritableStatic, computeBudget, fee,
  encodeShortvec, LAMPORTS_PER_SIGNATURE,
};
