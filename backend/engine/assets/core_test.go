package assets

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
)

// coreRPC serves a fake chain's Core accounts to getProgramAccounts with the
// memcmp filters the source sends, checking them.
type coreRPC struct {
	*fakeRPC
	c *chain
}

func (f coreRPC) GetProgramAccountsWithOpts(_ context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error) {
	f.count("getProgramAccounts", 0)
	if !program.Equals(mplcore.ProgramID) || len(opts.Filters) != 2 || opts.Filters[0].Memcmp == nil || opts.Filters[1].Memcmp == nil ||
		opts.Filters[0].Memcmp.Offset != 0 || string(opts.Filters[0].Memcmp.Bytes) != "\x01" || opts.Filters[1].Memcmp.Offset != 1 {
		return nil, errors.New("unexpected filters")
	}
	owner := opts.Filters[1].Memcmp.Bytes
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	var out rpc.GetProgramAccountsResult
	for addr, a := range f.c.accounts {
		d := a.Data.GetBinary()
		if a.Owner.Equals(program) && len(d) > 33 && d[0] == 1 && string(d[1:33]) == string(owner) {
			out = append(out, &rpc.KeyedAccount{Pubkey: addr, Account: a})
		}
	}
	return out, nil
}

func coreAsset(owner solana.PublicKey, collection *solana.PublicKey, name string) []byte {
	d := append([]byte{byte(mplcore.KeyAssetV1)}, owner[:]...)
	if collection != nil {
		d = append(append(d, mplcore.UpdateAuthorityCollection), collection[:]...)
	} else {
		d = append(d, mplcore.UpdateAuthorityNone)
	}
	for _, s := range []string{name, "https://example.com/a.json"} {
		d = append(binary.LittleEndian.AppendUint32(d, uint32(len(s))), s...)
	}
	return append(d, 0)
}

func TestAssetsCore(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.rentSysvar()
	col := solana.NewWallet().PublicKey()
	colData := append(append([]byte{byte(mplcore.KeyCollectionV1)}, make([]byte, 32)...), binary.LittleEndian.AppendUint32(nil, 5)...)
	colData = append(append(colData, "Cores"...), make([]byte, 12)...)
	w.c.put(col, mplcore.ProgramID, minBal(uint64(len(colData))), colData)
	put := func(owner solana.PublicKey, collection *solana.PublicKey, extra uint64) (solana.PublicKey, uint64) {
		a := solana.NewWallet().PublicKey()
		d := coreAsset(owner, collection, "Core")
		w.c.put(a, mplcore.ProgramID, minBal(uint64(len(d)))+extra, d)
		return a, minBal(uint64(len(d))) - minBal(1)
	}
	inCol, inColRefund := put(w.wallet, &col, 0)
	alone, aloneRefund := put(w.wallet, nil, 1_000) // lamports above the minimum stay in the stub
	other, _ := put(solana.NewWallet().PublicKey(), nil, 0)
	f := coreRPC{w.c.rpc(), w.c}

	items, err := NewDiscoverer(f.fakeRPC, nil, NewCoreSource(f)).List(context.Background(), w.wallet)
	if err != nil {
		t.Fatal(err)
	}
	got := map[solana.PublicKey]Item{}
	for _, it := range items.Items {
		got[it.Address] = it
	}
	if len(got) != 2 || items.Counts[TypeNFT] != 2 {
		t.Fatalf("items %+v", items.Items)
	}
	if it := got[inCol]; it.Type != TypeNFT || it.Lamports != inColRefund || it.Core == nil || it.Core.Collection == nil ||
		*it.Core.Collection != col || it.Collection == nil || it.Collection.Name != "Cores" || it.Actions[0] != ActionBurn ||
		it.TokenProgram != mplcore.ProgramID || it.Mint != inCol || it.Name != "Core" {
		t.Errorf("asset in a collection %+v", it)
	}
	if it := got[alone]; it.Lamports != aloneRefund || it.Core == nil || it.Core.Collection != nil || it.Collection != nil {
		t.Errorf("asset %+v", it)
	}

	d := NewDiscoverer(f.fakeRPC, nil)
	res, err := d.Resolve(context.Background(), w.wallet, []solana.PublicKey{alone, inCol})
	if err != nil || len(res) != 2 || res[0].Address != alone || res[0].Lamports != aloneRefund || res[1].Core == nil || *res[1].Core.Collection != col {
		t.Fatalf("Resolve = %+v, %v", res, err)
	}
	for addr, reason := range map[solana.PublicKey]string{other: reasonOtherWalletCore, col: reasonNotCore} {
		var ie *ItemError
		if _, err := d.Resolve(context.Background(), w.wallet, []solana.PublicKey{addr}); !errors.As(err, &ie) || ie.Reason != reason {
			t.Errorf("Resolve(%s) = %v, want %q", addr, err, reason)
		}
	}
}
