// Package mplcore speaks to Metaplex Core
// (CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d): the AssetV1 and
// CollectionV1 account layouts and the BurnV1 instruction (burn_v1.go),
// pinned byte for byte against @metaplex-foundation/mpl-core in
// burn_v1_test.go.
//
// A Core asset is one account owned by the program. BurnV1 does not close it
// (programs/mpl-core/src/utils/account.rs, close_program_account): it moves
// rent.minimum_balance(data length) - rent.minimum_balance(1) to the payer
// and leaves a 1-byte stub whose byte is Key::Uninitialized, holding the
// rent of one byte and any lamports above the account's minimum. Refund
// computes that.
package mplcore

import (
	"errors"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
)

// ProgramID is Metaplex Core's program id.
var ProgramID = solana.MustPublicKeyFromBase58("CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d")

// Key is the first byte of every Core account.
type Key uint8

// The account keys.
const (
	KeyUninitialized    Key = 0
	KeyAssetV1          Key = 1
	KeyHashedAssetV1    Key = 2
	KeyPluginHeaderV1   Key = 3
	KeyPluginRegistryV1 Key = 4
	KeyCollectionV1     Key = 5
)

// OwnerOffset is where AssetV1's owner starts: after the key byte. A
// getProgramAccounts filter memcmp {0: [1]} and {1: owner} lists a wallet's
// assets.
const OwnerOffset = 1

// UpdateAuthority kinds of AssetV1 (BaseUpdateAuthority).
const (
	UpdateAuthorityNone       = 0
	UpdateAuthorityAddress    = 1
	UpdateAuthorityCollection = 2
)

// ErrLayout is data that is not the account expected (an AssetV1, a
// CollectionV1, their plugin registry).
var ErrLayout = errors.New("mplcore: not an AssetV1 account")

// Asset is the part of an AssetV1 account discovery and burning need.
type Asset struct {
	Owner solana.PublicKey
	// Collection is the asset's collection: its update authority when that
	// is of kind Collection; nil otherwise. A burn must pass it.
	Collection *solana.PublicKey
	Name, URI  string
	// Frozen is set when a freeze plugin of the asset is frozen; BurnRefused
	// when a plugin of the asset refuses its owner's burn: frozen, or held
	// in a group (see plugins.go). Its collection's plugins may refuse the
	// burn too (Collection.FreezesAssets).
	Frozen, BurnRefused bool
}

// ParseAsset reads an AssetV1: key 1, owner 32, update_authority (u8 kind,
// then 32 bytes for Address and Collection), name, uri (u32-length
// strings), seq Option<u64>, then its plugins (plugins.go).
func ParseAsset(data []byte) (Asset, error) {
	r := borsh.NewReader(data)
	if Key(r.U8()) != KeyAssetV1 {
		return Asset{}, ErrLayout
	}
	a := Asset{Owner: r.Pubkey()}
	switch kind := r.U8(); kind {
	case UpdateAuthorityNone:
	case UpdateAuthorityAddress, UpdateAuthorityCollection:
		c := r.Pubkey()
		if kind == UpdateAuthorityCollection {
			a.Collection = &c
		}
	default:
		return Asset{}, ErrLayout
	}
	a.Name, a.URI = r.Str(), r.Str()
	if r.U8() == 1 {
		r.Skip(8)
	}
	if r.Err() != nil {
		return Asset{}, ErrLayout
	}
	plugins, err := readPlugins(data, r.Offset())
	if err != nil {
		return Asset{}, err
	}
	v := verdictOf(plugins)
	a.Frozen, a.BurnRefused = v.frozen, v.frozen || v.grouped
	return a, nil
}

// Collection is the part of a CollectionV1 account discovery reads.
type Collection struct {
	UpdateAuthority solana.PublicKey
	Name, URI       string
	// NumMinted and CurrentSize count the assets ever created in it and
	// those that exist: burning one decrements CurrentSize.
	NumMinted, CurrentSize uint32
	// FreezesAssets is set when a plugin of the collection refuses the
	// burn of its assets: a frozen PermanentFreezeDelegate (the only freeze
	// plugin a collection can have; its Groups refuse only the collection's
	// own burn).
	FreezesAssets bool
}

// ParseCollection reads a CollectionV1: key 5, update_authority 32, name,
// uri (u32-length strings), num_minted u32, current_size u32, then its
// plugins (plugins.go).
func ParseCollection(data []byte) (Collection, error) {
	r := borsh.NewReader(data)
	if Key(r.U8()) != KeyCollectionV1 {
		return Collection{}, ErrLayout
	}
	c := Collection{UpdateAuthority: r.Pubkey(), Name: r.Str(), URI: r.Str(), NumMinted: r.U32(), CurrentSize: r.U32()}
	if r.Err() != nil {
		return Collection{}, ErrLayout
	}
	plugins, err := readPlugins(data, r.Offset())
	if err != nil {
		return Collection{}, err
	}
	c.FreezesAssets = verdictOf(plugins).frozen
	return c, nil
}

// Refund is the lamports BurnV1 moves to the payer for an asset of size
// bytes: minimumBalance(size) - minimumBalance(1), with minimumBalance from
// the cluster's Rent sysvar. ok is false when that would underflow (an
// account of under 1 byte is not an asset).
func Refund(size uint64, minimumBalance func(size uint64) uint64) (lamports uint64, ok bool) {
	full, stub := minimumBalance(size), minimumBalance(1)
	if size < 1 || full < stub {
		return 0, false
	}
	return full - stub, true
}
