package assets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// The answers of testdata/cluster were recorded from the local validator
// (backend/localvalidator, LiteSVM 1.5.0, p-token active) by e2e/record_cluster_test.go:
// a wallet with an SPL Token and a Token-2022 account holding tokens, an
// empty Token-2022 account, wrapped SOL, a Token-2022 and an SPL Token mint
// whose mint authority it is, a program buffer of 2,000 bytes, a nonce
// account, an initialized stake account, a delegation deactivated in epoch
// 1 and one deactivated in the current epoch 3, three lookup tables and a
// closable Token-2022 mint (cluster_tables_test.go); then the rent cut to
// 5,080 lamports a byte.
var (
	recWallet  = solana.MustPublicKeyFromBase58("DsPkhbUfD1MfXu4iokS7kacPLZdGYn3Mj44sCad7AZtm")
	recSPL     = solana.MustPublicKeyFromBase58("AzjM1L1cJbfnVbLYKHjtAtAj3mnJxHLPRu5EsVmEjJs5")
	recT22     = solana.MustPublicKeyFromBase58("7xj1ynFnBSme1xvYSdTptX7qnY1om2Dpsg92CY6gxUAE")
	recEmpty   = solana.MustPublicKeyFromBase58("GpsxVGCUa6Ha5PkdDPFkJZsSx6ugo7maBXo4EHW1vY9u")
	recMine22  = solana.MustPublicKeyFromBase58("AJJvgGcmALcZBRJYyoj2KvSec6KD6XHtU5QELRvfKoUN")
	recMineSPL = solana.MustPublicKeyFromBase58("3VteMeHUoKGQGALTMWaWagqStb6qGDEWfRg8hMXCSPwd")
	recBuffer  = solana.MustPublicKeyFromBase58("J6vKEvhQrkoZhTY4SEZrgtup5r7BA6as9DXGQZ1QSqCj")
	recNonce   = solana.MustPublicKeyFromBase58("9UXKCC3Er8UDvvdNuk2v6oayjfikQnRrWNzVqDs9PAAS")
	recInit    = solana.MustPublicKeyFromBase58("AQ7sTdgpfcU6SfGSp78ZWspiPS45NviFB1T66poEzRC8")
	recCooled  = solana.MustPublicKeyFromBase58("3RY95PoMhJYBMQfdbVMhVNkxH2ak5Z7nDAbatkXmUKCf")
	recCooling = solana.MustPublicKeyFromBase58("EpfVJYFHNXjChTjNfmLBTQPJnGw4KxgqQDuDyEx8S1Hp")
	recWrapped = spltoken.AssociatedTokenAddress(recWallet, solana.WrappedSol, solana.TokenProgramID)
	// Lookup tables: active (3 addresses), deactivated before the warps (2),
	// deactivated last (1); a Token-2022 mint of supply 0 it can close.
	recActiveTable = solana.MustPublicKeyFromBase58("HPuWkzTZDix6Phmi5yNKWKnNtmzLuahVLHR5LFcKL1oB")
	recOldTable    = solana.MustPublicKeyFromBase58("WvQbWhSnzvmH473xURsQXy4bDdZgxXMrhg5uCVHpc9W")
	recNewTable    = solana.MustPublicKeyFromBase58("AVVq9RdayjgGkx7EXawEnMbVfZB26nByr1R2hBhLLJdT")
	recClosable    = solana.MustPublicKeyFromBase58("B1tCV5Z45iFWqAEq4GzadZnGULXoc5GYwboNqw1CRuE2")
	recRentAfter   = rent.Sysvar{LamportsPerByteYear: 5080, ExemptionThreshold: 1}
)

// recordedFile is one recorded exchange.
type recordedFile struct {
	Request struct {
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	} `json:"request"`
	Answer struct {
		Result json.RawMessage `json:"result"`
	} `json:"answer"`
}

func loadRecorded(t *testing.T, name string) recordedFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "cluster", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f recordedFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// recordedRPC serves the recorded answers: getTokenAccountsByOwner and
// getProgramAccounts as recorded (the request's program and filters must be
// the recorded ones, byte for byte), getMultipleAccounts from every account
// the recorded reads returned (null for the others). edit, when set,
// changes an account before it is served (nil removes it).
type recordedRPC struct {
	t        *testing.T
	accounts map[solana.PublicKey]*rpc.Account
	tokens   map[solana.PublicKey]*rpc.GetTokenAccountsResult
	scans    map[solana.PublicKey]recordedFile
	edit     func(k solana.PublicKey, a *rpc.Account) *rpc.Account

	mu    sync.Mutex
	calls []string // methods, in order, with the program or first key
}

func newRecordedRPC(t *testing.T) *recordedRPC {
	t.Helper()
	r := &recordedRPC{t: t, accounts: map[solana.PublicKey]*rpc.Account{}, tokens: map[solana.PublicKey]*rpc.GetTokenAccountsResult{},
		scans: map[solana.PublicKey]recordedFile{}}
	for _, name := range []string{"state", "stake-history", "slot-hashes", "mints", "selected"} {
		f := loadRecorded(t, name)
		var keys []solana.PublicKey
		var res rpc.GetMultipleAccountsResult
		if err := json.Unmarshal(f.Request.Params[0], &keys); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(f.Answer.Result, &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, k := range keys {
			r.accounts[k] = res.Value[i]
		}
	}
	for program, name := range map[solana.PublicKey]string{solana.TokenProgramID: "token-accounts-spl", solana.Token2022ProgramID: "token-accounts-2022"} {
		var res rpc.GetTokenAccountsResult
		if err := json.Unmarshal(loadRecorded(t, name).Answer.Result, &res); err != nil {
			t.Fatal(err)
		}
		r.tokens[program] = &res
		for _, ka := range res.Value {
			a := ka.Account
			r.accounts[ka.Pubkey] = &a
		}
	}
	for program, name := range map[solana.PublicKey]string{
		solana.Token2022ProgramID: "mints-2022", solana.TokenProgramID: "mints-spl", loaderv3.ProgramID: "buffers",
		solana.SystemProgramID: "nonces", stake.ProgramID: "stakes", lookuptable.ProgramID: "lookup-tables",
	} {
		r.scans[program] = loadRecorded(t, name)
	}
	return r
}

func (r *recordedRPC) call(method string, key solana.PublicKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, method+" "+key.String())
}

func (r *recordedRPC) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if len(c) > len(method) && c[:len(method)+1] == method+" " {
			n++
		}
	}
	return n
}

func (r *recordedRPC) account(k solana.PublicKey) *rpc.Account {
	a := r.accounts[k]
	if r.edit != nil {
		if a != nil {
			c := *a
			a = &c
		}
		a = r.edit(k, a)
	}
	return a
}

func (r *recordedRPC) GetTokenAccountsByOwner(_ context.Context, owner solana.PublicKey, conf *rpc.GetTokenAccountsConfig, _ *rpc.GetTokenAccountsOpts) (*rpc.GetTokenAccountsResult, error) {
	r.call("getTokenAccountsByOwner", *conf.ProgramId)
	if !owner.Equals(recWallet) {
		return &rpc.GetTokenAccountsResult{}, nil
	}
	return r.tokens[*conf.ProgramId], nil
}

func (r *recordedRPC) GetMultipleAccountsWithOpts(_ context.Context, keys []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	r.call("getMultipleAccounts", keys[0])
	if opts.Encoding != solana.EncodingBase64 || opts.Commitment != rpc.CommitmentConfirmed {
		return nil, errors.New("not base64 at confirmed")
	}
	res := &rpc.GetMultipleAccountsResult{Value: make([]*rpc.Account, len(keys))}
	for i, k := range keys {
		res.Value[i] = r.account(k)
	}
	return res, nil
}

// GetProgramAccountsWithOpts answers the recorded scan of program, when its
// filters and data slice are the recorded request's.
func (r *recordedRPC) GetProgramAccountsWithOpts(_ context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error) {
	r.call("getProgramAccounts", program)
	f, ok := r.scans[program]
	if !ok {
		return nil, fmt.Errorf("no scan of %s recorded", program)
	}
	var want struct {
		Filters   []json.RawMessage `json:"filters"`
		DataSlice json.RawMessage   `json:"dataSlice"`
	}
	if err := json.Unmarshal(f.Request.Params[1], &want); err != nil {
		return nil, err
	}
	got, _ := json.Marshal(opts.Filters)
	wantFilters, _ := json.Marshal(want.Filters)
	if !sameJSON(got, wantFilters) {
		r.t.Errorf("getProgramAccounts %s: filters %s, recorded with %s", program, got, wantFilters)
	}
	if slice, _ := json.Marshal(opts.DataSlice); opts.DataSlice != nil && !sameJSON(slice, want.DataSlice) || opts.DataSlice == nil && want.DataSlice != nil {
		r.t.Errorf("getProgramAccounts %s: data slice %s, recorded with %s", program, slice, want.DataSlice)
	}
	var res rpc.GetProgramAccountsResult
	if err := json.Unmarshal(f.Answer.Result, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func byAddress(items []Item, typ ItemType) map[solana.PublicKey]Item {
	out := map[solana.PublicKey]Item{}
	for _, it := range items {
		if it.Type == typ {
			out[it.Address] = it
		}
	}
	return out
}

// minimumAfter is the new minimum of an account of the recording.
func minimumAfter(t *testing.T, r *recordedRPC, k solana.PublicKey) uint64 {
	t.Helper()
	return recRentAfter.MinimumBalance(uint64(len(r.accounts[k].Data.GetBinary())))
}

// TestAssetsClusterItems lists the recorded wallet after the rent cut: the
// excess of its two token accounts with a balance and of its two mints,
// each its lamports less its new minimum (550,840 for 165 bytes, 560,240
// for a 170-byte Token-2022 account, 394,800 for a mint); not the empty
// account (it closes for all its lamports) nor wrapped SOL; the buffer, the
// nonce account, the initialized and the fully deactivated stake account
// for all their lamports; not the stake in its deactivation epoch. The
// calls: the state, the StakeHistory (a delegation was deactivated before
// the current epoch), the SlotHashes (a lookup table was deactivated), six
// scans.
func TestAssetsClusterItems(t *testing.T) {
	t.Parallel()
	r := newRecordedRPC(t)
	l, err := NewDiscoverer(r, nil).List(context.Background(), recWallet)
	if err != nil {
		t.Fatal(err)
	}
	excess := byAddress(l.Items, TypeExcessRent)
	want := map[solana.PublicKey]uint64{recSPL: 550_840, recT22: 560_240, recMine22: 394_800, recMineSPL: 394_800}
	for k, lamports := range want {
		it, ok := excess[k]
		if !ok || it.Lamports != lamports || it.Lamports != r.accounts[k].Lamports-minimumAfter(t, r, k) ||
			!slices.Equal(it.Actions, []Action{ActionWithdrawExcess}) || !it.Owner.Equals(recWallet) || !it.TokenProgram.Equals(r.accounts[k].Owner) {
			t.Errorf("%s: %+v (%v), want excess_rent of %d", k, it, ok, lamports)
		}
	}
	if len(excess) != len(want) {
		t.Errorf("excess_rent items %v, want %d (not the empty %s nor wrapped SOL %s)", excess, len(want), recEmpty, recWrapped)
	}
	if st, err := spltoken.ParseAccount(r.accounts[recSPL].Data.GetBinary()); err != nil || excess[recSPL].Amount != 1_000_000 || excess[recSPL].Decimals != 6 || !excess[recSPL].Mint.Equals(st.Mint) {
		t.Errorf("the SPL account's excess does not carry its balance and mint: %+v (%v)", excess[recSPL], err)
	}
	whole := map[ItemType][]solana.PublicKey{TypeProgramBuffer: {recBuffer}, TypeNonceAccount: {recNonce}, TypeStakeAccount: {recInit, recCooled}}
	for typ, keys := range whole {
		got := byAddress(l.Items, typ)
		for _, k := range keys {
			if it, ok := got[k]; !ok || it.Lamports != r.accounts[k].Lamports || !slices.Equal(it.Actions, ActionsFor(typ)) || !it.Mint.IsZero() {
				t.Errorf("%s %s: %+v (%v), want all its %d lamports", typ, k, it, ok, r.accounts[k].Lamports)
			} else if rent := min(it.Lamports, minimumAfter(t, r, k)); it.Rent != rent {
				t.Errorf("%s %s: rent %d of %d lamports, want its minimum %d (a buffer's from its space, not the slice)", typ, k, it.Rent, it.Lamports, rent)
			}
		}
		if len(got) != len(keys) {
			t.Errorf("%s: %d items, want %d (not the cooling stake %s)", typ, len(got), len(keys), recCooling)
		}
	}
	for typ, n := range map[ItemType]int{TypeExcessRent: 4, TypeProgramBuffer: 1, TypeNonceAccount: 1, TypeStakeAccount: 2, TypeEmptyAccount: 1, TypeToken: 3} {
		if l.Counts[typ] != n {
			t.Errorf("counts[%s] = %d, want %d", typ, l.Counts[typ], n)
		}
	}
	if l.TokenAccounts != 4 {
		t.Errorf("%d token accounts first", l.TokenAccounts)
	}
	for i, it := range l.Items[l.TokenAccounts:] {
		if i > 0 && l.Items[l.TokenAccounts+i-1].Address.String() > it.Address.String() {
			t.Errorf("the items after the token accounts are not by address at %d", i)
		}
	}
	for method, n := range map[string]int{"getTokenAccountsByOwner": 2, "getProgramAccounts": 6, "getMultipleAccounts": 4} {
		if got := r.count(method); got != n {
			t.Errorf("%d %s calls, want %d: %v", got, method, n, r.calls)
		}
	}
}

// TestAssetsClusterDetection: what the first round trip reads decides what
// is offered. Without p-token (its feature account absent or not active)
// SPL Token's accounts and mints offer no excess (its mints are scanned all
// the same, in the first round trip); with the rent unchanged (6,960 a byte) nothing is listed as
// excess, at the same cost; without a Rent sysvar, no excess either;
// without the Clock, no stake account.
func TestAssetsClusterDetection(t *testing.T) {
	t.Parallel()
	rentAt := func(perByte uint64) []byte {
		d := make([]byte, 17)
		copy(d, r64(perByte))
		copy(d[8:], r64(0x3ff0000000000000)) // 1.0
		d[16] = 50
		return d
	}
	cases := []struct {
		name   string
		edit   func(k solana.PublicKey, a *rpc.Account) *rpc.Account
		excess []solana.PublicKey
		stakes int
		scans  int
	}{
		{"p-token's feature account absent", func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(spltoken.PTokenFeature) {
				return nil
			}
			return a
		}, []solana.PublicKey{recT22, recMine22}, 2, 6},
		{"p-token's feature proposed, not active", func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(spltoken.PTokenFeature) {
				a.Data = rpc.DataBytesOrJSONFromBytes(make([]byte, 9))
			}
			return a
		}, []solana.PublicKey{recT22, recMine22}, 2, 6},
		{"the rent unchanged", func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(rent.Address) {
				a.Data = rpc.DataBytesOrJSONFromBytes(rentAt(6960))
			}
			return a
		}, nil, 2, 6},
		{"no Rent sysvar", func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(rent.Address) {
				return nil
			}
			return a
		}, nil, 2, 6},
		{"no Clock sysvar", func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(solana.SysVarClockPubkey) {
				return nil
			}
			return a
		}, []solana.PublicKey{recSPL, recT22, recMine22, recMineSPL}, 0, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRecordedRPC(t)
			r.edit = tc.edit
			l, err := NewDiscoverer(r, nil).List(context.Background(), recWallet)
			if err != nil {
				t.Fatal(err)
			}
			got := byAddress(l.Items, TypeExcessRent)
			for _, k := range tc.excess {
				if _, ok := got[k]; !ok {
					t.Errorf("no excess_rent for %s", k)
				}
			}
			if len(got) != len(tc.excess) {
				t.Errorf("%d excess_rent items, want %d: %v", len(got), len(tc.excess), got)
			}
			if n := len(byAddress(l.Items, TypeStakeAccount)); n != tc.stakes {
				t.Errorf("%d stake accounts, want %d", n, tc.stakes)
			}
			if n := r.count("getProgramAccounts"); n != tc.scans {
				t.Errorf("%d scans, want %d: %v", n, tc.scans, r.calls)
			}
		})
	}
}

func r64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

// TestAssetsResolveAs resolves the recorded accounts as a build selects
// them: each kind for what its reclaim moves, the sysvars it needs read
// with the addresses in one call when the types ask for them; and the
// selections that cannot be reclaimed now, each refused with its reason.
func TestAssetsResolveAs(t *testing.T) {
	t.Parallel()
	r := newRecordedRPC(t)
	addrs := []solana.PublicKey{recSPL, recT22, recMine22, recMineSPL, recEmpty, recBuffer, recNonce, recInit, recCooled}
	types := []ItemType{TypeExcessRent, TypeExcessRent, TypeExcessRent, TypeExcessRent, TypeExcessRent, TypeProgramBuffer, TypeNonceAccount, TypeStakeAccount, TypeStakeAccount}
	items, err := NewDiscoverer(r, nil).ResolveAs(context.Background(), recWallet, addrs, types)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		k := addrs[i]
		want := r.accounts[k].Lamports
		rent := min(want, minimumAfter(t, r, k))
		if types[i] == TypeExcessRent {
			want -= minimumAfter(t, r, k)
			rent = want // all rent
		}
		if it.Type != types[i] || !it.Address.Equals(k) || it.Lamports != want || !it.Owner.Equals(recWallet) || !slices.Equal(it.Actions, ActionsFor(types[i])) {
			t.Errorf("%s as %s: %+v, want %d lamports", k, types[i], it, want)
		}
		if it.Rent != rent {
			t.Errorf("%s as %s: rent %d, want %d", k, types[i], it.Rent, rent)
		}
	}
	if n := r.count("getMultipleAccounts"); n != 1 {
		t.Errorf("%d reads, want one (the sysvars with the addresses): %v", n, r.calls)
	}

	t.Run("without types, the StakeHistory in one more read", func(t *testing.T) {
		t.Parallel()
		r := newRecordedRPC(t)
		items, err := NewDiscoverer(r, nil).Resolve(context.Background(), recWallet, []solana.PublicKey{recBuffer, recCooled, recNonce})
		if err != nil || items[0].Type != TypeProgramBuffer || items[1].Type != TypeStakeAccount || items[2].Type != TypeNonceAccount {
			t.Fatalf("%+v, %v", items, err)
		}
		if n := r.count("getMultipleAccounts"); n != 2 {
			t.Errorf("%d reads, want 2: %v", n, r.calls)
		}
	})

	other := solana.NewWallet().PublicKey()
	refusals := []struct {
		name   string
		wallet solana.PublicKey
		addr   solana.PublicKey
		typ    ItemType
		edit   func(k solana.PublicKey, a *rpc.Account) *rpc.Account
		reason string
	}{
		{"a stake in its deactivation epoch", recWallet, recCooling, TypeStakeAccount, nil, "stake account cannot be withdrawn now: it is still cooling down: withdrawable once its stake is fully deactivated"},
		{"wrapped SOL's excess", recWallet, recWrapped, TypeExcessRent, nil, reasonNativeExcess},
		{"an SPL account without p-token", recWallet, recSPL, TypeExcessRent, func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(spltoken.PTokenFeature) {
				return nil
			}
			return a
		}, reasonNoWithdrawExcess},
		{"no excess left", recWallet, recT22, TypeExcessRent, func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(recT22) {
				a.Lamports = recRentAfter.MinimumBalance(170)
			}
			return a
		}, reasonNoExcess},
		{"another wallet's token account", other, recT22, TypeExcessRent, nil, reasonOtherWallet},
		{"another wallet's mint", other, recMine22, TypeExcessRent, nil, reasonOtherAuthority},
		{"another wallet's buffer", other, recBuffer, TypeProgramBuffer, nil, reasonOtherAuthority},
		{"another wallet's nonce account", other, recNonce, TypeNonceAccount, nil, reasonOtherAuthority},
		{"another wallet's stake", other, recInit, TypeStakeAccount, nil, reasonOtherAuthority},
		{"a wallet as a nonce account", recWallet, recWallet, TypeNonceAccount, func(k solana.PublicKey, a *rpc.Account) *rpc.Account {
			if k.Equals(recWallet) {
				return &rpc.Account{Owner: solana.SystemProgramID, Lamports: 99, Data: rpc.DataBytesOrJSONFromBytes(nil)}
			}
			return a
		}, reasonNotNonce},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRecordedRPC(t)
			r.edit = tc.edit
			_, err := NewDiscoverer(r, nil).ResolveAs(context.Background(), tc.wallet, []solana.PublicKey{tc.addr}, []ItemType{tc.typ})
			var ie *ItemError
			if !errors.As(err, &ie) || ie.Address != tc.addr.String() || ie.Reason != tc.reason {
				t.Errorf("err %v, want %q", err, tc.reason)
			}
		})
	}
}
