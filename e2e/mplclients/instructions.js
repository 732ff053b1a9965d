#!/usr/bin/env node
'use strict';
// Builds Metaplex instructions with Metaplex's official JS clients
// (@metaplex-foundation/mpl-token-metadata and @metaplex-foundation/mpl-core
// over umi) and prints them as JSON, so Go tests can compare Reclaim's
// encoders byte for byte and e2e tests can create NFTs with the real programs.
// No RPC is used: umi's connection is never called.
//
//   node instructions.js < requests.json
//
// Input: a JSON array of requests, each {"kind": ..., ...} (addresses in
// base58). Output: a JSON array, one entry per request:
// {"instructions": [{"programId", "accounts": [{"pubkey", "isSigner",
// "isWritable"}], "data": base64}]}.
//
// Kinds:
//   tmBurnV1     {authority, mint, token, tokenStandard ("NonFungible",
//                "ProgrammableNonFungible", "NonFungibleEdition", ...),
//                collectionMint?, masterEditionMint?, masterEditionToken?,
//                editionNumber?, splTokenProgram?}
//   coreBurnV1   {asset, payer, collection?}
//   tmCreateNft  {authority, mint, tokenStandard, name, uri, collectionMint?,
//                isCollection?, sizedCollection?, printSupply?, ruleSet?,
//                tokenOwner?, splTokenProgram?}: CreateV1 then MintV1 of one
//                token to tokenOwner's (default: the authority's) associated
//                token account. printSupply is "Zero" (the default),
//                "Unlimited" or a number (Limited); sizedCollection makes a
//                collection whose size Token Metadata counts (CollectionDetails
//                V1), isCollection one it does not (V2)
//   tmPrintV1    {authority, masterMint, editionMint, editionNumber,
//                tokenOwner?, splTokenProgram?}: print editionNumber of the
//                master the authority holds, to tokenOwner (default: the
//                authority)
//   tmVerifyCollection {authority, mint, collectionMint}: VerifyCollectionV1
//                of mint's metadata by the collection's update authority
//   coreCreateV1 {asset, payer, name, uri, collection?, owner?, frozen?}:
//                frozen adds a FreezeDelegate plugin, frozen
//   coreCreateCollectionV1 {collection, payer, name, uri, frozen?,
//                bubblegumV2?}: frozen adds a PermanentFreezeDelegate,
//                frozen; bubblegumV2 the BubblegumV2 plugin (compressed
//                V2 leaves may then join the collection)

const { createUmi } = require('@metaplex-foundation/umi-bundle-defaults');
const { createNoopSigner, publicKey, none, some, percentAmount } = require('@metaplex-foundation/umi');
const tm = require('@metaplex-foundation/mpl-token-metadata');
const core = require('@metaplex-foundation/mpl-core');
const { findAssociatedTokenPda } = require('@metaplex-foundation/mpl-toolbox');

function newUmi(payer) {
  const umi = createUmi('http://127.0.0.1:1').use(tm.mplTokenMetadata()).use(core.mplCore());
  if (payer) {
    const s = createNoopSigner(publicKey(payer));
    umi.identity = s;
    umi.payer = s;
  }
  return umi;
}

const standard = (name) => {
  const v = tm.TokenStandard[name];
  if (v === undefined) throw new Error(`unknown token standard ${name}`);
  return v;
};

const tokenProgram = (req) => (req.splTokenProgram ? publicKey(req.splTokenProgram) : undefined);

function tmBurnV1(req) {
  const umi = newUmi(req.authority);
  const input = {
    authority: createNoopSigner(publicKey(req.authority)),
    mint: publicKey(req.mint),
    token: publicKey(req.token),
    tokenOwner: publicKey(req.authority),
    tokenStandard: standard(req.tokenStandard),
    amount: 1,
  };
  if (req.collectionMint) input.collectionMetadata = tm.findMetadataPda(umi, { mint: publicKey(req.collectionMint) });
  if (req.masterEditionMint) {
    input.masterEditionMint = publicKey(req.masterEditionMint);
    input.masterEditionToken = publicKey(req.masterEditionToken);
    input.editionMarker = req.tokenStandard === 'ProgrammableNonFungibleEdition'
      ? tm.findEditionMarkerV2Pda(umi, { mint: publicKey(req.masterEditionMint) })
      : tm.findEditionMarkerPda(umi, {
        mint: publicKey(req.masterEditionMint),
        editionMarker: String(Math.floor(Number(req.editionNumber) / 248)),
      });
  }
  if (req.tokenStandard === 'ProgrammableNonFungibleEdition') {
    // The program requires the token record of every programmable standard
    // (processor/burn/burn.rs); the client defaults it only for
    // ProgrammableNonFungible.
    input.tokenRecord = tm.findTokenRecordPda(umi, { mint: publicKey(req.mint), token: publicKey(req.token) });
  }
  if (req.splTokenProgram) input.splTokenProgram = tokenProgram(req);
  return tm.burnV1(umi, input).getInstructions();
}

function coreBurnV1(req) {
  const umi = newUmi(req.payer);
  const input = { asset: publicKey(req.asset), payer: createNoopSigner(publicKey(req.payer)) };
  if (req.collection) input.collection = publicKey(req.collection);
  return core.burnV1(umi, input).getInstructions();
}

function tmCreateNft(req) {
  const umi = newUmi(req.authority);
  const authority = createNoopSigner(publicKey(req.authority));
  const mint = createNoopSigner(publicKey(req.mint));
  const ts = standard(req.tokenStandard);
  const create = {
    mint,
    authority,
    payer: authority,
    updateAuthority: authority,
    name: req.name,
    uri: req.uri,
    sellerFeeBasisPoints: percentAmount(0),
    tokenStandard: ts,
    isCollection: Boolean(req.isCollection),
    collection: req.collectionMint ? some({ key: publicKey(req.collectionMint), verified: false }) : none(),
  };
  if (req.sizedCollection) create.collectionDetails = some(tm.collectionDetails('V1', { size: 0 }));
  if (req.printSupply !== undefined) {
    create.printSupply = typeof req.printSupply === 'number'
      ? some(tm.printSupply('Limited', [req.printSupply]))
      : some(tm.printSupply(req.printSupply));
  }
  if (req.ruleSet) create.ruleSet = some(publicKey(req.ruleSet));
  const owner = publicKey(req.tokenOwner || req.authority);
  if (req.splTokenProgram) create.splTokenProgram = tokenProgram(req);
  const token = findAssociatedTokenPda(umi, {
    mint: publicKey(req.mint),
    owner,
    tokenProgramId: tokenProgram(req),
  });
  const mintIx = {
    mint: publicKey(req.mint),
    authority,
    payer: authority,
    token,
    tokenOwner: owner,
    amount: 1,
    tokenStandard: ts,
  };
  if (req.splTokenProgram) mintIx.splTokenProgram = tokenProgram(req);
  return [...tm.createV1(umi, create).getInstructions(), ...tm.mintV1(umi, mintIx).getInstructions()];
}

function tmVerifyCollection(req) {
  const umi = newUmi(req.authority);
  return tm.verifyCollectionV1(umi, {
    authority: createNoopSigner(publicKey(req.authority)),
    metadata: tm.findMetadataPda(umi, { mint: publicKey(req.mint) }),
    collectionMint: publicKey(req.collectionMint),
  }).getInstructions();
}

function tmPrintV1(req) {
  const umi = newUmi(req.authority);
  const authority = createNoopSigner(publicKey(req.authority));
  const input = {
    masterTokenAccountOwner: authority,
    masterEditionMint: publicKey(req.masterMint),
    editionMint: createNoopSigner(publicKey(req.editionMint)),
    editionTokenAccountOwner: publicKey(req.tokenOwner || req.authority),
    editionNumber: Number(req.editionNumber),
    tokenStandard: standard(req.tokenStandard || 'NonFungible'),
    payer: authority,
  };
  if (req.splTokenProgram) input.splTokenProgram = tokenProgram(req);
  return tm.printV1(umi, input).getInstructions();
}

function coreCreateV1(req) {
  const umi = newUmi(req.payer);
  const input = {
    asset: createNoopSigner(publicKey(req.asset)),
    payer: createNoopSigner(publicKey(req.payer)),
    name: req.name,
    uri: req.uri,
  };
  if (req.collection) input.collection = publicKey(req.collection);
  if (req.owner) input.owner = publicKey(req.owner);
  if (req.frozen) input.plugins = [core.pluginAuthorityPairV2({ type: 'FreezeDelegate', frozen: true })];
  return core.createV1(umi, input).getInstructions();
}

function coreCreateCollectionV1(req) {
  const umi = newUmi(req.payer);
  const plugins = [];
  if (req.frozen) plugins.push(core.pluginAuthorityPairV2({ type: 'PermanentFreezeDelegate', frozen: true }));
  if (req.bubblegumV2) plugins.push(core.pluginAuthorityPairV2({ type: 'BubblegumV2' }));
  return core.createCollectionV1(umi, {
    collection: createNoopSigner(publicKey(req.collection)),
    payer: createNoopSigner(publicKey(req.payer)),
    name: req.name,
    uri: req.uri,
    plugins: plugins.length > 0 ? plugins : undefined,
  }).getInstructions();
}

const kinds = { tmBurnV1, coreBurnV1, tmCreateNft, tmVerifyCollection, tmPrintV1, coreCreateV1, coreCreateCollectionV1 };

function toJSON(ix) {
  return {
    programId: ix.programId.toString(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toString(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}

function main() {
  const input = require('fs').readFileSync(0, 'utf8');
  const out = JSON.parse(input).map((req) => {
    const build = kinds[req.kind];
    if (!build) throw new Error(`unknown kind ${req.kind}`);
    return { instructions: build(req).map(toJSON) };
  });
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

main();
