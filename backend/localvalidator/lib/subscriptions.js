'use strict';
// The PubSub (WebSocket) side of the RPC: signature, slot and account subscriptions,
// which web3.js's confirmTransaction relies on.

const { WebSocketServer } = require('ws');
const bs58 = require('./base58');
const { encodeAccount } = require('./accounts');
const { stringify } = require('./json');

class Subscriptions {
  constructor(chain, rpc) {
    this.chain = chain;
    this.rpc = rpc;
    this.nextId = 1;
    this.subs = new Map(); // id -> { ws, kind, ... }
    this.wss = new WebSocketServer({ noServer: true });
    this.wss.on('connection', (ws) => this.onConnection(ws));
    chain.on('slot', () => this.onSlot());
    chain.on('transaction', () => this.checkSignatures());
  }

  handleUpgrade(req, socket, head) {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  onConnection(ws) {
    ws.on('message', (raw) => {
      let req;
      try {
        req = JSON.parse(raw.toString());
      } catch {
        ws.send(stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
        return;
      }
      const reply = (result, error) => ws.send(stringify({ jsonrpc: '2.0', ...(error ? { error } : { result }), id: req.id ?? null }));
      try {
        reply(this.handle(ws, req.method, req.params ?? []));
      } catch (e) {
        reply(undefined, { code: e.code ?? -32603, message: e.message });
      }
    });
    ws.on('close', () => {
      for (const [id, s] of this.subs) if (s.ws === ws) this.subs.delete(id);
    });
  }

  handle(ws, method, params) {
    const [arg, config = {}] = params;
    if (method.endsWith('Unsubscribe')) return this.subs.delete(arg);
    const id = this.nextId++;
    switch (method) {
      case 'signatureSubscribe':
        this.subs.set(id, { ws, kind: 'signature', signature: arg, commitment: config.commitment });
        setImmediate(() => this.checkSignatures());
        return id;
      case 'slotSubscribe':
        this.subs.set(id, { ws, kind: 'slot' });
        return id;
      case 'accountSubscribe': {
        bs58.decodePubkey(arg);
        const s = { ws, kind: 'account', pubkey: arg, config };
        s.last = this.accountJSON(s);
        this.subs.set(id, s);
        return id;
      }
      default: {
        const err = new Error('Method not found');
        err.code = -32601;
        throw err;
      }
    }
  }

  notify(id, s, method, result) {
    s.ws.send(stringify({ jsonrpc: '2.0', method, params: { result, subscription: id } }));
  }

  checkSignatures() {
    for (const [id, s] of this.subs) {
      if (s.kind !== 'signature') continue;
      const rec = this.chain.txs.get(s.signature);
      if (!rec || !this.chain.reaches(rec, s.commitment)) continue;
      this.notify(id, s, 'signatureNotification', { context: { slot: this.chain.slot }, value: { err: rec.err } });
      this.subs.delete(id);
    }
  }

  accountJSON(s) {
    const acct = this.chain.account(s.pubkey);
    const value = acct ? encodeAccount(acct, { encoding: s.config.encoding ?? 'base64' }, (m) => this.chain.decimalsOf(m)) : null;
    return stringify(value);
  }

  onSlot() {
    const slot = this.chain.slot;
    for (const [id, s] of this.subs) {
      if (s.kind === 'slot') this.notify(id, s, 'slotNotification', { parent: this.chain.blocks[this.chain.blockHeight - 1]?.slot ?? 0, root: this.chain.block('finalized').slot, slot });
      if (s.kind === 'account') {
        const now = this.accountJSON(s);
        if (now !== s.last) {
          s.last = now;
          this.notify(id, s, 'accountNotification', { context: { slot }, value: JSON.parse(now) });
        }
      }
    }
    this.checkSignatures();
  }
}

module.exports = { Subscriptions };
