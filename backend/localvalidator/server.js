#!/usr/bin/env node
'use strict';
// A local Solana validator for tests: the standard JSON-RPC API (HTTP) and PubSub
// (WebSocket) over LiteSVM, which runs the real runtime with the real SPL Token,
// Token-2022 and Associated Token Account programs.
//
//   node server.js [--host 127.0.0.1] [--port 8899] [--ws-port PORT+1] [--slot-ms 400]
//                  [--programs-dir DIR] [--profile]
//
// --programs-dir (or the environment's E2E_PROGRAMS_DIR) names a directory of
// <programId>.so files, loaded as programs at startup (Metaplex Token
// Metadata, MPL Core, Bubblegum, ...). Without either, the checkout's
// ../shared/programs is used when it exists; --programs-dir none loads none.
//
// --profile (or VALIDATOR_PROFILE=1) logs every JSON-RPC request as it is
// answered: its method(s), the milliseconds from its first byte to its last
// (read), in JSON.parse (parse), in the methods (method) and in writing the
// answer (json), and the answer's size, to find where the validator's time
// goes.
//
// HTTP JSON-RPC on --port; WebSocket PubSub on --ws-port (default port+1, as
// solana-test-validator does) and also on --port itself (an Upgrade request).

const http = require('http');
const { Chain } = require('./lib/chain');
const { Rpc } = require('./lib/rpc');
const { Subscriptions } = require('./lib/subscriptions');
const { RpcError } = require('./lib/accounts');
const { stringifyParts } = require('./lib/json');

// defaultProgramsDir is the shared programs directory beside the checkout
// (backend/localvalidator -> ../../../shared/programs), or null.
function defaultProgramsDir() {
  const dir = require('path').join(__dirname, '..', '..', '..', 'shared', 'programs');
  return require('fs').existsSync(dir) ? dir : null;
}

function parseArgs(argv) {
  const opts = { host: '127.0.0.1', port: 8899, wsPort: null, slotMs: 400, quiet: false, profile: !!process.env.VALIDATOR_PROFILE, programsDir: process.env.E2E_PROGRAMS_DIR || defaultProgramsDir() };
  for (let i = 0; i < argv.length; i++) {
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case '--host': opts.host = next(); break;
      case '--port': opts.port = Number(next()); break;
      case '--ws-port': opts.wsPort = Number(next()); break;
      case '--slot-ms': opts.slotMs = Number(next()); break;
      case '--programs-dir': opts.programsDir = next(); break;
      case '--quiet': opts.quiet = true; break;
      case '--profile': opts.profile = true; break;
      case '-h': case '--help':
        console.log('usage: node server.js [--host H] [--port P] [--ws-port P] [--slot-ms MS] [--programs-dir DIR] [--quiet] [--profile]');
        process.exit(0);
        break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (opts.wsPort === null) opts.wsPort = opts.port + 1;
  return opts;
}

async function handleOne(rpc, req, log) {
  const id = req && typeof req === 'object' && 'id' in req ? req.id : null;
  if (!req || typeof req !== 'object' || req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
    return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
  }
  try {
    const result = await rpc.call(req.method, req.params);
    return { jsonrpc: '2.0', result, id };
  } catch (e) {
    if (e instanceof RpcError) {
      const error = { code: e.code, message: e.message };
      if (e.data !== undefined) error.data = e.data;
      return { jsonrpc: '2.0', error, id };
    }
    log(`internal error in ${req.method}: ${e.stack}`);
    return { jsonrpc: '2.0', error: { code: -32603, message: `Internal error: ${e.message}` }, id };
  }
}

// methodsOf names a request body's method, or a batch's methods joined by ','.
function methodsOf(body) {
  const name = (r) => (r && typeof r.method === 'string' ? r.method : '?');
  return Array.isArray(body) ? body.map(name).join(',') : name(body);
}

function createServer(chain, { log = () => {}, profile = false } = {}) {
  const rpc = new Rpc(chain);
  const subs = new Subscriptions(chain, rpc);
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      // As a node's /health: "ok", "behind" or "unknown" (validator_setHealth).
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(rpc.health.status);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      res.end('Used HTTP Method is not allowed. POST or OPTIONS is required');
      return;
    }
    const received = profile ? performance.now() : 0;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const read = profile ? performance.now() : 0;
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const start = profile ? performance.now() : 0;
      let out;
      if (body === undefined) out = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null };
      else if (Array.isArray(body)) out = await Promise.all(body.map((r) => handleOne(rpc, r, log)));
      else out = await handleOne(rpc, body, log);
      const answered = profile ? performance.now() : 0;
      const parts = stringifyParts(out);
      const bytes = parts.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.length), 0);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes });
      for (const p of parts) res.write(p);
      res.end();
      if (profile) {
        const written = performance.now();
        const ms = (a, b) => (b - a).toFixed(1);
        log(`profile ${methodsOf(body)}: read ${ms(received, read)} parse ${ms(read, start)} method ${ms(start, answered)} json ${ms(answered, written)} ms, ${bytes} bytes`);
      }
    });
  });
  server.on('upgrade', (req, socket, head) => subs.handleUpgrade(req, socket, head));
  // A client closes its idle connections first, as a Solana node's clients
  // see: Node's default closes a connection idle for 5 s, and a client (Go
  // keeps idle connections 90 s) that reuses it at that moment gets EOF on a
  // POST it may not resend. Two minutes outlasts every client's idle timeout.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  return { server, subs };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = (msg) => { if (!opts.quiet) console.log(`[validator] ${msg}`); };
  if (opts.programsDir === 'none') opts.programsDir = null;
  const chain = new Chain({ slotMs: opts.slotMs, programsDir: opts.programsDir });
  if (chain.programs.length > 0) log(`programs from ${opts.programsDir}: ${chain.programs.join(', ')}`);
  const { server, subs } = createServer(chain, { log, profile: opts.profile });
  const wsServer = http.createServer((_req, res) => { res.writeHead(426); res.end('WebSocket only'); });
  wsServer.on('upgrade', (req, socket, head) => subs.handleUpgrade(req, socket, head));
  server.listen(opts.port, opts.host, () => {
    wsServer.listen(opts.wsPort, opts.host, () => {
      chain.start();
      log(`JSON-RPC http://${opts.host}:${opts.port}  PubSub ws://${opts.host}:${opts.wsPort}  slot ${opts.slotMs} ms`);
    });
  });
  const shutdown = () => { chain.stop(); server.close(); wsServer.close(); process.exit(0); };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

if (require.main === module) main();

module.exports = { createServer, parseArgs };
