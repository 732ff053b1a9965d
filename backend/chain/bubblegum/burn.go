package bubblegum

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// BurnDiscriminator is the Anchor discriminator of `burn`.
var BurnDiscriminator = [8]byte{116, 110, 29, 56, 107, 219, 42, 93}

// Burn is the input of the `burn` instruction.
type Burn struct {
	// LeafOwner signs.
	LeafOwner solana.PublicKey
	// LeafDelegate is the leaf's delegate, or LeafOwner when it has none.
	LeafDelegate solana.PublicKey
	MerkleTree   solana.PublicKey
	// Root is the tree's root the proof leads to.
	Root [32]byte
	// DataHash and CreatorHash are the leaf's hashes.
	DataHash, CreatorHash [32]byte
	// Nonce is the leaf's nonce (DAS leaf_id) and Index its position.
	Nonce uint64
	Index uint32
	// Proof holds the siblings below the canopy, from the leaf up.
	Proof []solana.PublicKey
}

// Instruction encodes b: accounts tree_config, leaf_owner (signer),
// leaf_delegate, merkle_tree (writable), log_wrapper, compression_program,
// system_program, then the proof nodes read-only; data the discriminator, root,
// data_hash, creator_hash, nonce (u64 LE) and index (u32 LE).
func (b Burn) Instruction() *solana.GenericInstruction {
	accounts := solana.AccountMetaSlice{
		solana.Meta(TreeConfig(b.MerkleTree)),
		solana.Meta(b.LeafOwner).SIGNER(),
		solana.Meta(b.LeafDelegate),
		solana.Meta(b.MerkleTree).WRITE(),
		solana.Meta(NoopProgramID),
		solana.Meta(CompressionProgramID),
		solana.Meta(solana.SystemProgramID),
	}
	for _, p := range b.Proof {
		accounts = append(accounts, solana.Meta(p))
	}
	data := make([]byte, 0, 8+3*32+8+4)
	data = append(data, BurnDiscriminator[:]...)
	data = append(data, b.Root[:]...)
	data = append(data, b.DataHash[:]...)
	data = append(data, b.CreatorHash[:]...)
	data = binary.LittleEndian.AppendUint64(data, b.Nonce)
	data = binary.LittleEndian.AppendUint32(data, b.Index)
	return solana.NewInstruction(ProgramID, accounts, data)
}
