'use strict';
// ProgramIndex: every account of a program, with its data, kept up to date
// as transactions land, for getProgramAccounts. A node keeps its accounts in
// memory and scans a program's in Rust; this validator would otherwise read
// each one across N-API (getProgramAccounts materializes every account of
// the program, data copied) on every call, 30 to 70 ms for the token
// programs' or the System program's thousands of accounts in the suite, and
// it answers one request at a time: the scans Reclaim's listing makes in
// its first round trip (issue 23) delayed every other answer of it.
//
// As for the owner index (ownerindex.js), accounts change here only by
// landing transactions, and a transaction changes only the accounts it
// write-locks: a program's accounts are read by one scan on its first
// getProgramAccounts, then every landed transaction's writable accounts are
// read again (update).

const bs58 = require('./base58');

class ProgramIndex {
  constructor(svm) {
    this.svm = svm;
    this.programs = new Map(); // program (hex) -> Map of account (hex) -> { address (Buffer), data (Buffer) }
    this.owner = new Map(); // account (hex) -> program (hex), for the indexed programs
  }

  // accounts lists program's accounts (program a 32-byte Buffer) as
  // { address, data }, Buffers the caller must not change.
  accounts(program) {
    const p = program.toString('hex');
    let m = this.programs.get(p);
    if (!m) {
      m = new Map();
      this.programs.set(p, m);
      for (const entry of this.svm.getProgramAccounts(program)) {
        this.put(p, Buffer.from(entry.address), Buffer.from(entry.account().data()));
      }
    }
    return m.values();
  }

  // update reads the accounts at addresses (base58) again: a transaction
  // that write-locked them landed.
  update(addresses) {
    if (this.programs.size === 0) return;
    for (const address of addresses) {
      const key = bs58.decodePubkey(address);
      const hex = key.toString('hex');
      const was = this.owner.get(hex);
      if (was !== undefined) {
        this.programs.get(was).delete(hex);
        this.owner.delete(hex);
      }
      const acct = this.svm.getAccount(key);
      if (!acct) continue;
      const p = Buffer.from(acct.owner()).toString('hex');
      if (this.programs.has(p)) this.put(p, key, Buffer.from(acct.data()));
    }
  }

  put(program, address, data) {
    const hex = address.toString('hex');
    this.programs.get(program).set(hex, { address, data });
    this.owner.set(hex, program);
  }
}

module.exports = { ProgramIndex };
