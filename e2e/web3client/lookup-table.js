#!/usr/bin/env node
'use strict';
// Prints what @solana/web3.js builds and reads for the Address Lookup Table program,
// the golden that backend/chain/lookuptable's tests compare their encoders and parser
// with (go test ./backend/chain/lookuptable -update runs it).
//
//   node lookup-table.js TABLE AUTHORITY RECIPIENT TABLE_DATA_BASE64...
//
// Prints one JSON object: the CreateLookupTable (recent slot 1000, RECIPIENT paying),
// ExtendLookupTable (AUTHORITY and TABLE added), DeactivateLookupTable and
// CloseLookupTable instructions for those keys, and each table's data as AddressLookupTableAccount.deserialize reads it.

const web3 = require('@solana/web3.js');

function ix(i) {
  return {
    programId: i.programId.toBase58(),
    accounts: i.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(i.data).toString('base64'),
  };
}

const [table, authority, recipient, ...tables] = process.argv.slice(2);
if (!recipient) throw new Error('usage: lookup-table.js TABLE AUTHORITY RECIPIENT TABLE_DATA_BASE64...');
const lookupTable = new web3.PublicKey(table);
const auth = new web3.PublicKey(authority);
const [create] = web3.AddressLookupTableProgram.createLookupTable({ authority: auth, payer: new web3.PublicKey(recipient), recentSlot: 1000 });
const out = {
  create: ix(create),
  extend: ix(web3.AddressLookupTableProgram.extendLookupTable({
    lookupTable, authority: auth, payer: new web3.PublicKey(recipient), addresses: [auth, lookupTable],
  })),
  deactivate: ix(web3.AddressLookupTableProgram.deactivateLookupTable({ lookupTable, authority: auth })),
  close: ix(web3.AddressLookupTableProgram.closeLookupTable({ lookupTable, authority: auth, recipient: new web3.PublicKey(recipient) })),
  tables: tables.map((b64) => {
    const s = web3.AddressLookupTableAccount.deserialize(Buffer.from(b64, 'base64'));
    return {
      deactivationSlot: s.deactivationSlot.toString(),
      authority: s.authority ? s.authority.toBase58() : null,
      addresses: s.addresses.length,
    };
  }),
};
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
