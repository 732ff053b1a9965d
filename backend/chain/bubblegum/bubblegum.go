// Package bubblegum builds instructions of Metaplex Bubblegum, the program of
// compressed NFTs (cNFTs): `burn`, for leaves of Bubblegum V1 trees (SPL
// Account Compression with the SPL Noop log wrapper), and `burn_v2`, for
// leaves of V2 trees (MPL Account Compression with MPL Noop).
//
// A cNFT is a leaf of a concurrent Merkle tree account; burning it replaces
// the leaf with an empty one. It returns no lamports: the tree account, paid
// for by the tree's creator, stays as it is. The burn proves the leaf with
// the tree's current root and the leaf's siblings, which come from a DAS
// indexer (getAsset: data_hash, creator_hash, leaf_id; getAssetProof: root,
// proof, node_index). The tree keeps the top canopy-depth levels of nodes
// on chain, so only the first maxDepth - canopyDepth siblings go into the
// instruction, as remaining accounts: ParseTree reads the canopy depth from
// the tree account's header and size (an indexer's proof always has maxDepth
// nodes; package cnft, which plans a burn, truncates it, exactly as
// mpl-bubblegum's getAssetWithProof({truncateCanopy: true})).
//
// A V2 leaf also has flags (frozen by its owner's delegate or a permanent
// delegate: then it cannot burn), an asset-data hash and the hash of its MPL
// Core collection, which burn_v2 must name (the program decrements the
// collection's size). Package cnft builds burn_v2 from the indexer's V2
// fields and grouping.
//
// The encoding is pinned byte for byte against @metaplex-foundation/mpl-bubblegum
// (the end-to-end suite's bubblegumclient): testdata/burn.golden, checked against node when it
// is installed (and always with CI=true).
package bubblegum

import (
	"github.com/gagliardetto/solana-go"
)

// Program addresses.
var (
	// ProgramID is Metaplex Bubblegum.
	ProgramID = solana.MustPublicKeyFromBase58("BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY")
	// NoopProgramID is SPL Noop, the log wrapper of V1 trees.
	NoopProgramID = solana.MustPublicKeyFromBase58("noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV")
	// CompressionProgramID is SPL Account Compression, the owner of V1 trees.
	CompressionProgramID = solana.MustPublicKeyFromBase58("cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK")
	// MPLCompressionProgramID is MPL Account Compression, the owner of V2
	// trees.
	MPLCompressionProgramID = solana.MustPublicKeyFromBase58("mcmt6YrQEMKw8Mw43FmpRLmf7BqRnFMKmAcbxE3xkAW")
	// MPLNoopProgramID is MPL Noop, the log wrapper of V2 trees.
	MPLNoopProgramID = solana.MustPublicKeyFromBase58("mnoopTCrg4p8ry25e4bcWA9XZjbNjMTfgYVGGEdRsf3")
)

// TreeConfig is the tree_authority PDA of a Merkle tree: seeds [tree].
func TreeConfig(tree solana.PublicKey) solana.PublicKey {
	pda, _, err := solana.FindProgramAddress([][]byte{tree[:]}, ProgramID)
	if err != nil {
		// A single 32-byte seed always finds a bump.
		panic(err)
	}
	return pda
}
