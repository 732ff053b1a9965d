#!/usr/bin/env node
// Signs an unsigned transaction (v0 or v1, as Reclaim builds it) with
// @solana/kit, as a wallet that signs v1 would: reads one JSON line on
// stdin, {"transactionBase64": "...", "secretKey": "<base64 of the 32-byte
// ed25519 seed>"}, decodes the transaction with kit's decoder, signs its
// message bytes with the key and prints the signed transaction's base64,
// re-encoded by kit. e2e's TestV1BuildLands runs it.
//
//   echo '{"transactionBase64":"...","secretKey":"..."}' | node sign.mjs
import {
  createKeyPairFromPrivateKeyBytes, getBase64Decoder, getBase64Encoder,
  getTransactionDecoder, getTransactionEncoder, signTransaction,
} from '@solana/kit';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { transactionBase64, secretKey } = JSON.parse(input);
const seed = new Uint8Array(Buffer.from(secretKey, 'base64'));
if (seed.length !== 32) throw new Error(`secretKey is ${seed.length} bytes, want the 32-byte seed`);
const pair = await createKeyPairFromPrivateKeyBytes(seed);
const tx = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
const signed = await signTransaction([pair], tx);
process.stdout.write(getBase64Decoder().decode(getTransactionEncoder().encode(signed)) + '\n');
