#!/usr/bin/env node
'use strict';
// Closes an empty token account with @solana/web3.js, the way an integrator's backend
// would: Connection.sendTransaction, then confirmTransaction with the blockhash's
// lastValidBlockHeight. Prints one JSON line with the figures the Go e2e test checks.
//
//   node close-account.js RPC_URL OWNER_SECRET_KEY_JSON TOKEN_ACCOUNT [WS_URL]
//
// WS_URL is the PubSub endpoint confirmTransaction subscribes on; by default web3.js
// derives it from RPC_URL (port + 1), which a container's mapped ports do not keep.
// OWNER_SECRET_KEY_JSON is the 64-byte secret key as a JSON array (solana-keygen's
// format). The owner pays the fee and receives the account's lamports.

const web3 = require('@solana/web3.js');

async function main() {
  const [url, secretJSON, accountArg, wsEndpoint] = process.argv.slice(2);
  if (!url || !secretJSON || !accountArg) {
    throw new Error('usage: close-account.js RPC_URL OWNER_SECRET_KEY_JSON TOKEN_ACCOUNT');
  }
  const owner = web3.Keypair.fromSecretKey(Uint8Array.from(JSON.parse(secretJSON)));
  const account = new web3.PublicKey(accountArg);
  const connection = new web3.Connection(url, { commitment: 'confirmed', wsEndpoint });

  const info = await connection.getAccountInfo(account);
  if (!info) throw new Error(`token account ${account.toBase58()} not found`);
  const balanceBefore = await connection.getBalance(owner.publicKey);

  const close = new web3.TransactionInstruction({
    programId: info.owner, // Token or Token-2022: CloseAccount is instruction 9 in both
    keys: [
      { pubkey: account, isSigner: false, isWritable: true },
      { pubkey: owner.publicKey, isSigner: false, isWritable: true },
      { pubkey: owner.publicKey, isSigner: true, isWritable: false },
    ],
    data: Buffer.from([9]),
  });
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const tx = new web3.Transaction({ feePayer: owner.publicKey, blockhash, lastValidBlockHeight }).add(close);
  const signature = await connection.sendTransaction(tx, [owner]);
  const confirmation = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  if (confirmation.value.err) throw new Error(`transaction failed: ${JSON.stringify(confirmation.value.err)}`);

  const landed = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
  const balanceAfter = await connection.getBalance(owner.publicKey);
  const closed = await connection.getAccountInfo(account);
  console.log(JSON.stringify({
    signature,
    accountLamports: info.lamports,
    balanceBefore,
    balanceAfter,
    fee: landed.meta.fee,
    accountClosed: closed === null,
  }));
}

main().then(() => process.exit(0), (err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
