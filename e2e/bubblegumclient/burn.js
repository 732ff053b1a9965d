// Builds Bubblegum `burn` and `burn_v2` instructions and Merkle tree accounts
// with @metaplex-foundation/mpl-bubblegum and spl-account-compression (umi, no
// RPC call is made), so backend/chain/bubblegum can be compared with them byte for
// byte.
//
// stdin: {"burns": [{leafOwner, leafDelegate, merkleTree, root, dataHash,
//          creatorHash, nonce, index, proof: []}],   (keys and hashes base58,
//          nonce a decimal string)
//         "burnsV2": [{the fields of burns, leafDelegate only when it is not
//          the owner, coreCollection?, assetDataHash, flags}],
//         "trees": [{maxDepth, maxBufferSize, canopyDepth, serialize}]}
// stdout: {"burns": [{programId, keys: [{pubkey, isSigner, isWritable}], data}],
//          "burnsV2": [same], "trees": [{size, account}]}   (data and account
//          base64)
'use strict';
const { createUmi } = require('@metaplex-foundation/umi-bundle-defaults');
const { publicKey, publicKeyBytes, createNoopSigner } = require('@metaplex-foundation/umi');
const { mplBubblegum, burn, burnV2 } = require('@metaplex-foundation/mpl-bubblegum');
const {
  getMerkleTreeSize,
  getMerkleTreeAccountDataV1Serializer,
  CompressionAccountType,
} = require('@metaplex-foundation/spl-account-compression');

// The endpoint is never dialled: building instructions needs no RPC.
const umi = createUmi('http://127.0.0.1:9').use(mplBubblegum());

function buildBurn(c) {
  const ix = burn(umi, {
    leafOwner: createNoopSigner(publicKey(c.leafOwner)),
    leafDelegate: publicKey(c.leafDelegate),
    merkleTree: publicKey(c.merkleTree),
    root: publicKeyBytes(c.root),
    dataHash: publicKeyBytes(c.dataHash),
    creatorHash: publicKeyBytes(c.creatorHash),
    nonce: BigInt(c.nonce),
    index: c.index,
    proof: c.proof.map((p) => publicKey(p)),
  }).getInstructions()[0];
  return toJSON(ix);
}

// The leaf owner pays and signs; authority defaults to the payer.
function buildBurnV2(c) {
  const input = {
    payer: createNoopSigner(publicKey(c.leafOwner)),
    leafOwner: publicKey(c.leafOwner),
    merkleTree: publicKey(c.merkleTree),
    root: publicKeyBytes(c.root),
    dataHash: publicKeyBytes(c.dataHash),
    creatorHash: publicKeyBytes(c.creatorHash),
    assetDataHash: publicKeyBytes(c.assetDataHash),
    flags: c.flags,
    nonce: BigInt(c.nonce),
    index: c.index,
    proof: c.proof.map((p) => publicKey(p)),
  };
  if (c.leafDelegate) input.leafDelegate = publicKey(c.leafDelegate);
  if (c.coreCollection) input.coreCollection = publicKey(c.coreCollection);
  return toJSON(burnV2(umi, input).getInstructions()[0]);
}

function toJSON(ix) {
  return {
    programId: ix.programId.toString(),
    keys: ix.keys.map((k) => ({ pubkey: k.pubkey.toString(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}

// A tree account whose every node is distinct, so an offset error shows.
function buildTree(t) {
  const out = { size: getMerkleTreeSize(t.maxDepth, t.maxBufferSize, t.canopyDepth) };
  if (!t.serialize) return out;
  let n = 0;
  const node = () => {
    n += 1;
    const b = new Uint8Array(32);
    new DataView(b.buffer).setUint32(0, n, true);
    return publicKey(b);
  };
  const path = () => Array.from({ length: t.maxDepth }, node);
  const canopyNodes = Math.max(2 ** (t.canopyDepth + 1) - 2, 0);
  const value = {
    discriminator: CompressionAccountType.ConcurrentMerkleTree,
    treeHeader: {
      __kind: 'V1', maxBufferSize: t.maxBufferSize, maxDepth: t.maxDepth,
      authority: node(), creationSlot: 123456789n, padding: [0, 0, 0, 0, 0, 0],
    },
    tree: {
      sequenceNumber: 42n, activeIndex: 3n, bufferSize: BigInt(t.maxBufferSize),
      changeLogs: Array.from({ length: t.maxBufferSize }, (_, i) => ({ root: node(), pathNodes: path(), index: i })),
      rightMostPath: { proof: path(), leaf: node(), index: 41 },
    },
    canopy: Array.from({ length: canopyNodes }, node),
  };
  const bytes = getMerkleTreeAccountDataV1Serializer(t.maxDepth, t.maxBufferSize).serialize(value);
  out.account = Buffer.from(bytes).toString('base64');
  return out;
}

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  const res = {
    burns: (req.burns || []).map(buildBurn),
    burnsV2: (req.burnsV2 || []).map(buildBurnV2),
    trees: (req.trees || []).map(buildTree),
  };
  process.stdout.write(JSON.stringify(res, null, 2) + '\n');
});
