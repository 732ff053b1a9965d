package assets

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken/spltokentest"
)

// fakeRPC is a hand-written RPC: func fields, and a count of calls per method.
type fakeRPC struct {
	tokenAccounts func(owner, program solana.PublicKey) (*rpc.GetTokenAccountsResult, error)
	multiple      func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error)
	// programAccounts answers getProgramAccounts; nil answers [].
	programAccounts func(program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error)

	mu      sync.Mutex
	calls   map[string]int
	order   []string // the methods, as called
	maxKeys int
}

func (f *fakeRPC) count(method string, keys int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	f.order = append(f.order, method)
	f.maxKeys = max(f.maxKeys, keys)
}

func (f *fakeRPC) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

func (f *fakeRPC) GetTokenAccountsByOwner(_ context.Context, owner solana.PublicKey, conf *rpc.GetTokenAccountsConfig, opts *rpc.GetTokenAccountsOpts) (*rpc.GetTokenAccountsResult, error) {
	f.count("getTokenAccountsByOwner", 0)
	if conf == nil || conf.ProgramId == nil || opts == nil || opts.Encoding != solana.EncodingBase64 {
		panic("getTokenAccountsByOwner without programId filter or base64 encoding")
	}
	return f.tokenAccounts(owner, *conf.ProgramId)
}

func (f *fakeRPC) GetMultipleAccountsWithOpts(_ context.Context, keys []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	f.count("getMultipleAccounts", len(keys))
	if opts == nil || opts.Encoding != solana.EncodingBase64 {
		panic("getMultipleAccounts without base64 encoding")
	}
	return f.multiple(keys)
}

func (f *fakeRPC) GetProgramAccountsWithOpts(_ context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error) {
	f.count("getProgramAccounts", 0)
	if opts == nil || opts.Encoding != solana.EncodingBase64 {
		panic("getProgramAccounts without base64 encoding")
	}
	if f.programAccounts == nil {
		return rpc.GetProgramAccountsResult{}, nil
	}
	return f.programAccounts(program, opts)
}

// chain is an in-memory cluster behind a fakeRPC.
type chain struct {
	mu       sync.Mutex
	accounts map[solana.PublicKey]*rpc.Account
}

func newChain() *chain { return &chain{accounts: map[solana.PublicKey]*rpc.Account{}} }

func (c *chain) put(addr, program solana.PublicKey, lamports uint64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts[addr] = &rpc.Account{Lamports: lamports, Owner: program, Data: rpc.DataBytesOrJSONFromBytes(data), Space: uint64(len(data))}
}

// rpc serves the chain: token accounts by the owner at bytes 32..64.
func (c *chain) rpc() *fakeRPC {
	return &fakeRPC{
		tokenAccounts: func(owner, program solana.PublicKey) (*rpc.GetTokenAccountsResult, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			res := &rpc.GetTokenAccountsResult{}
			for addr, a := range c.accounts {
				d := a.Data.GetBinary()
				if a.Owner.Equals(program) && len(d) >= spltoken.AccountSize && solana.PublicKeyFromBytes(d[32:64]).Equals(owner) &&
					(len(d) == spltoken.AccountSize || d[spltoken.AccountSize] == byte(spltoken.AccountTypeAccount)) {
					res.Value = append(res.Value, &rpc.TokenAccount{Pubkey: addr, Account: *a})
				}
			}
			return res, nil
		},
		multiple: func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			res := &rpc.GetMultipleAccountsResult{Value: make([]*rpc.Account, len(keys))}
			for i, k := range keys {
				res.Value[i] = c.accounts[k]
			}
			return res, nil
		},
		programAccounts: c.programAccounts,
	}
}

// programAccounts answers getProgramAccounts as a node does: the program's
// accounts whose whole data meets every dataSize and memcmp filter, their
// data sliced when asked.
func (c *chain) programAccounts(program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := rpc.GetProgramAccountsResult{}
	for addr, a := range c.accounts {
		d := a.Data.GetBinary()
		if !a.Owner.Equals(program) || !matches(d, opts.Filters) {
			continue
		}
		acc := *a
		if s := opts.DataSlice; s != nil {
			from := min(int(*s.Offset), len(d))
			acc.Data = rpc.DataBytesOrJSONFromBytes(d[from:min(from+int(*s.Length), len(d))])
		}
		out = append(out, &rpc.KeyedAccount{Pubkey: addr, Account: &acc})
	}
	return out, nil
}

func matches(d []byte, filters []rpc.RPCFilter) bool {
	for _, f := range filters {
		if f.DataSize != 0 && uint64(len(d)) != f.DataSize {
			return false
		}
		if m := f.Memcmp; m != nil && (int(m.Offset)+len(m.Bytes) > len(d) || string(d[m.Offset:int(m.Offset)+len(m.Bytes)]) != string(m.Bytes)) {
			return false
		}
	}
	return true
}

// acct describes a token account to encode.
type acct struct {
	mint, owner solana.PublicKey
	amount      uint64
	frozen      bool
	native      bool // is_native Some(rent reserve)
	closeAuth   *solana.PublicKey
	withheld    *uint64 // Token-2022 TransferFeeAmount
	token2022   bool    // account-type byte and ImmutableOwner, as a Token-2022 ATA
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// encode lays out the 165-byte account, then Token-2022's extensions.
func (a acct) encode() []byte {
	st := spltoken.Account{Mint: a.mint, Owner: a.owner, Amount: a.amount, Frozen: a.frozen, Native: a.native, CloseAuthority: a.closeAuth}
	if a.withheld != nil {
		st.WithheldAmount = *a.withheld
	}
	return spltokentest.Account{Account: st, Token2022: a.token2022}.Bytes()
}

// mintBytes lays out a mint; with md, a Token-2022 mint whose MetadataPointer
// points at itself and whose TokenMetadata extension holds md.
func mintBytes(self solana.PublicKey, decimals uint8, supply uint64, md *tokenMetadata) []byte {
	if md == nil {
		return spltokentest.Mint(self, decimals, supply, nil)
	}
	return spltokentest.Mint(self, decimals, supply, &spltoken.TokenMetadata{Name: md.name, Symbol: md.symbol, URI: md.uri})
}

// metaplexBytes lays out a Metaplex Metadata account as the program writes it:
// strings NUL-padded to 32/10/200 bytes, creators, and an optional collection.
func metaplexBytes(mint solana.PublicKey, name, symbol, uri string, creators int, collection *solana.PublicKey, verified bool) []byte {
	ua := solana.NewWallet().PublicKey()
	d := append(append([]byte{byte(metaplex.KeyMetadataV1)}, ua[:]...), mint[:]...)
	for _, f := range []struct {
		s string
		n int
	}{{name, 32}, {symbol, 10}, {uri, 200}} {
		padded := append([]byte(f.s), make([]byte, f.n-len(f.s))...)
		d = append(append(d, le32(uint32(len(padded)))...), padded...)
	}
	d = append(d, le16(500)...)
	if creators > 0 {
		d = append(append(d, 1), le32(uint32(creators))...)
		for range creators {
			c := solana.NewWallet().PublicKey()
			d = append(append(d, c[:]...), 1, byte(100/creators))
		}
	} else {
		d = append(d, 0)
	}
	d = append(d, 1, 1)    // primary_sale_happened, is_mutable
	d = append(d, 1, 254)  // edition_nonce
	d = append(d, 1, 0)    // token_standard NonFungible
	if collection != nil { // collection
		v := byte(0)
		if verified {
			v = 1
		}
		d = append(append(d, 1, v), collection[:]...)
	} else {
		d = append(d, 0)
	}
	d = append(d, 0, 0, 0)                                // uses, collection_details, programmable_config
	return append(d, make([]byte, max(0, 679-len(d)))...) // accounts are allocated at the maximum size
}
