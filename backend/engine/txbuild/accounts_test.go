package txbuild

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// Figures of the local validator after its rent cut to 5,080 lamports a
// byte (e2e TestReclaimablesLand): the excess of a 165-byte account, a
// buffer of 2,000 program bytes, a nonce account, a stake account of 5 SOL.
const (
	excessRent  = 550_840
	bufferRent  = 15_068_400
	nonceRent   = 1_447_680
	stakeWhole  = 5_002_282_880
	stakeRent   = 2_282_880 // 200 bytes: the rest of stakeWhole is the wallet's principal
	excessMint  = 394_800
	excess22ATA = 560_240
)

// excess is the excess rent of wallet's account (or mint) under program.
func excess(name string, program solana.PublicKey, lamports uint64) Selected {
	return Selected{Action: assets.ActionWithdrawExcess, Item: assets.Item{
		Type: assets.TypeExcessRent, Address: key(name), Owner: wallet, Mint: key("mint " + name), TokenProgram: program,
		Lamports: lamports, Rent: lamports, Amount: 7, Actions: []assets.Action{assets.ActionWithdrawExcess},
	}}
}

// whole is an account of wallet reclaimed whole: a buffer, a nonce or a
// stake account; a stake account's rent is its minimum (stakeRent), the
// others' all their lamports.
func whole(name string, typ assets.ItemType, lamports uint64) Selected {
	program := map[assets.ItemType]solana.PublicKey{assets.TypeProgramBuffer: loaderv3.ProgramID,
		assets.TypeNonceAccount: solana.SystemProgramID, assets.TypeStakeAccount: stake.ProgramID}[typ]
	rent := lamports
	if typ == assets.TypeStakeAccount {
		rent = min(lamports, stakeRent)
	}
	return Selected{Action: assets.ActionsFor(typ)[0], Item: assets.Item{
		Type: typ, Address: key(name), Owner: wallet, TokenProgram: program, Lamports: lamports, Rent: rent, Actions: assets.ActionsFor(typ),
	}}
}

// TestBuildReclaimsAccounts: excess rent (token accounts and mints of both
// programs), a program buffer, a nonce account and a stake account, in a
// transaction per ledger type, each item one instruction of its program
// that sends its lamports to the wallet: WithdrawExcessLamports (38), the
// loader's Close (5), WithdrawNonceAccount (5, the balance), the stake
// program's Withdraw (4, the balance). The gross is what the items list.
func TestBuildReclaimsAccounts(t *testing.T) {
	t.Parallel()
	items := []Selected{
		excess("spl", solana.TokenProgramID, excessRent), whole("buffer", assets.TypeProgramBuffer, bufferRent),
		excess("t22", solana.Token2022ProgramID, excess22ATA), whole("nonce", assets.TypeNonceAccount, nonceRent),
		excess("mint", solana.Token2022ProgramID, excessMint), whole("stake", assets.TypeStakeAccount, stakeWhole),
	}
	res := build(t, newFake(), fullParams(items, 0))
	wantTypes := []ledger.Type{ledger.TypeExcessRentWithdrawal, ledger.TypeProgramBufferClosure, ledger.TypeNonceAccountClosure, ledger.TypeStakeAccountWithdrawal}
	if len(res.Txs) != len(wantTypes) {
		t.Fatalf("%d transactions, want one per type", len(res.Txs))
	}
	var gross uint64
	for i, tx := range res.Txs {
		if tx.LedgerType != wantTypes[i] {
			t.Errorf("transaction %d is %s, want %s", i, tx.LedgerType, wantTypes[i])
		}
		var sum uint64
		for _, s := range tx.Includes {
			sum += s.Item.Lamports
		}
		if tx.GrossRebate != sum || tx.NetRebate != int64(sum)-int64(tx.Fees)-int64(tx.DonationAmount) {
			t.Errorf("transaction %d: gross %d net %d, items %d", i, tx.GrossRebate, tx.NetRebate, sum)
		}
		gross += tx.GrossRebate
		// The items' instructions: after the compute budget (limit, price,
		// reference), before the
		// two transfers.
		ixs := tx.Transaction.Message.Instructions
		for j, s := range tx.Includes {
			ix := ixs[3+j]
			p, err := tx.Transaction.Message.Program(ix.ProgramIDIndex)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Equals(s.Item.TokenProgram) {
				t.Errorf("%s: program %s, want %s", s.Item.Address, p, s.Item.TokenProgram)
			}
			want := map[assets.ItemType]string{
				assets.TypeExcessRent: "26", assets.TypeProgramBuffer: "05000000",
				assets.TypeNonceAccount: fmt.Sprintf("05000000%x", binary.LittleEndian.AppendUint64(nil, s.Item.Lamports)),
				assets.TypeStakeAccount: fmt.Sprintf("04000000%x", binary.LittleEndian.AppendUint64(nil, s.Item.Lamports)),
			}[s.Item.Type]
			if got := fmt.Sprintf("%x", []byte(ix.Data)); got != want {
				t.Errorf("%s %s: data %s, want %s", s.Item.Type, s.Item.Address, got, want)
			}
			accounts, err := ix.ResolveInstructionAccounts(&tx.Transaction.Message)
			if err != nil {
				t.Fatal(err)
			}
			if !accounts[0].PublicKey.Equals(s.Item.Address) || !accounts[0].IsWritable || !accounts[1].PublicKey.Equals(wallet) {
				t.Errorf("%s: accounts %v: the item first, then the wallet receives", s.Item.Address, accounts)
			}
		}
	}
	if want := uint64(excessRent + excess22ATA + excessMint + bufferRent + nonceRent + stakeWhole); gross != want {
		t.Errorf("gross %d, want %d", gross, want)
	}
}

// TestPackAccountsFillTheSpace: each kind packs to the byte limit as closes
// do: every transaction but the last too full for one more item (with the
// compute budget, a price and both transfers).
func TestPackAccountsFillTheSpace(t *testing.T) {
	t.Parallel()
	kinds := map[string]func(i int) Selected{
		"excess rent": func(i int) Selected { return excess(fmt.Sprint("x", i), solana.Token2022ProgramID, excessRent) },
		"buffers":     func(i int) Selected { return whole(fmt.Sprint("b", i), assets.TypeProgramBuffer, bufferRent) },
		"nonces":      func(i int) Selected { return whole(fmt.Sprint("n", i), assets.TypeNonceAccount, nonceRent) },
		"stakes":      func(i int) Selected { return whole(fmt.Sprint("s", i), assets.TypeStakeAccount, stakeWhole) },
	}
	for name, item := range kinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Logf("%s: %v a transaction of at most %d bytes", name, packedFull(t, make100(item), 64), MaxTransactionSize-64)
		})
	}
}

func make100(f func(int) Selected) []Selected {
	out := make([]Selected, 100)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// TestBuildRefusesAccountMistakes: items discovery would not make are
// refused before the cluster is asked, naming the item.
func TestBuildRefusesAccountMistakes(t *testing.T) {
	t.Parallel()
	closeStake := whole("s", assets.TypeStakeAccount, stakeWhole)
	closeStake.Action = assets.ActionClose
	burnExcess := excess("e", solana.TokenProgramID, excessRent)
	burnExcess.Action = assets.ActionBurn
	othersBuffer := whole("b", assets.TypeProgramBuffer, bufferRent)
	othersBuffer.Item.Owner = key("someone")
	nonceOfLoader := whole("n", assets.TypeNonceAccount, nonceRent)
	nonceOfLoader.Item.TokenProgram = loaderv3.ProgramID
	excessOfSystem := excess("x", solana.SystemProgramID, excessRent)
	nothing := excess("z", solana.TokenProgramID, 0)
	for name, s := range map[string]Selected{
		"a stake closed": closeStake, "excess burned": burnExcess, "another wallet's buffer": othersBuffer,
		"a nonce account of the loader": nonceOfLoader, "excess of a System account": excessOfSystem, "no excess": nothing,
	} {
		_, err := NewBuilder(newFake()).Build(t.Context(), Params{Wallet: wallet, Items: []Selected{s}})
		var e *assets.ItemError
		if !errors.As(err, &e) || e.Address != s.Item.Address.String() {
			t.Errorf("%s: %v, want an *assets.ItemError naming the item", name, err)
		}
	}
}
