'use strict';
// The validator's HTTP JSON-RPC server on a free port, and a client that talks
// to it as a test's client does: JSON over HTTP, errors as the JSON-RPC error
// objects they are. The chain's slots advance only when a test says so
// (chain.advance), so what a test sees never depends on timing.

const { createServer } = require('../server');
const { Chain } = require('../lib/chain');
const { Fixtures, transaction } = require('./fixtures');

// serve starts a server for chain; close it with client.close().
async function serve(chain) {
  const { server } = createServer(chain);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  let id = 0;
  const client = {
    url,
    // post sends a request body and answers the parsed response body.
    async post(body) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return res.json();
    },
    // call answers a method's result, or throws its error ({ code, message, data }).
    async call(method, params) {
      const out = await client.post({ jsonrpc: '2.0', id: ++id, method, params });
      if (out.error) throw Object.assign(new Error(out.error.message), { rpc: out.error });
      return out.result;
    },
    // send is sendTransaction of a serialized transaction, base64.
    send(bytes, config = {}) {
      return client.call('sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64', ...config }]);
    },
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      });
    },
  };
  return client;
}

// rpcError awaits a call that must fail and answers its JSON-RPC error.
async function rpcError(promise) {
  try {
    await promise;
  } catch (e) {
    if (e.rpc) return e.rpc;
    throw e;
  }
  throw new Error('the call succeeded; an error was expected');
}

// testChain is a fresh chain (no slot timer) 40 blocks on, so that each
// commitment level sees a block of its own, with its fixtures, its server
// (closed after t) and helpers that go through the server:
// account(address) is getAccountInfo (base64, processed), land(signers, ixs)
// sends a transaction (preflight on the processed bank), opens the next block
// and answers its status (a refusal throws the RPC error), advance(n) opens n
// blocks.
async function testChain(t) {
  const chain = new Chain({ programsDir: null });
  const advance = (n = 1) => { for (let i = 0; i < n; i++) chain.advance(); };
  advance(40);
  const fx = new Fixtures(chain);
  const client = await serve(chain);
  t.after(() => client.close());
  const account = async (address) => (await client.call('getAccountInfo', [address, { encoding: 'base64', commitment: 'processed' }])).value;
  const land = async (signers, ixs) => {
    const sig = await client.send(transaction(signers, ixs, chain.svm.latestBlockhash()), { preflightCommitment: 'processed' });
    advance();
    return (await client.call('getSignatureStatuses', [[sig]])).value[0];
  };
  return { chain, fx, client, account, land, advance };
}

module.exports = { serve, rpcError, testChain };
