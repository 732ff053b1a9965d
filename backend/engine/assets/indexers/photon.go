package indexers

import (
	"context"
	"strconv"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/photon"
)

// CompressedTokenProgramID is Light Protocol's compressed token program: the
// TokenProgram of a zk_compressed_token item.
var CompressedTokenProgramID = solana.MustPublicKeyFromBase58("cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m")

// PhotonAccounts lists a wallet's compressed token accounts; *photon.Client
// is one.
type PhotonAccounts interface {
	TokenAccountsByOwner(ctx context.Context, owner string) ([]photon.TokenAccount, error)
}

// PhotonSource is the assets.Source of a Photon indexer.
type PhotonSource struct{ accounts PhotonAccounts }

// NewPhotonSource lists through accounts.
func NewPhotonSource(accounts PhotonAccounts) *PhotonSource {
	return &PhotonSource{accounts: accounts}
}

// Name implements assets.Source.
func (s *PhotonSource) Name() string { return "photon" }

// Items implements assets.Source: zk_compressed_token items without actions
// (see the package comment). Accounts of another owner, or whose hash or mint
// is not 32 bytes of base58, are skipped.
func (s *PhotonSource) Items(ctx context.Context, wallet solana.PublicKey) ([]assets.Item, error) {
	accs, err := s.accounts.TokenAccountsByOwner(ctx, wallet.String())
	if err != nil {
		return nil, err
	}
	var items []assets.Item
	for _, a := range accs {
		hash, err1 := solana.PublicKeyFromBase58(a.Account.Hash)
		mint, err2 := solana.PublicKeyFromBase58(a.TokenData.Mint)
		if err1 != nil || err2 != nil || a.TokenData.Owner != wallet.String() {
			continue
		}
		amount, _ := strconv.ParseUint(a.TokenData.Amount.String(), 10, 64)
		items = append(items, assets.Item{
			Type: assets.TypeZKCompressedToken, Address: hash, Owner: wallet, Mint: mint,
			TokenProgram: CompressedTokenProgramID, Lamports: a.Account.Lamports, Amount: amount,
			IsFrozen: a.TokenData.State == "frozen", Actions: []assets.Action{},
		})
	}
	return items, nil
}
