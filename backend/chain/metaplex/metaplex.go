// Package metaplex speaks to Metaplex Token Metadata
// (metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s): the PDAs of an NFT's
// accounts, the layouts of the accounts a burn reads, the BurnV1
// instruction (burn_v1.go), and burn planning (burn_plan.go): which of a
// wallet's NFTs BurnV1 burns, with which accounts, for what refund, and
// whether the program would accept the burn now. Encoders follow the program's instruction
// definitions as Metaplex's generated clients serialize them, and are pinned
// byte for byte against @metaplex-foundation/mpl-token-metadata in
// burn_v1_test.go.
//
// What BurnV1 returns to the burning holder (programs/token-metadata,
// processor/burn and utils::close_program_account):
//   - the token account: all its lamports (SPL CloseAccount, after the burn;
//     a pNFT's account is thawed first with the edition as freeze authority);
//   - the master edition or print edition account: all its lamports;
//   - a pNFT's token record: all its lamports;
//   - the metadata account: only rent.minimum_balance(its data length). Any
//     lamports above that (Metaplex's creation fee) stay in the account,
//     which shrinks to a 1-byte Uninitialized stub; an account holding less
//     than that minimum makes the burn fail;
//   - a print's edition marker: all its lamports, but only when the marker
//     closes: the burner also holds the master edition (then the print's bit
//     is cleared) and no other bit of the marker is set.
//
// Refund sums them.
package metaplex

import (
	"crypto/sha256"
	"strconv"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// ProgramID is Token Metadata's program id.
var ProgramID = solana.TokenMetadataProgramID

// Seeds of the program's PDAs.
const (
	seedPrefix      = "metadata"
	seedEdition     = "edition"
	seedTokenRecord = "token_record"
	seedMarkerV2    = "marker"
)

// EditionMarkerBitSize is how many print numbers one (version 1) edition
// marker account covers.
const EditionMarkerBitSize = 248

// Key is the first byte of every Token Metadata account.
type Key uint8

// The account keys this package reads.
const (
	KeyUninitialized   Key = 0
	KeyEditionV1       Key = 1
	KeyMasterEditionV1 Key = 2
	KeyMetadataV1      Key = 4
	KeyMasterEditionV2 Key = 6
	KeyEditionMarker   Key = 7
	KeyTokenRecord     Key = 11
	KeyEditionMarkerV2 Key = 13
)

// TokenStandard is Metadata.token_standard.
type TokenStandard uint8

// The token standards.
const (
	NonFungible                    TokenStandard = 0
	FungibleAsset                  TokenStandard = 1
	Fungible                       TokenStandard = 2
	NonFungibleEdition             TokenStandard = 3
	ProgrammableNonFungible        TokenStandard = 4
	ProgrammableNonFungibleEdition TokenStandard = 5
)

// Programmable reports a pNFT standard: its token account is frozen by
// design, and a burn needs the token record.
func (s TokenStandard) Programmable() bool {
	return s == ProgrammableNonFungible || s == ProgrammableNonFungibleEdition
}

// Edition reports a print edition standard.
func (s TokenStandard) Edition() bool {
	return s == NonFungibleEdition || s == ProgrammableNonFungibleEdition
}

// pda is Token Metadata's address of seeds, remembered (pdas): deriving
// one tries bumps until a hash is off the curve, tens of microseconds
// each, and a wallet's listing and then its builds derive the same
// addresses of its NFTs again.
func pda(seeds ...[]byte) solana.PublicKey {
	h := sha256.New()
	for _, s := range seeds {
		h.Write([]byte{byte(len(s))})
		h.Write(s)
	}
	var k [32]byte
	h.Sum(k[:0])
	pdas.mu.Lock()
	addr, ok := pdas.m[k]
	pdas.mu.Unlock()
	if ok {
		return addr
	}
	addr, _, err := solana.FindProgramAddress(seeds, ProgramID)
	if err != nil {
		// Only when no bump gives an off-curve point, which does not happen for
		// these seeds; the zero key then reads as a missing account.
		return solana.PublicKey{}
	}
	pdas.mu.Lock()
	defer pdas.mu.Unlock()
	if len(pdas.m) >= maxPDAs {
		clear(pdas.m) // bounded: at most maxPDAs * 64 bytes of keys (about 1 MB)
	}
	pdas.m[k] = addr
	return addr
}

// maxPDAs bounds the addresses pda remembers: the edition, metadata and
// token record of 5,000 NFTs.
const maxPDAs = 15_000

var pdas = struct {
	mu sync.Mutex
	m  map[[32]byte]solana.PublicKey
}{m: map[[32]byte]solana.PublicKey{}}

// MetadataAddress is the metadata PDA of mint: ["metadata", program, mint].
func MetadataAddress(mint solana.PublicKey) solana.PublicKey {
	return pda([]byte(seedPrefix), ProgramID[:], mint[:])
}

// EditionAddress is the (master or print) edition PDA of mint:
// ["metadata", program, mint, "edition"].
func EditionAddress(mint solana.PublicKey) solana.PublicKey {
	return pda([]byte(seedPrefix), ProgramID[:], mint[:], []byte(seedEdition))
}

// TokenRecordAddress is the token record PDA of a pNFT's token account:
// ["metadata", program, mint, "token_record", token].
func TokenRecordAddress(mint, token solana.PublicKey) solana.PublicKey {
	return pda([]byte(seedPrefix), ProgramID[:], mint[:], []byte(seedTokenRecord), token[:])
}

// EditionMarkerAddress is the version 1 edition marker of print number
// edition of masterMint: ["metadata", program, masterMint, "edition",
// decimal(edition / 248)].
func EditionMarkerAddress(masterMint solana.PublicKey, edition uint64) solana.PublicKey {
	n := strconv.FormatUint(edition/EditionMarkerBitSize, 10)
	return pda([]byte(seedPrefix), ProgramID[:], masterMint[:], []byte(seedEdition), []byte(n))
}

// EditionMarkerV2Address is the single edition marker of a programmable
// master edition: ["metadata", program, masterMint, "edition", "marker"].
func EditionMarkerV2Address(masterMint solana.PublicKey) solana.PublicKey {
	return pda([]byte(seedPrefix), ProgramID[:], masterMint[:], []byte(seedEdition), []byte(seedMarkerV2))
}
