package bubblegum

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"golang.org/x/crypto/sha3"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
)

// BurnV2Discriminator is the Anchor discriminator of `burn_v2`.
var BurnV2Discriminator = [8]byte{115, 210, 34, 240, 232, 143, 183, 16}

// MPLCoreCPISigner is the PDA ["mpl_core_cpi_signer"] of Bubblegum that
// signs its CPIs to MPL Core (a V2 leaf's collection size).
var MPLCoreCPISigner = solana.MustPublicKeyFromBase58("CbNY3JiXdXNE9tPNEk1aRZVEkWdj2v7kfJLNQwZZgpXk")

// BurnV2 is the input of `burn_v2`, the burn of a leaf of a Bubblegum V2
// tree (MPL Account Compression, MPL Noop) by its owner, who pays.
type BurnV2 struct {
	// LeafOwner signs and pays (the payer; authority defaults to it).
	LeafOwner solana.PublicKey
	// LeafDelegate is the leaf's delegate, or LeafOwner when it has none
	// (then the account is left out, as Metaplex's clients do).
	LeafDelegate solana.PublicKey
	MerkleTree   solana.PublicKey
	// CoreCollection is the leaf's MPL Core collection, nil when it has
	// none: the program hashes it into the leaf and decrements its size.
	CoreCollection *solana.PublicKey
	Root           [32]byte
	// DataHash and CreatorHash are the leaf's hashes; AssetDataHash and
	// Flags its V2 fields, always passed (the program defaults them when
	// absent).
	DataHash, CreatorHash, AssetDataHash [32]byte
	Flags                                uint8
	Nonce                                uint64
	Index                                uint32
	// Proof holds the siblings below the canopy, from the leaf up.
	Proof []solana.PublicKey
}

// Instruction encodes b: accounts tree_config (w), payer (w, s), authority
// (absent), leaf_owner, leaf_delegate (absent when the owner), merkle_tree
// (w), core_collection (w, or absent), mpl_core_cpi_signer (with the
// collection), log_wrapper (MPL Noop), compression_program (MPL Account
// Compression), mpl_core_program, system_program, then the proof nodes;
// an absent optional account is the Bubblegum program id, read-only, as
// Metaplex's clients pass it. Data: the discriminator, root, data_hash,
// creator_hash, asset_data_hash Some, flags Some, nonce (u64 LE), index
// (u32 LE).
func (b BurnV2) Instruction() *solana.GenericInstruction {
	absent := solana.Meta(ProgramID)
	delegate := absent
	if b.LeafDelegate != b.LeafOwner {
		delegate = solana.Meta(b.LeafDelegate)
	}
	collection, signer := absent, absent
	if b.CoreCollection != nil {
		collection, signer = solana.Meta(*b.CoreCollection).WRITE(), solana.Meta(MPLCoreCPISigner)
	}
	accounts := solana.AccountMetaSlice{
		solana.Meta(TreeConfig(b.MerkleTree)).WRITE(),
		solana.Meta(b.LeafOwner).WRITE().SIGNER(),
		absent,
		solana.Meta(b.LeafOwner),
		delegate,
		solana.Meta(b.MerkleTree).WRITE(),
		collection,
		signer,
		solana.Meta(MPLNoopProgramID),
		solana.Meta(MPLCompressionProgramID),
		solana.Meta(mplcore.ProgramID),
		solana.Meta(solana.SystemProgramID),
	}
	for _, p := range b.Proof {
		accounts = append(accounts, solana.Meta(p))
	}
	data := make([]byte, 0, 8+5*32+4+8+4)
	data = append(data, BurnV2Discriminator[:]...)
	data = append(data, b.Root[:]...)
	data = append(data, b.DataHash[:]...)
	data = append(data, b.CreatorHash[:]...)
	data = append(data, 1)
	data = append(data, b.AssetDataHash[:]...)
	data = append(data, 1, b.Flags)
	data = binary.LittleEndian.AppendUint64(data, b.Nonce)
	data = binary.LittleEndian.AppendUint32(data, b.Index)
	return solana.NewInstruction(ProgramID, accounts, data)
}

// The hashes the program uses for a V2 leaf's absent fields: keccak256 of
// the zero key (no collection) and of no bytes (no asset data).
var (
	DefaultCollectionHash = Keccak(make([]byte, 32))
	DefaultAssetDataHash  = Keccak(nil)
)

// Keccak is keccak256 of the concatenated parts, the hash of Bubblegum's
// leaves and Merkle trees.
func Keccak(parts ...[]byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
