'use strict';
// Account encodings as the RPC returns them: base58 ("binary" legacy and "base58"),
// base64, base64+zstd is refused, and jsonParsed for SPL Token and Token-2022 accounts
// and mints (anything else falls back to base64, as a real node does).

const bs58 = require('./base58');

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const NATIVE_MINTS = new Set([
  'So11111111111111111111111111111111111111112',
  '9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP',
]);
const U64_MAX = 18446744073709551615n;

class RpcError extends Error {
  constructor(code, message, data) { super(message); this.code = code; this.data = data; }
}

function invalidParams(msg) { return new RpcError(-32602, msg); }

function uiAmount(amount, decimals) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = decimals > 0 ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function optionPubkey(buf, off) {
  // COption<Pubkey>: u32 tag then 32 bytes.
  return buf.readUInt32LE(off) === 1 ? bs58.encode(buf.subarray(off + 4, off + 36)) : null;
}

function optionNonZeroPubkey(buf) {
  return buf.every((b) => b === 0) ? null : bs58.encode(buf);
}

function parseTlv(data) {
  const out = [];
  let off = 166;
  while (off + 4 <= data.length) {
    const type = data.readUInt16LE(off);
    const len = data.readUInt16LE(off + 2);
    if (type === 0) break;
    out.push({ type, value: data.subarray(off + 4, off + 4 + len) });
    off += 4 + len;
  }
  return out;
}

function transferFee(v, off) {
  return {
    epoch: Number(v.readBigUInt64LE(off)),
    maximumFee: Number(v.readBigUInt64LE(off + 8)),
    transferFeeBasisPoints: v.readUInt16LE(off + 16),
  };
}

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'];

function parseExtension({ type, value: v }) {
  switch (type) {
    case 1: return {
      extension: 'transferFeeConfig',
      state: {
        transferFeeConfigAuthority: optionNonZeroPubkey(v.subarray(0, 32)),
        withdrawWithheldAuthority: optionNonZeroPubkey(v.subarray(32, 64)),
        withheldAmount: Number(v.readBigUInt64LE(64)),
        olderTransferFee: transferFee(v, 72),
        newerTransferFee: transferFee(v, 90),
      },
    };
    case 2: return { extension: 'transferFeeAmount', state: { withheldAmount: Number(v.readBigUInt64LE(0)) } };
    case 3: return { extension: 'mintCloseAuthority', state: { closeAuthority: optionNonZeroPubkey(v.subarray(0, 32)) } };
    case 6: return { extension: 'defaultAccountState', state: { accountState: ACCOUNT_STATES[v[0]] } };
    case 7: return { extension: 'immutableOwner' };
    case 8: return { extension: 'memoTransfer', state: { requireIncomingTransferMemos: v[0] === 1 } };
    case 9: return { extension: 'nonTransferable' };
    case 11: return { extension: 'cpiGuard', state: { lockCpi: v[0] === 1 } };
    case 12: return { extension: 'permanentDelegate', state: { delegate: optionNonZeroPubkey(v.subarray(0, 32)) } };
    case 13: return { extension: 'nonTransferableAccount' };
    case 15: return { extension: 'transferHookAccount', state: { transferring: v[0] === 1 } };
    case 18: return {
      extension: 'metadataPointer',
      state: { authority: optionNonZeroPubkey(v.subarray(0, 32)), metadataAddress: optionNonZeroPubkey(v.subarray(32, 64)) },
    };
    default: return { extension: 'unparseableExtension' };
  }
}

function parseMint(data, program) {
  if (data.length < 82 || data[45] !== 1) return null;
  const info = {
    decimals: data[44],
    freezeAuthority: optionPubkey(data, 46),
    isInitialized: true,
    mintAuthority: optionPubkey(data, 0),
    supply: data.readBigUInt64LE(36).toString(),
  };
  if (program === TOKEN_2022_PROGRAM && data.length > 165) info.extensions = parseTlv(data).map(parseExtension);
  return { type: 'mint', info };
}

// tokenAccount decodes the fields of a token account (either program), or null.
function tokenAccount(data, program) {
  if (data.length < 165) return null;
  if (program === TOKEN_PROGRAM && data.length !== 165) return null;
  if (program === TOKEN_2022_PROGRAM && data.length > 165 && data[165] !== 2) return null;
  const state = data[108];
  if (state === 0 || state > 2) return null;
  return {
    mint: bs58.encode(data.subarray(0, 32)),
    owner: bs58.encode(data.subarray(32, 64)),
    amount: data.readBigUInt64LE(64),
    delegate: optionPubkey(data, 72),
    state: ACCOUNT_STATES[state],
    isNative: data.readUInt32LE(109) === 1 ? data.readBigUInt64LE(113) : null,
    delegatedAmount: data.readBigUInt64LE(121),
    closeAuthority: optionPubkey(data, 129),
  };
}

// mintDecimals reads the decimals of a mint account, or null.
function mintDecimals(acct) {
  if (!acct) return null;
  const data = Buffer.from(acct.data());
  if (data.length < 82 || data[45] !== 1) return null;
  return data[44];
}

function parseTokenAccount(data, program, decimalsOf) {
  const ta = tokenAccount(data, program);
  if (!ta) return null;
  const decimals = decimalsOf(ta.mint);
  if (decimals === null) return null;
  const info = {
    isNative: ta.isNative !== null,
    mint: ta.mint,
    owner: ta.owner,
    state: ta.state,
    tokenAmount: uiAmount(ta.amount, decimals),
  };
  if (ta.delegate) {
    info.delegate = ta.delegate;
    info.delegatedAmount = uiAmount(ta.delegatedAmount, decimals);
  }
  if (ta.isNative !== null) info.rentExemptReserve = uiAmount(ta.isNative, decimals);
  if (ta.closeAuthority) info.closeAuthority = ta.closeAuthority;
  if (program === TOKEN_2022_PROGRAM && data.length > 165) info.extensions = parseTlv(data).map(parseExtension);
  return { type: 'account', info };
}

function parseTokenData(data, program, decimalsOf) {
  if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) return null;
  // A token account is 165 bytes (or more with extensions); a mint is 82 (or, in
  // Token-2022, padded to 165 with account type 1 and extensions after).
  if (data.length === 82 || (program === TOKEN_2022_PROGRAM && data.length > 165 && data[165] === 1)) {
    return parseMint(data, program);
  }
  return parseTokenAccount(data, program, decimalsOf);
}

// encodeAccount renders an account as the RPC's UiAccount.
function encodeAccount(acct, { encoding, dataSlice } = {}, decimalsOf) {
  const owner = bs58.encode(acct.owner());
  let data = Buffer.from(acct.data());
  const space = data.length;
  let uiData;
  const enc = encoding || 'binary';
  if (enc === 'jsonParsed') {
    const parsed = parseTokenData(data, owner, decimalsOf);
    if (parsed) {
      uiData = { program: owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022', parsed, space };
    }
  }
  if (!uiData) {
    if (dataSlice) data = data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length);
    switch (enc) {
      case 'binary':
        uiData = bs58.encode(data);
        break;
      case 'base58':
        if (data.length > 128) throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
        uiData = [bs58.encode(data), 'base58'];
        break;
      case 'base64':
      case 'jsonParsed':
        uiData = [data.toString('base64'), 'base64'];
        break;
      case 'base64+zstd':
        throw invalidParams('base64+zstd encoding is not supported by this validator');
      default:
        throw invalidParams(`Invalid param: unknown variant \`${enc}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\``);
    }
  }
  return {
    data: uiData,
    executable: acct.executable(),
    lamports: acct.lamports(),
    owner,
    // Rent collection is gone: a cluster reports every account as exempt forever.
    rentEpoch: U64_MAX,
    space,
  };
}

module.exports = {
  TOKEN_PROGRAM, TOKEN_2022_PROGRAM, NATIVE_MINTS, U64_MAX, RpcError, invalidParams,
  uiAmount, tokenAccount, mintDecimals, encodeAccount,
};
