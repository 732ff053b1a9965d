package txbuild

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenItems has one of each kind: an NFT, empty Token and Token-2022
// accounts, wrapped SOL, a Token-2022 balance with withheld fees and a Token
// balance. Wrapped SOL's 0.1 SOL is the wallet's own: no donation or fee
// on it.
func goldenItems() []Selected {
	withheld := token("withheld", 247_500)
	withheld.Item.TokenProgram, withheld.Item.Lamports, withheld.Item.Rent, withheld.Item.WithheldAmount = solana.Token2022ProgramID, 2_082_840, 2_082_840, 2_500
	wsol := empty("wsol")
	wsol.Item.Type, wsol.Item.Mint, wsol.Item.IsNative, wsol.Item.Amount, wsol.Item.Lamports = assets.TypeToken, solana.WrappedSol, true, 100_000_000, tokenRent+100_000_000
	return []Selected{nft("nft"), empty("empty"), withheld, empty22("empty22"), wsol, token("funded", 1_500_000)}
}

func goldenBuild(t *testing.T) Result {
	t.Helper()
	f := newFake()
	f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		return []rpc.PriorizationFeeResult{{PrioritizationFee: 5_000}, {PrioritizationFee: 0}, {PrioritizationFee: 12_000}}, nil
	}
	return build(t, f, fullParams(goldenItems(), 0), WithReferenceSource(rand.NewChaCha8([32]byte{'r', 'e', 'f'})))
}

// TestGolden pins the serialized transactions of a fixed request; run with
// -update to rewrite testdata/build.golden after a deliberate change.
func TestGolden(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, tx := range goldenBuild(t).Txs {
		fmt.Fprintf(&b, "# %s: %d items, gross %d (rent %d), net %d, donation %d, service fee %d, network fee %d, %d CU at %d micro-lamports\n%s\n",
			tx.LedgerType, len(tx.Includes), tx.GrossRebate, tx.RentRebate, tx.NetRebate, tx.DonationAmount, tx.ServiceFee, tx.NetworkFee,
			tx.ComputeUnits, tx.ComputeUnitPrice, tx.Base64)
	}
	path := filepath.Join("testdata", "build.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("transactions differ from %s (rerun with -update if the change is intended):\n got:\n%s\nwant:\n%s", path, b.String(), want)
	}
}

// TestDecodeRoundTrip decodes the Base64 a client receives and checks it is an
// unsigned v0 transaction with the accounts and instructions intended.
func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	res := goldenBuild(t)
	wantTypes := []ledger.Type{ledger.TypeNFTBurn, ledger.TypeTokenAccountClosure, ledger.TypeTokenBurn}
	// Instruction tags per transaction: limit, price, reference, items,
	// donation, service fee.
	wantTags := [][]byte{
		{2, 3, 4, tagBurnChecked, tagCloseAccount, 2, 2},
		{2, 3, 4, tagCloseAccount, tagCloseAccount, tagCloseAccount, 2, 2},
		{2, 3, 4, tagTransferFeeExtension, tagBurnChecked, tagCloseAccount, tagBurnChecked, tagCloseAccount, 2, 2},
	}
	if len(res.Txs) != len(wantTypes) {
		t.Fatalf("%d transactions, want %d", len(res.Txs), len(wantTypes))
	}
	for i, built := range res.Txs {
		raw, err := solana.TransactionFromBase64(built.Base64)
		if err != nil {
			t.Fatal(err)
		}
		tx := solana.MustTransactionFromDecoder(bin.NewBinDecoder(mustMarshal(t, raw)))
		if built.LedgerType != wantTypes[i] {
			t.Errorf("transaction %d is %s, want %s", i, built.LedgerType, wantTypes[i])
		}
		if tx.Message.GetVersion() != solana.MessageVersionV0 || len(tx.Message.AddressTableLookups) != 0 {
			t.Errorf("transaction %d: version %d with %d lookups, want v0 without", i, tx.Message.GetVersion(), len(tx.Message.AddressTableLookups))
		}
		if len(tx.Signatures) != 1 || !tx.Signatures[0].IsZero() || tx.Message.Header.NumRequiredSignatures != 1 || tx.Message.Header.NumReadonlySignedAccounts != 0 {
			t.Errorf("transaction %d: %d signatures, header %+v", i, len(tx.Signatures), tx.Message.Header)
		}
		checkAccounts(t, i, tx, built.Includes)
		var tags []byte
		for _, ix := range tx.Message.Instructions {
			tags = append(tags, ix.Data[0])
		}
		if !bytes.Equal(tags, wantTags[i]) {
			t.Errorf("transaction %d instruction tags %v, want %v", i, tags, wantTags[i])
		}
	}
}

// checkAccounts: the wallet is the fee payer and only signer; accounts the
// instructions change are writable, programs are not.
func checkAccounts(t *testing.T, i int, tx *solana.Transaction, includes []Selected) {
	t.Helper()
	metas, err := tx.Message.AccountMetaList()
	if err != nil {
		t.Fatal(err)
	}
	role := map[solana.PublicKey]string{}
	for j, m := range metas {
		switch {
		case j == 0 && (!m.PublicKey.Equals(wallet) || !m.IsSigner || !m.IsWritable):
			t.Errorf("transaction %d: fee payer %+v", i, m)
		case j > 0 && m.IsSigner:
			t.Errorf("transaction %d: %s signs", i, m.PublicKey)
		}
		role[m.PublicKey] = map[bool]string{true: "w", false: "r"}[m.IsWritable]
	}
	want := map[solana.PublicKey]string{wallet: "w", donee: "w", treasury: "w", solana.ComputeBudget: "r", solana.SystemProgramID: "r"}
	// The reference key: the one account of SetLoadedAccountsDataSizeLimit
	// (the third instruction), read-only.
	ref := tx.Message.Instructions[2]
	if len(ref.Accounts) != 1 {
		t.Errorf("transaction %d: the reference instruction has %d accounts, want the key alone", i, len(ref.Accounts))
	} else {
		want[tx.Message.AccountKeys[ref.Accounts[0]]] = "r"
	}
	for _, s := range includes {
		want[s.Item.Address], want[s.Item.TokenProgram] = "w", "r"
		if s.Action == assets.ActionBurn || s.Item.WithheldAmount > 0 {
			want[s.Item.Mint] = "w"
		}
	}
	if fmt.Sprint(role) != fmt.Sprint(want) {
		t.Errorf("transaction %d accounts\n got %v\nwant %v", i, role, want)
	}
}

func mustMarshal(t *testing.T, tx *solana.Transaction) []byte {
	t.Helper()
	b, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBuildsNeverRepeat: two builds of the same request on the same
// blockhash and fees (two projects building for one wallet) produce
// different messages, each carrying its own reference key, and neither's
// digest accepts the other's message, so neither ticket can claim the
// other's signature, while each accepts its own with the compute limit a
// wallet may set instead of ours.
func TestBuildsNeverRepeat(t *testing.T) {
	t.Parallel()
	p := fullParams(goldenItems(), 0)
	a, b := build(t, newFake(), p), build(t, newFake(), p)
	for i := range a.Txs {
		x, y := a.Txs[i], b.Txs[i]
		if x.MessageHash == y.MessageHash {
			t.Fatalf("transaction %d: two builds produced the same message", i)
		}
		if _, err := signedcheck.Check(y.Summary.Digest, wallet, x.Message); err == nil {
			t.Errorf("transaction %d: another build's digest accepted this message", i)
		}
		// A wallet's own compute limit, in place of ours: the reference stays.
		edited := x.Transaction.Message
		edited.Instructions = slices.Clone(edited.Instructions)
		edited.Instructions[0].Data = binary.LittleEndian.AppendUint32([]byte{tagSetComputeUnitLimit}, x.ComputeUnits-1)
		msg, err := edited.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := signedcheck.Check(x.Summary.Digest, wallet, msg); err != nil {
			t.Errorf("transaction %d: its own digest refused it with a wallet's limit: %v", i, err)
		}
		if _, err := signedcheck.Check(y.Summary.Digest, wallet, msg); err == nil {
			t.Errorf("transaction %d: another build's digest accepted it with a wallet's limit", i)
		}
	}
}
