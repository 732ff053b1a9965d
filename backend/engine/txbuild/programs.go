package txbuild

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// The extension point for items that programs other than the token programs
// burn: discovery marks them (assets.Item.Metaplex, assets.Item.Core) with
// the accounts the burn needs, and sets Item.Lamports to exactly what the
// burn returns to the wallet, so the money rules hold unchanged. A new
// program adds a field to assets.Item, a case here and in itemInstructions,
// and an estimate in estimateUnits.
//
// Compressed NFTs are the one kind whose instruction comes from outside
// discovery: a CNFTPlanner (cnft.Planner) builds Bubblegum's burn or
// burn_v2 from the indexer's asset and proof when Build starts (planCNFTs),
// and the item carries it (Selected.burn). Their Lamports are 0.

// Compute estimates of the Metaplex burns while packing (see pack.go): a
// Token Metadata BurnV1 runs the token program two or three times (thaw,
// burn, close) and closes up to four accounts; Core's BurnV1 validates the
// asset's plugins and shrinks it.
const (
	unitsMetaplexBurn = 150_000
	unitsCoreBurn     = 50_000
	// A Bubblegum burn hashes the proof (up to 30 levels, keccak), writes
	// the tree's change log and logs the change through SPL Noop.
	unitsBubblegumBurn = 100_000
)

// Compute estimates of the accounts reclaimed by one instruction of a
// builtin or a small program: WithdrawExcessLamports (p-token spends a few
// hundred units, Token-2022 a few thousand), the loader's Close, the System
// program's WithdrawNonceAccount, the stake program's Withdraw (core BPF,
// which reads the StakeHistory sysvar).
const (
	unitsWithdrawExcess = 10_000
	unitsBufferClose    = 10_000
	unitsNonceWithdraw  = 5_000
	unitsStakeWithdraw  = 30_000
	// The Address Lookup Table program (core BPF) reads the table and,
	// to close, the SlotHashes sysvar; closing a mint is Token-2022's
	// CloseAccount.
	unitsTable     = 20_000
	unitsMintClose = 10_000
)

// accountReclaim is the one instruction that reclaims an excess_rent,
// program_buffer, nonce_account, stake_account, lookup_table or mint item
// to wallet, its authority: WithdrawExcessLamports, the loader's Close, the
// withdrawal of the whole balance (the item's Lamports, which discovery
// read), DeactivateLookupTable or CloseLookupTable, Token-2022's
// CloseAccount on the mint.
func accountReclaim(s Selected, wallet solana.PublicKey) solana.Instruction {
	it := s.Item
	switch it.Type {
	case assets.TypeLookupTable:
		if s.Action == assets.ActionDeactivate {
			return lookuptable.Deactivate(it.Address, wallet)
		}
		return lookuptable.Close(it.Address, wallet, wallet)
	case assets.TypeMint:
		return spltoken.CloseAccount(it.TokenProgram, it.Address, wallet, wallet)
	case assets.TypeExcessRent:
		return spltoken.WithdrawExcessLamports(it.TokenProgram, it.Address, wallet, wallet)
	case assets.TypeProgramBuffer:
		return loaderv3.Close(it.Address, wallet, wallet)
	case assets.TypeNonceAccount:
		return nonce.Withdraw(it.Address, wallet, wallet, it.Lamports)
	}
	return stake.Withdraw(it.Address, wallet, wallet, it.Lamports)
}

// metaplexBurn is Token Metadata's BurnV1 of an NFT held by wallet.
func metaplexBurn(it assets.Item, wallet solana.PublicKey) solana.Instruction {
	return it.Metaplex.BurnV1(wallet, it.Mint, it.Address, it.TokenProgram).Instruction()
}

// coreBurn is MPL Core's BurnV1 of an asset owned by wallet, which pays and
// receives the refund.
func coreBurn(it assets.Item, wallet solana.PublicKey) solana.Instruction {
	return it.Core.BurnV1(it.Address, wallet).Instruction()
}

// ErrCNFTPlanner wraps the errors of a CNFTPlanner that are not refusals:
// the DAS indexer, or the cluster it reads the tree from, failing.
var ErrCNFTPlanner = errors.New("txbuild: planning a compressed NFT burn failed")

// planCNFTs asks the CNFTPlanner for the burn of every cNFT item of r, all
// at once, each in a slot of ctx's rpclimit.Limit (one planning is a few
// calls in a row, to the indexer and the cluster), and stores it with the
// item. The error returned is that of the
// first failing item in request order; a refusal (*assets.ItemError) becomes
// an *assets.ItemError naming the item, anything else stops the rest.
func (b *Builder) planCNFTs(ctx context.Context, r *request) error {
	var idx []int
	for i, s := range r.Items {
		if s.Item.Type == assets.TypeCNFT {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if b.cnft == nil {
		return itemError(r.Items[idx[0]], "compressed NFTs cannot be burned: the service has no DAS indexer")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := slices.Clone(r.Items) // the caller's slice stays as it was
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	for k, i := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := items[i].Item.Address
			ix, err := rpclimit.Call(ctx, func(ctx context.Context) (*solana.GenericInstruction, error) {
				return b.cnft.BurnInstruction(ctx, r.Wallet, addr)
			})
			var ie *assets.ItemError
			switch {
			case errors.As(err, &ie):
				errs[k] = itemError(items[i], "%s", ie.Reason)
			case err != nil:
				errs[k] = fmt.Errorf("%w: cnft %s: %w", ErrCNFTPlanner, addr, err)
				cancel()
			case ix == nil:
				errs[k] = fmt.Errorf("txbuild: cnft %s: no instruction", addr)
			default:
				items[i].burn = ix
			}
		}()
	}
	wg.Wait()
	// The first failure in request order, but not one that only saw the
	// cancellation another item's failure caused.
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	r.Items = items
	return nil
}
