package metaplex

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
)

// Layouts of the Token Metadata accounts a burn reads (Borsh, little-endian),
// as programs/token-metadata/program/src/state defines them.

// ErrLayout is data that is not the account expected.
var ErrLayout = errors.New("metaplex: not the expected account")

// Collection is Metadata.collection.
type Collection struct {
	Verified bool
	Key      solana.PublicKey
}

// Metadata is the part of a Metadata account discovery and burning need.
type Metadata struct {
	UpdateAuthority   solana.PublicKey
	Mint              solana.PublicKey
	Name, Symbol, URI string
	// EditionNonce, TokenStandard and Collection are nil when None, and when
	// the account (written by an old program version) ends before them.
	EditionNonce  *uint8
	TokenStandard *TokenStandard
	Collection    *Collection
}

// ParseMetadata reads a Metadata account: key 4, update_authority, mint,
// name, symbol, uri (u32-length strings), seller_fee_basis_points u16,
// creators Option<Vec<{address, verified, share}>>, primary_sale_happened,
// is_mutable, edition_nonce Option<u8>, token_standard Option<u8>,
// collection Option<{verified, key}>, then fields not read.
func ParseMetadata(data []byte) (Metadata, error) {
	r := borsh.NewReader(data)
	if Key(r.U8()) != KeyMetadataV1 {
		return Metadata{}, ErrLayout
	}
	md := Metadata{UpdateAuthority: r.Pubkey(), Mint: r.Pubkey(), Name: r.Str(), Symbol: r.Str(), URI: r.Str()}
	if r.Err() != nil {
		return Metadata{}, ErrLayout
	}
	r.Skip(2)
	if r.U8() == 1 {
		r.Skip(34 * int(r.U32()))
	}
	r.Skip(2)
	if r.Err() != nil {
		return md, nil //nolint:nilerr // an old account ends here: the options that follow are None
	}
	if r.U8() == 1 {
		n := r.U8()
		if r.Err() == nil {
			md.EditionNonce = &n
		}
	}
	if r.U8() == 1 {
		s := TokenStandard(r.U8())
		if r.Err() == nil {
			md.TokenStandard = &s
		}
	}
	if r.U8() == 1 {
		c := Collection{Verified: r.U8() == 1, Key: r.Pubkey()}
		if r.Err() == nil {
			md.Collection = &c
		}
	}
	return md, nil
}

// MetadataAccount is a Metadata account as read from the cluster: what a
// burn's refund needs beyond its fields.
type MetadataAccount struct {
	Address  solana.PublicKey
	Metadata Metadata
	Lamports uint64
	// Size is the data length: the metadata returns the rent-exempt minimum
	// of it.
	Size uint64
}

// ReadMetadataAccount parses a (the metadata PDA of mint, as read): nil
// unless Token Metadata owns it and it is the metadata of mint.
func ReadMetadataAccount(a *rpc.Account, mint solana.PublicKey) *MetadataAccount {
	if a == nil || !a.Owner.Equals(ProgramID) || a.Data == nil {
		return nil
	}
	data := a.Data.GetBinary()
	md, err := ParseMetadata(data)
	if err != nil || md.Mint != mint {
		return nil
	}
	return &MetadataAccount{Address: MetadataAddress(mint), Metadata: md, Lamports: a.Lamports, Size: uint64(len(data))}
}

// MasterEdition is a master edition account (key 2 or 6).
type MasterEdition struct {
	// Supply is the number of prints in existence; a master edition with
	// prints cannot be burned.
	Supply uint64
}

// ParseMasterEdition reads key, supply u64, then fields not read.
func ParseMasterEdition(data []byte) (MasterEdition, error) {
	if len(data) < 9 || (Key(data[0]) != KeyMasterEditionV1 && Key(data[0]) != KeyMasterEditionV2) {
		return MasterEdition{}, ErrLayout
	}
	return MasterEdition{Supply: binary.LittleEndian.Uint64(data[1:9])}, nil
}

// Edition is a print edition account (key 1).
type Edition struct {
	// Parent is the master edition PDA (not its mint).
	Parent solana.PublicKey
	// Number is the print's edition number.
	Number uint64
}

// ParseEdition reads key 1, parent pubkey, edition u64.
func ParseEdition(data []byte) (Edition, error) {
	if len(data) < 41 || Key(data[0]) != KeyEditionV1 {
		return Edition{}, ErrLayout
	}
	return Edition{Parent: solana.PublicKeyFromBytes(data[1:33]), Number: binary.LittleEndian.Uint64(data[33:41])}, nil
}

// TokenState is a pNFT token record's state.
type TokenState uint8

// Token record states: only Unlocked can be burned.
const (
	Unlocked TokenState = 0
	Locked   TokenState = 1
	Listed   TokenState = 2
)

// TokenRecord is a pNFT token account's record (key 11).
type TokenRecord struct {
	State TokenState
	// Delegate and DelegateRole are nil when no token delegate is set.
	Delegate     *solana.PublicKey
	DelegateRole *uint8
}

// ParseTokenRecord reads key 11, bump u8, state u8, rule_set_revision
// Option<u64>, delegate Option<Pubkey>, delegate_role Option<u8>, then
// fields not read.
func ParseTokenRecord(data []byte) (TokenRecord, error) {
	r := borsh.NewReader(data)
	if Key(r.U8()) != KeyTokenRecord {
		return TokenRecord{}, ErrLayout
	}
	r.Skip(1)
	tr := TokenRecord{State: TokenState(r.U8())}
	if r.U8() == 1 {
		r.Skip(8)
	}
	if r.U8() == 1 {
		d := r.Pubkey()
		tr.Delegate = &d
	}
	if r.U8() == 1 {
		role := r.U8()
		tr.DelegateRole = &role
	}
	if r.Err() != nil {
		return TokenRecord{}, ErrLayout
	}
	return tr, nil
}

// MarkerClosesOnBurn reports whether burning print number edition closes
// its edition marker (data), returning the marker's lamports to the burner.
// The program clears the print's bit only when the burner also owns the
// master edition's token (holdsMaster), then closes the marker when no bit
// is left: version 1 markers (key 7, ledger [u8; 31] covering 248 prints)
// and version 2 (key 13, ledger Vec<u8> covering every print of a
// programmable master edition) alike. Data that is neither reads as false.
func MarkerClosesOnBurn(data []byte, edition uint64, holdsMaster bool) bool {
	if !holdsMaster {
		return MarkerClosesOnBurns(data)
	}
	return MarkerClosesOnBurns(data, edition)
}

// MarkerClosesOnBurns reports whether burning the prints numbered editions
// of the marker (data), one after the other by the holder of their master
// edition, closes it: the last burn clears the last bit.
func MarkerClosesOnBurns(data []byte, editions ...uint64) bool {
	var ledger []byte
	v1 := len(data) == 32 && Key(data[0]) == KeyEditionMarker
	switch {
	case v1:
		ledger = data[1:]
	case len(data) >= 5 && Key(data[0]) == KeyEditionMarkerV2:
		n := binary.LittleEndian.Uint32(data[1:5])
		if uint64(n) > uint64(len(data)-5) {
			return false
		}
		ledger = data[5 : 5+n]
	default:
		return false
	}
	ledger = append([]byte(nil), ledger...)
	for _, edition := range editions {
		bit := edition
		if v1 {
			bit = edition % EditionMarkerBitSize
		}
		if bit/8 < uint64(len(ledger)) {
			ledger[bit/8] &^= 1 << (7 - bit%8)
		}
	}
	for _, b := range ledger {
		if b != 0 {
			return false
		}
	}
	return true
}
