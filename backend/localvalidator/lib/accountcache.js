'use strict';
// AccountCache: the base64 UiAccount of each token-program account, encoded
// once as JSON text and kept until a transaction that write-locks the account
// lands, as a node keeps its accounts in memory and encodes them in Rust
// where this validator reads each one across N-API (getAccount, owner(),
// data()) and encodes it in JavaScript: two thirds of the cost of a
// getTokenAccountsByOwner of 500 accounts.
//
// Only accounts owned by SPL Token or Token-2022 are kept: they change only by
// landing transactions, and a transaction changes only the accounts it
// write-locks (Chain.land forgets those). Sysvars, which the chain rewrites
// at every slot, programs and the faucet are encoded afresh at each read.

const bs58 = require('./base58');
const { RawJSON, stringify } = require('./json');
const { encodeAccount, tokenAccount, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');

const MAX_ENTRIES = 1 << 17;

// cachable says whether an encoding config is the one kept: base64, whole.
function cachable(config) {
  return config?.encoding === 'base64' && !config.dataSlice;
}

class AccountCache {
  constructor(svm, max = MAX_ENTRIES) {
    this.svm = svm;
    this.max = max;
    this.entries = new Map(); // address (base58) -> { program, token, base64 }
    this.answers = new Map(); // program + ' ' + owner -> JSON text (UTF-8) of a getTokenAccountsByOwner value
  }

  // answer is the kept value (JSON text, a Buffer) of the getTokenAccountsByOwner of
  // key (program and owner, base58), or undefined. A value is kept until
  // any transaction lands (forget): a node encodes a wallet of 5,000
  // accounts in a few milliseconds and beside other requests, where this
  // validator takes 6 ms of its only thread, which every other request
  // waits for.
  answer(key) { return this.answers.get(key); }

  keepAnswer(key, text) {
    if (this.answers.size >= 64) this.answers.delete(this.answers.keys().next().value);
    this.answers.set(key, text);
  }

  // entry is the account at address (base58) as { program (base58), token
  // (its tokenAccount fields, or null), base64 (RawJSON of its UiAccount) },
  // or null when it does not exist.
  entry(address) {
    let e = this.entries.get(address);
    if (e !== undefined) return e;
    const acct = this.svm.getAccount(bs58.decodePubkey(address));
    if (!acct) return null;
    const program = bs58.encode(acct.owner());
    const token = program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;
    e = {
      program,
      token: token ? tokenAccount(Buffer.from(acct.data()), program) : null,
      base64: new RawJSON(stringify(encodeAccount(acct, { encoding: 'base64' }))),
    };
    if (token) {
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value);
      this.entries.set(address, e);
    }
    return e;
  }

  // keyed is the JSON text of the account at address (base58) as an element
  // of a getTokenAccountsByOwner answer ({"pubkey", "account"}, base64,
  // whole), kept with the account's entry; null when it does not exist.
  keyed(address) {
    const e = this.entry(address);
    if (!e) return null;
    e.keyed ??= `{"pubkey":"${address}","account":${e.base64.text}}`;
    return e.keyed;
  }

  // forget drops the accounts at addresses (base58): a transaction that
  // write-locked them landed.
  forget(addresses) {
    if (addresses.length > 0) this.answers.clear();
    for (const a of addresses) this.entries.delete(a);
  }
}

module.exports = { AccountCache, cachable };
