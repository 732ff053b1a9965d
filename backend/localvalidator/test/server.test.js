'use strict';
// The JSON-RPC server keeps idle keep-alive connections longer than its
// clients do, so a client never reuses a connection the server is closing
// (Go's http.Transport keeps idle connections 90 s; a POST it reused just as
// the server closed it failed with EOF, and Go does not resend a POST).

const test = require('node:test');
const assert = require('node:assert');
const { Chain } = require('../lib/chain');
const { createServer } = require('../server');

const GO_IDLE_CONN_TIMEOUT_MS = 90_000;

test('idle connections outlive the clients\' idle timeout', () => {
  const chain = new Chain({ slotMs: 400, programsDir: null });
  const { server } = createServer(chain);
  assert.ok(server.keepAliveTimeout > GO_IDLE_CONN_TIMEOUT_MS, `keepAliveTimeout ${server.keepAliveTimeout} ms`);
  assert.ok(server.headersTimeout > server.keepAliveTimeout, `headersTimeout ${server.headersTimeout} ms`);
});
