#!/usr/bin/env node
// Builds the v1 transactions (SIMD-0385) that backend/chain/txv1's tests
// build in Go, with @solana/kit, from the same fixed keys and blockhash, and
// prints them as JSON: for each case kit's message bytes, the signed
// transaction bytes (ed25519 is deterministic, so Go's signatures must be the
// same) and kit's order of the addresses (kit sorts each class of address by
// its own collation; txv1.Compile keeps the order of first use).
//
//   node goldens.mjs > ../../backend/chain/txv1/testdata/kit.golden.json
//
// Keep the cases in step with kitCases in backend/chain/txv1/kit_test.go.
import {
  AccountRole, address, appendTransactionMessageInstructions, compileTransaction,
  compileTransactionMessage, createKeyPairFromPrivateKeyBytes, createTransactionMessage,
  getAddressDecoder, getBase58Decoder, getBase64Decoder, getCompiledTransactionMessageEncoder,
  getTransactionEncoder, pipe, setTransactionMessageConfig, setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash, signTransaction,
} from '@solana/kit';
import { readFileSync } from 'node:fs';

const SYSTEM = address('11111111111111111111111111111111');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

// key(i): the ed25519 key whose 32-byte seed is i repeated (txv1's seedKey).
async function key(i) {
  const pair = await createKeyPairFromPrivateKeyBytes(new Uint8Array(32).fill(i), true);
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { pair, address: getAddressDecoder().decode(raw) };
}

// blockhash: bytes 0..31 times 7 plus 3 (txv1's kitBlockhash).
const blockhash = getBase58Decoder().decode(Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 0xff));

function u64le(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

function transfer(from, to, lamports) {
  const data = new Uint8Array(12);
  data.set([2, 0, 0, 0]);
  data.set(u64le(lamports), 4);
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: from, role: AccountRole.WRITABLE_SIGNER },
      { address: to, role: AccountRole.WRITABLE },
    ],
    data,
  };
}

function closeAccount(account, destination, owner) {
  return {
    programAddress: TOKEN,
    accounts: [
      { address: account, role: AccountRole.WRITABLE },
      { address: destination, role: AccountRole.WRITABLE },
      { address: owner, role: AccountRole.READONLY_SIGNER },
    ],
    data: new Uint8Array([9]),
  };
}

function memo(text, signer) {
  return {
    programAddress: MEMO,
    accounts: [{ address: signer, role: AccountRole.READONLY_SIGNER }],
    data: new TextEncoder().encode(text),
  };
}

async function cases() {
  const payer = await key(1);
  const receiver = await key(2);
  const cosigner = await key(3);
  const donation = await key(4);
  const fee = await key(5);
  const closes = [];
  for (let i = 0; i < 58; i++) closes.push(await key(10 + i));
  return [
    {
      name: 'transfer',
      signers: [payer],
      config: { priorityFeeLamports: 10_000n, computeUnitLimit: 300 },
      instructions: [transfer(payer.address, receiver.address, 1_000_000)],
    },
    {
      name: 'all-config',
      signers: [payer, cosigner],
      config: {
        priorityFeeLamports: (1n << 40n) + 123n,
        computeUnitLimit: 1_400_000,
        loadedAccountsDataSizeLimit: 65_536,
        heapSize: 262_144,
      },
      instructions: [
        transfer(payer.address, receiver.address, 42),
        memo('reclaim v1', cosigner.address),
      ],
    },
    {
      name: 'no-config',
      signers: [payer],
      config: {},
      instructions: closes.slice(0, 3).map((c) => closeAccount(c.address, payer.address, payer.address)),
    },
    {
      name: 'sixty-instructions',
      signers: [payer],
      config: { priorityFeeLamports: 58_000n, computeUnitLimit: 58 * 3_000 + 2 * 150, loadedAccountsDataSizeLimit: 400_000 },
      instructions: [
        ...closes.map((c) => closeAccount(c.address, payer.address, payer.address)),
        transfer(payer.address, donation.address, 1_234_567),
        transfer(payer.address, fee.address, 89_012),
      ],
    },
  ];
}

const b64 = getBase64Decoder();
const out = [];
for (const c of await cases()) {
  const message = pipe(
    createTransactionMessage({ version: 1 }),
    (m) => setTransactionMessageFeePayer(c.signers[0].address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 0n }, m),
    (m) => setTransactionMessageConfig(c.config, m),
    (m) => appendTransactionMessageInstructions(c.instructions, m),
  );
  const compiled = compileTransactionMessage(message);
  const messageBytes = getCompiledTransactionMessageEncoder().encode(compiled);
  const signed = await signTransaction(c.signers.map((s) => s.pair), compileTransaction(message));
  const transactionBytes = getTransactionEncoder().encode(signed);
  out.push({
    name: c.name,
    addresses: compiled.staticAccounts,
    message: b64.decode(messageBytes),
    transaction: b64.decode(transactionBytes),
  });
}
const kitVersion = JSON.parse(readFileSync(new URL('./node_modules/@solana/kit/package.json', import.meta.url))).version;
process.stdout.write(JSON.stringify({ kit: kitVersion, cases: out }, null, 2) + '\n');
