#!/usr/bin/env node
'use strict';
// Signs transactions built by Reclaim the way a browser wallet integration does
// with @solana/web3.js: VersionedTransaction.deserialize, sign, serialize.
//
//   echo '{"secretKey":[...64 numbers...],"transactions":["<base64>",...]}' | node sign-built.js
//
// Prints {"signed":["<base64>",...]} on one line.

const web3 = require('@solana/web3.js');

let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  const signer = web3.Keypair.fromSecretKey(Uint8Array.from(req.secretKey));
  const signed = req.transactions.map((b64) => {
    const tx = web3.VersionedTransaction.deserialize(Buffer.from(b64, 'base64'));
    if (tx.version !== 0) {
      throw new Error(`expected a v0 transaction, got version ${tx.version}`);
    }
    tx.sign([signer]);
    return Buffer.from(tx.serialize()).toString('base64');
  });
  process.stdout.write(JSON.stringify({ signed }) + '\n');
});
