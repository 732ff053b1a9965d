'use strict';
// Ed25519 keys from random seeds, and public keys from their 32 bytes.
//
// Not crypto.generateKeyPairSync: on Node 20 (20.20.2 here) a key pair it
// made, exported as JWK while a garbage collection runs, deadlocks the
// process (the collected KeyGenJob's destructor waits on the mutex the
// export holds: gdb shows ~KeyGenJob under ExportJWKEdKey in
// pthread_mutex_lock). 20,000 generateKeyPairSync + export({format:'jwk'})
// hung within a second, every run; 20,000 keys made as below never did.

const crypto = require('crypto');

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

// generate is a new key: { pubkey (its 32 bytes), privateKey (a KeyObject) }.
function generate() {
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, crypto.randomBytes(32)]), format: 'der', type: 'pkcs8' });
  const spki = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { pubkey: Buffer.from(spki.subarray(SPKI_ED25519.length)), privateKey };
}

// publicKey is the KeyObject of a 32-byte Ed25519 public key.
function publicKey(pubkey) {
  return crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519, pubkey]), format: 'der', type: 'spki' });
}

module.exports = { generate, publicKey };
