// Builds the instructions of compressed NFT fixtures with
// @metaplex-foundation/mpl-bubblegum (umi, no RPC call is made) for the e2e
// tests, which send them to the real Bubblegum program, and the leaf each
// mint appends, with mpl-bubblegum's own hashes, so the tests' DAS stand-in
// can keep the tree.
//
// stdin: a JSON array of requests (keys base58):
//   {"kind": "createTreeConfig", v2, merkleTree, payer, maxDepth, maxBufferSize}
//       createTreeConfig (V1: SPL Account Compression, SPL Noop) or
//       createTreeConfigV2 (MPL Account Compression, MPL Noop); the tree
//       account itself is created beforehand by the caller (system
//       CreateAccount of getMerkleTreeSize bytes, owned by the compression
//       program).
//   {"kind": "mint", v2, merkleTree, payer, leafOwner, index, name, uri,
//    coreCollection?}
//       mintV1 or mintV2 of one leaf, paid and signed by payer (the tree's
//       creator), to leafOwner; index is the tree's num_minted, which becomes
//       the leaf's nonce and index. A V2 mint into a Core collection needs the
//       collection's BubblegumV2 plugin; payer must be its update authority.
// stdout: a JSON array, one entry per request: {"instructions": [{programId,
// accounts: [{pubkey, isSigner, isWritable}], data (base64)}], "leaf": {assetId,
// leafHash, dataHash, creatorHash, collectionHash?, assetDataHash?, flags?}}
// (hashes base58; leaf only for mint).
'use strict';
const { createUmi } = require('@metaplex-foundation/umi-bundle-defaults');
const { publicKey, createNoopSigner, none, some } = require('@metaplex-foundation/umi');
const bg = require('@metaplex-foundation/mpl-bubblegum');

const b58 = (bytes) => publicKey(bytes).toString();

function newUmi(payer) {
  // The endpoint is never dialled: building instructions needs no RPC.
  const umi = createUmi('http://127.0.0.1:9').use(bg.mplBubblegum());
  const s = createNoopSigner(publicKey(payer));
  umi.identity = s;
  umi.payer = s;
  return umi;
}

function createTreeConfig(req) {
  const umi = newUmi(req.payer);
  const input = {
    merkleTree: publicKey(req.merkleTree),
    payer: umi.payer,
    treeCreator: umi.payer,
    maxDepth: req.maxDepth,
    maxBufferSize: req.maxBufferSize,
    public: false,
  };
  if (req.v2) return { instructions: bg.createTreeConfigV2(umi, input).getInstructions() };
  return { instructions: bg.createTreeConfig(umi, input).getInstructions() };
}

function mint(req) {
  const umi = newUmi(req.payer);
  const merkleTree = publicKey(req.merkleTree);
  const leafOwner = publicKey(req.leafOwner);
  const [assetId] = bg.findLeafAssetIdPda(umi, { merkleTree, leafIndex: req.index });
  if (req.v2) {
    const collection = req.coreCollection ? some(publicKey(req.coreCollection)) : none();
    const metadata = {
      name: req.name, symbol: '', uri: req.uri, sellerFeeBasisPoints: 0, primarySaleHappened: false,
      isMutable: true, tokenStandard: some(bg.TokenStandard.NonFungible), creators: [], collection,
    };
    const input = { payer: umi.payer, treeCreatorOrDelegate: umi.payer, leafOwner, merkleTree, metadata };
    if (req.coreCollection) {
      input.coreCollection = publicKey(req.coreCollection);
      input.collectionAuthority = umi.payer;
    }
    return {
      instructions: bg.mintV2(umi, input).getInstructions(),
      leaf: {
        assetId: assetId.toString(),
        leafHash: b58(bg.hashLeafV2(umi, { merkleTree, owner: leafOwner, leafIndex: req.index, metadata })),
        dataHash: b58(bg.hashMetadataDataV2(metadata)),
        creatorHash: b58(bg.hashMetadataCreators(metadata.creators)),
        collectionHash: b58(bg.hashCollection(req.coreCollection ? publicKey(req.coreCollection) : publicKey(new Uint8Array(32)))),
        assetDataHash: b58(bg.hashAssetData()),
        flags: 0,
      },
    };
  }
  const metadata = {
    name: req.name, symbol: '', uri: req.uri, sellerFeeBasisPoints: 0, primarySaleHappened: false,
    isMutable: true, editionNonce: none(), tokenStandard: some(bg.TokenStandard.NonFungible),
    collection: none(), uses: none(), tokenProgramVersion: bg.TokenProgramVersion.Original,
    creators: [{ address: umi.payer.publicKey, verified: false, share: 100 }],
  };
  return {
    instructions: bg.mintV1(umi, { leafOwner, merkleTree, payer: umi.payer, treeCreatorOrDelegate: umi.payer, metadata }).getInstructions(),
    leaf: {
      assetId: assetId.toString(),
      leafHash: b58(bg.hashLeaf(umi, { merkleTree, owner: leafOwner, leafIndex: req.index, metadata })),
      dataHash: b58(bg.hashMetadataData(metadata)),
      creatorHash: b58(bg.hashMetadataCreators(metadata.creators)),
    },
  };
}

const kinds = { createTreeConfig, mint };

function toJSON(ix) {
  return {
    programId: ix.programId.toString(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toString(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((req) => {
    const build = kinds[req.kind];
    if (!build) throw new Error(`unknown kind ${req.kind}`);
    const r = build(req);
    return { instructions: r.instructions.map(toJSON), leaf: r.leaf };
  });
  process.stdout.write(JSON.stringify(out) + '\n');
});
