package txbuild

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// fakeRPC is a hand-written RPC: each method calls its func field, and the
// defaults describe a healthy cluster where every recipient exists and every
// transaction consumes 1,000 units plus 300 per instruction.
type fakeRPC struct {
	mu        sync.Mutex
	blockhash func(rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error)
	accounts  func([]solana.PublicKey) (*rpc.GetMultipleAccountsResult, error)
	rent      func(uint64) (uint64, error)
	fees      func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error)
	simulate  func(*solana.Transaction, *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error)

	calls       map[string]int
	feeAccounts []solana.PublicKeySlice
	simulated   []*solana.Transaction
}

func newFake() *fakeRPC {
	return &fakeRPC{
		calls: map[string]int{},
		blockhash: func(rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) {
			return &rpc.GetLatestBlockhashResult{Value: &rpc.LatestBlockhashResult{Blockhash: solana.Hash(key("blockhash")), LastValidBlockHeight: 1_000_150}}, nil
		},
		accounts: func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
			out := &rpc.GetMultipleAccountsResult{}
			for range keys {
				out.Value = append(out.Value, &rpc.Account{Lamports: solana.LAMPORTS_PER_SOL, Owner: solana.SystemProgramID})
			}
			return out, nil
		},
		rent: func(uint64) (uint64, error) { return 890_880, nil },
		fees: func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) { return nil, nil },
		simulate: func(tx *solana.Transaction, _ *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
			units := uint64(1_000 + 300*len(tx.Message.Instructions))
			return &rpc.SimulateTransactionResponse{Value: &rpc.SimulateTransactionResult{UnitsConsumed: &units}}, nil
		},
	}
}

// count records a call and locks the fake until the returned func runs, so
// the func fields and the tests' closures run one at a time.
func (f *fakeRPC) count(name string) func() {
	f.mu.Lock()
	f.calls[name]++
	return f.mu.Unlock
}

func (f *fakeRPC) GetLatestBlockhash(_ context.Context, c rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) {
	defer f.count("getLatestBlockhash")()
	return f.blockhash(c)
}

func (f *fakeRPC) GetMultipleAccountsWithOpts(_ context.Context, keys []solana.PublicKey, _ *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	defer f.count("getMultipleAccounts")()
	return f.accounts(keys)
}

func (f *fakeRPC) GetMinimumBalanceForRentExemption(_ context.Context, size uint64, _ rpc.CommitmentType) (uint64, error) {
	defer f.count("getMinimumBalanceForRentExemption")()
	return f.rent(size)
}

func (f *fakeRPC) GetRecentPrioritizationFees(_ context.Context, accounts solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
	defer f.count("getRecentPrioritizationFees")()
	f.feeAccounts = append(f.feeAccounts, accounts)
	return f.fees(accounts)
}

func (f *fakeRPC) SimulateTransactionWithOpts(_ context.Context, tx *solana.Transaction, opts *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
	defer f.count("simulateTransaction")()
	f.simulated = append(f.simulated, tx)
	return f.simulate(tx, opts)
}

// key is a fixed public key named for a test.
func key(name string) solana.PublicKey {
	h := sha256.Sum256([]byte(name))
	return solana.PublicKeyFromBytes(h[:])
}

var (
	wallet   = key("wallet")
	donee    = key("donation wallet")
	treasury = key("treasury")
)

// Rent of the token accounts the tests reclaim.
const (
	tokenRent   = 2_039_280 // SPL Token, 165 bytes
	token22Rent = 2_074_080 // Token-2022 ATA with ImmutableOwner, 170 bytes
)

// empty is an empty SPL Token account of wallet, to close.
func empty(name string) Selected {
	return Selected{Action: assets.ActionClose, Item: assets.Item{
		Type: assets.TypeEmptyAccount, Address: key(name), Owner: wallet, Mint: key("mint " + name),
		TokenProgram: solana.TokenProgramID, Lamports: tokenRent, Rent: tokenRent, Actions: []assets.Action{assets.ActionClose},
	}}
}

// empty22 is an empty Token-2022 account of wallet, to close.
func empty22(name string) Selected {
	s := empty(name)
	s.Item.TokenProgram, s.Item.Lamports, s.Item.Rent = solana.Token2022ProgramID, token22Rent, token22Rent
	return s
}

// token is a balance of 6 decimals to burn.
func token(name string, amount uint64) Selected {
	s := empty(name)
	s.Action, s.Item.Type, s.Item.Amount, s.Item.Decimals, s.Item.Actions = assets.ActionBurn, assets.TypeToken, amount, 6, []assets.Action{assets.ActionBurn}
	return s
}

// nft is a decimals-0 supply-1 token to burn.
func nft(name string) Selected {
	s := token(name, 1)
	s.Item.Type, s.Item.Decimals = assets.TypeNFT, 0
	return s
}
