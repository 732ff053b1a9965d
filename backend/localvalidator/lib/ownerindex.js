'use strict';
// OwnerIndex: the token accounts of each owner, per token program, kept up to
// date as transactions land. It is what an RPC node started with
// --account-index spl-token-owner answers getTokenAccountsByOwner from, where
// a scan would read every account of the program.
//
// Accounts change only by landing transactions here (and a transaction
// changes only the accounts it write-locks), so the index follows the chain
// when every landed transaction's writable accounts are read again (update).
// The index is built by one scan of both token programs on first use.

const bs58 = require('./base58');
const { TOKEN_PROGRAM, TOKEN_2022_PROGRAM } = require('./accounts');

const PROGRAMS = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];
const PROGRAM_KEYS = new Map(PROGRAMS.map((p) => [bs58.decodePubkey(p).toString('hex'), p]));

// ownerOf is the token-account owner (hex) of data under program, or null when
// data is not an initialized token account of program (a mint, say).
function ownerOf(data, program) {
  if (data.length < 165) return null;
  if (program === TOKEN_PROGRAM && data.length !== 165) return null;
  if (program === TOKEN_2022_PROGRAM && data.length > 165 && data[165] !== 2) return null;
  if (data[108] === 0 || data[108] > 2) return null;
  return Buffer.from(data.buffer, data.byteOffset + 32, 32).toString('hex');
}

class OwnerIndex {
  constructor(svm) {
    this.svm = svm;
    this.built = false;
    this.entries = new Map(); // account (hex) -> { address (Buffer), key: program + owner, base58 (once asked) }
    this.byOwner = new Map(); // program + ' ' + owner (hex) -> Set of account (hex)
  }

  // accounts lists the addresses (base58) of program's token accounts owned
  // by owner (a base58 address), in the order they were indexed. Each is
  // encoded once, when indexed: a wallet of 5,000 accounts would otherwise
  // pay 5,000 base58 encodings in JavaScript on every call.
  accounts(program, owner) {
    if (!this.built) this.build();
    const set = this.byOwner.get(`${program} ${bs58.decodePubkey(owner).toString('hex')}`);
    if (!set) return [];
    const out = [];
    for (const hex of set) {
      const e = this.entries.get(hex);
      e.base58 ??= bs58.encode(e.address);
      out.push(e.base58);
    }
    return out;
  }

  build() {
    this.built = true;
    for (const program of PROGRAMS) {
      for (const entry of this.svm.getProgramAccounts(bs58.decodePubkey(program))) {
        this.put(Buffer.from(entry.address), program, Buffer.from(entry.account().data()));
      }
    }
  }

  // update reads the accounts at addresses (base58) again: after a transaction
  // that write-locked them landed.
  update(addresses) {
    if (!this.built) return;
    for (const address of addresses) {
      const key = bs58.decodePubkey(address);
      this.remove(key.toString('hex'));
      const acct = this.svm.getAccount(key);
      const program = acct && PROGRAM_KEYS.get(Buffer.from(acct.owner()).toString('hex'));
      if (program) this.put(key, program, Buffer.from(acct.data()));
    }
  }

  put(address, program, data) {
    const owner = ownerOf(data, program);
    if (owner === null) return;
    const hex = address.toString('hex');
    const key = `${program} ${owner}`;
    this.entries.set(hex, { address, key });
    let set = this.byOwner.get(key);
    if (!set) this.byOwner.set(key, (set = new Set()));
    set.add(hex);
  }

  remove(hex) {
    const entry = this.entries.get(hex);
    if (!entry) return;
    this.entries.delete(hex);
    const set = this.byOwner.get(entry.key);
    set.delete(hex);
    if (set.size === 0) this.byOwner.delete(entry.key);
  }
}

module.exports = { OwnerIndex };
