package assets

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// MPL Core assets. A wallet's assets are the Core program's AssetV1 accounts
// whose owner is the wallet: one getProgramAccounts with memcmp filters on
// the key byte (offset 0) and the owner (offset 1). Each is an nft item with
// action burn (Core's BurnV1); Lamports is what the burn moves to the wallet
// (mplcore.Refund under the cluster's Rent sysvar), not the account's
// lamports: the burn leaves a 1-byte stub holding one byte's rent. One more
// chunked read brings the Rent sysvar and the collections (for their names
// and plugins). An asset whose plugins, or whose collection's, refuse the
// owner's burn (a frozen FreezeDelegate or PermanentFreezeDelegate, a group:
// see package mplcore) is listed without actions, frozen when a freeze
// plugin is frozen. Not checked: external plugin adapters (lifecycle hooks,
// oracles); the build's simulation reports their refusals.

// CoreRPC is the part of solana-go's *rpc.Client that the Core source calls.
type CoreRPC interface {
	GetProgramAccountsWithOpts(ctx context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error)
	GetMultipleAccountsWithOpts(ctx context.Context, accounts []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error)
}

// CoreSource lists a wallet's MPL Core assets; it is a Source.
type CoreSource struct {
	rpc CoreRPC
}

// NewCoreSource reads the cluster through rpc.
func NewCoreSource(rpc CoreRPC) *CoreSource { return &CoreSource{rpc: rpc} }

// Name implements Source.
func (s *CoreSource) Name() string { return "core" }

// Items implements Source: the wallet's AssetV1 accounts, as nft items.
func (s *CoreSource) Items(ctx context.Context, wallet solana.PublicKey) ([]Item, error) {
	res, err := rpclimit.Call(ctx, func(ctx context.Context) (rpc.GetProgramAccountsResult, error) {
		return s.rpc.GetProgramAccountsWithOpts(ctx, mplcore.ProgramID, &rpc.GetProgramAccountsOpts{
			Commitment: commitment,
			Encoding:   solana.EncodingBase64,
			Filters: []rpc.RPCFilter{
				{Memcmp: &rpc.RPCFilterMemcmp{Offset: 0, Bytes: solana.Base58{byte(mplcore.KeyAssetV1)}}},
				{Memcmp: &rpc.RPCFilterMemcmp{Offset: mplcore.OwnerOffset, Bytes: solana.Base58(wallet.Bytes())}},
			},
		})
	})
	if err != nil {
		return nil, fmt.Errorf("get core assets of %s: %w", wallet, err)
	}
	var assets []coreAccount
	for _, ka := range res {
		if ka == nil || ka.Account == nil || !ka.Account.Owner.Equals(mplcore.ProgramID) {
			continue
		}
		if a, err := mplcore.ParseAsset(data(ka.Account)); err == nil && a.Owner.Equals(wallet) {
			assets = append(assets, coreAccount{address: ka.Pubkey, asset: a, size: uint64(len(data(ka.Account)))})
		}
	}
	return coreItems(ctx, &Discoverer{rpc: multipleOnly{s.rpc}}, assets)
}

// coreAccount is an AssetV1 as read.
type coreAccount struct {
	address solana.PublicKey
	asset   mplcore.Asset
	size    uint64
}

// coreItems turns assets into items, reading the Rent sysvar and the
// collections through d.
func coreItems(ctx context.Context, d *Discoverer, assets []coreAccount) ([]Item, error) {
	if len(assets) == 0 {
		return nil, nil
	}
	keys := []solana.PublicKey{solana.SysVarRentPubkey}
	seen := map[solana.PublicKey]bool{}
	for _, a := range assets {
		if c := a.asset.Collection; c != nil && !seen[*c] {
			seen[*c] = true
			keys = append(keys, *c)
		}
	}
	accs, err := d.accounts(ctx, keys)
	if err != nil {
		return nil, err
	}
	sysvar := rent.Parse(accs[0])
	collections := map[solana.PublicKey]mplcore.Collection{}
	for i, k := range keys[1:] {
		if a := accs[i+1]; a != nil && a.Owner.Equals(mplcore.ProgramID) {
			if c, err := mplcore.ParseCollection(data(a)); err == nil {
				collections[k] = c
			}
		}
	}
	items := make([]Item, len(assets))
	for i, a := range assets {
		it := Item{
			Type: TypeNFT, Address: a.address, Owner: a.asset.Owner, Mint: a.address, TokenProgram: mplcore.ProgramID,
			Name: cleanString(a.asset.Name), URI: cleanString(a.asset.URI), Amount: 1, UIBalance: 1,
			Actions: []Action{}, Core: &mplcore.BurnAccounts{Collection: a.asset.Collection},
		}
		refused := a.asset.BurnRefused
		it.IsFrozen = a.asset.Frozen
		if c := a.asset.Collection; c != nil {
			col := collections[*c]
			it.Collection = &Collection{Address: c.String(), Name: cleanString(col.Name)}
			refused = refused || col.FreezesAssets
			it.IsFrozen = it.IsFrozen || col.FreezesAssets
		}
		if refund, ok := mplcore.Refund(a.size, sysvar.MinimumBalance); ok {
			it.Lamports, it.Rent = refund, refund
			if !refused {
				it.Actions = append(it.Actions, ActionBurn)
			}
		}
		items[i] = it
	}
	return items, nil
}

// multipleOnly lets the Core source's reads use Discoverer.accounts, which
// calls only GetMultipleAccountsWithOpts.
type multipleOnly struct{ CoreRPC }

var errNotUsed = errors.New("not used by the core source")

func (multipleOnly) GetTokenAccountsByOwner(context.Context, solana.PublicKey, *rpc.GetTokenAccountsConfig, *rpc.GetTokenAccountsOpts) (*rpc.GetTokenAccountsResult, error) {
	return nil, errNotUsed
}
