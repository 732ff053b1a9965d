#!/usr/bin/env node
'use strict';
// A benchmark of the methods the RPC latency benchmark (e2e/latency_test.go) makes the
// validator answer, in process: a wallet of WALLET empty token accounts (half Token,
// half Token-2022, each of its own mint) among OTHER accounts of other owners, then
// the listing's reads (getTokenAccountsByOwner for both programs, getMultipleAccounts
// of its mints and metadata addresses, 100 keys a call) and a build's simulations
// (32 transactions closing 16 accounts each), and the listing's five
// getProgramAccounts scans, each as JSON text, timed per method
// in processor time.
//
//   node test/bench.js [--wallet 1000] [--other 4000] [--runs 5]
//
// node --cpu-prof test/bench.js writes a profile to open in Chrome's DevTools.

const crypto = require('crypto');
const { Chain } = require('../lib/chain');
const { Rpc } = require('../lib/rpc');
const { stringify } = require('../lib/json');
const bs58 = require('../lib/base58');
const {
  Fixtures, keypair, transaction, ix, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, SYSTEM, LOADER, STAKE, MINT_SIZE, NONCE_SIZE, STAKE_SIZE, BUFFER_METADATA_SIZE,
} = require('./fixtures');

function parseArgs(argv) {
  const opts = { wallet: 1000, other: 4000, runs: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts) || i + 1 >= argv.length) throw new Error(`usage: bench.js [--wallet N] [--other N] [--runs N]`);
    opts[key] = Number(argv[i + 1]);
  }
  return opts;
}

// timed answers a JSON-RPC request the way server.js does (the method, then the
// JSON text) and returns the processor milliseconds it took (wall time
// varies with the machine's load more than processor time does).
function timed(rpc, method, params) {
  const start = process.cpuUsage();
  const result = rpc.m(method, params);
  stringify({ jsonrpc: '2.0', result, id: 1 });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chain = new Chain({ programsDir: null });
  const rpc = new Rpc(chain);
  rpc.m = (method, params) => rpc[`m_${method}`](...params);
  const fx = new Fixtures(chain);
  let start = performance.now();
  const owner = keypair();
  const accounts = [
    ...fx.mintsWithAccounts(TOKEN_PROGRAM, owner.address, opts.wallet / 2),
    ...fx.mintsWithAccounts(TOKEN_2022_PROGRAM, owner.address, opts.wallet / 2),
  ];
  for (let i = 0; i < opts.other; i += 100) {
    const other = keypair().address;
    fx.mintsWithAccounts(i % 200 === 0 ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM, other, Math.min(100, opts.other - i));
  }
  console.log(`fixtures: ${opts.wallet} accounts of the wallet, ${opts.other} of others, in ${(performance.now() - start).toFixed(0)} ms`);

  const mints = accounts.map((a) => a.mint.address);
  const metadata = mints.map(() => bs58.encode(crypto.randomBytes(32)));
  const reads = [];
  for (let i = 0; i < mints.length; i += 50) reads.push([...mints.slice(i, i + 50), ...metadata.slice(i, i + 50)]);
  const payer = fx.wallet();
  const sims = [];
  const sel = accounts.slice(0, 512);
  for (let i = 0; i < sel.length; i += 16) {
    const ixs = [ix.computeUnitPrice(1000), ...sel.slice(i, i + 16).map((a) => ix.closeAccount(a.program, a.account.address, owner.address, owner.address))];
    sims.push(transaction([payer, owner], ixs, chain.svm.latestBlockhash()).toString('base64'));
  }
  const cfg = { commitment: 'confirmed', encoding: 'base64' };
  const simCfg = { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'processed' };
  // The listing's scans in its first round (backend/engine/assets/cluster.go).
  const key = bs58.decodePubkey(owner.address);
  const memcmp = (offset, bytes) => ({ memcmp: { offset, bytes: bs58.encode(bytes) } });
  const authority = Buffer.concat([Buffer.from([1, 0, 0, 0]), key]);
  const scans = [
    [TOKEN_2022_PROGRAM, { ...cfg, filters: [memcmp(0, authority)] }],
    [TOKEN_PROGRAM, { ...cfg, filters: [memcmp(0, authority), { dataSize: MINT_SIZE }] }],
    [LOADER, { ...cfg, filters: [memcmp(0, Buffer.concat([authority, Buffer.from([1])]))], dataSlice: { offset: 0, length: BUFFER_METADATA_SIZE } }],
    [SYSTEM, { ...cfg, filters: [{ dataSize: NONCE_SIZE }, memcmp(8, key)] }],
    [STAKE, { ...cfg, filters: [{ dataSize: STAKE_SIZE }, memcmp(44, key)] }],
  ];
  rpc.m('getTokenAccountsByOwner', [owner.address, { programId: TOKEN_PROGRAM }, cfg]); // builds the owner index
  for (const [program, c] of scans) rpc.m('getProgramAccounts', [program, c]); // builds the program index
  const totals = {};
  const add = (name, ms) => { (totals[name] ??= []).push(ms); };
  for (let run = 0; run < opts.runs; run++) {
    for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      chain.accounts.answers.clear(); // as after a landing: the value is written again
      add('getTokenAccountsByOwner (not kept)', timed(rpc, 'getTokenAccountsByOwner', [owner.address, { programId: program }, cfg]));
      add('getTokenAccountsByOwner (kept)', timed(rpc, 'getTokenAccountsByOwner', [owner.address, { programId: program }, cfg]));
    }
    let sum = 0;
    for (const [program, c] of scans) sum += timed(rpc, 'getProgramAccounts', [program, c]);
    add(`getProgramAccounts x${scans.length}`, sum);
    sum = 0;
    for (const keys of reads) sum += timed(rpc, 'getMultipleAccounts', [keys, cfg]);
    add(`getMultipleAccounts x${reads.length}`, sum);
    sum = 0;
    for (const tx of sims) sum += timed(rpc, 'simulateTransaction', [tx, simCfg]);
    add(`simulateTransaction x${sims.length}`, sum);
  }
  for (const [name, ms] of Object.entries(totals)) {
    ms.sort((a, b) => a - b);
    console.log(`${name}: processor time median ${ms[ms.length >> 1].toFixed(1)} ms (${ms[0].toFixed(1)}-${ms[ms.length - 1].toFixed(1)})`);
  }
}

main();
