package signedcheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

// fuzzBuilt is a built message, its net rebate and its digest, with the
// bounds of the service's default allowance.
type fuzzBuilt struct {
	msg    []byte
	wallet solana.PublicKey
	net    int64
	digest Digest
}

// realBuilt reads the transactions txbuild's golden test pins (real built
// messages: an NFT burn, closes and burns of Token and Token-2022 accounts,
// with a donation and a service fee, each after a comment that gives its net
// rebate), plus this package's fixture.
func realBuilt(t testing.TB) []fuzzBuilt {
	t.Helper()
	f, err := os.Open("../../engine/txbuild/testdata/build.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fuzzBuilt
	var net int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := netComment.FindStringSubmatch(line); m != nil {
			if net, err = strconv.ParseInt(m[1], 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		tx, err := solana.TransactionFromBase64(line)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := tx.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fuzzBuilt{msg: msg, wallet: tx.Message.AccountKeys[0], net: net, digest: allowed(t, msg, net)})
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("no built transactions in the golden file (%v)", err)
	}
	msg := signedBy(t, built()...)
	return append(out, fuzzBuilt{msg: msg, wallet: wallet, net: fixtureNet, digest: allowed(t, msg, fixtureNet)})
}

// netComment is the net rebate in a golden file's comment.
var netComment = regexp.MustCompile(`^#.* net (-?\d+),`)

// FuzzCheck mutates signed messages against real built ones. The property:
// whatever Check accepts is, read by solana-go (another reader of the same
// bytes) and once Lighthouse assertions and compute unit limit and price are
// removed, the built transaction: same fee payer, blockhash and signer
// count, no lookup tables, the same instructions with the same accounts,
// flags and data, in order, and no other writable key; and its compute
// budget within the default allowance (the attack of issue 19 among the
// seeds: a price of 5e10 beside two guards).
func FuzzCheck(f *testing.F) {
	all := realBuilt(f)
	for i, b := range all {
		f.Add(uint8(i), b.msg)
	}
	// Guarded variants of the fixture, accepted, and refused ones.
	b := built()
	for _, ixs := range [][]solana.Instruction{
		insert(b, 2, assertLamports(wallet, 1), assertSystemOwned(wallet), assertTokenAmount(tokenAcct)),
		append(append([]solana.Instruction{}, b...), assertSystemOwned(wallet), assertLamports(stranger, 9)),
		append([]solana.Instruction{computePrice(1 << 40)}, b[2:]...),
		append(append([]solana.Instruction{b[0], computePrice(50_000_000_000)}, b[2:]...), assertSystemOwned(wallet), assertLamports(wallet, 5_000)),
		append(append([]solana.Instruction{b[0], computePrice(DefaultMaxPrice)}, b[2:]...), assertSystemOwned(wallet)),
		append([]solana.Instruction{computeLimit(26_001), b[1]}, b[2:]...),
		append([]solana.Instruction{computeLimit(26_000), computePrice(2_000_000)}, b[2:]...),
		append([]solana.Instruction{b[1]}, b[2:]...),
		append(append([]solana.Instruction{}, b...), memoryWrite()),
		append(append([]solana.Instruction{}, b...), transfer(wallet, stranger, 1)),
		{b[0], b[1], b[2], b[4], b[3]},
	} {
		f.Add(uint8(len(all)-1), signedBy(f, ixs...))
	}
	f.Fuzz(func(t *testing.T, which uint8, msg []byte) { fuzzOne(t, all[int(which)%len(all)], msg, sameAsBuilt) })
}

// fuzzOne checks msg against built b: a refusal is a MismatchError with a
// reason, and what Check accepts the oracle finds the same as built.
func fuzzOne(t *testing.T, b fuzzBuilt, msg []byte, oracle func(fuzzBuilt, []byte) string) {
	t.Helper()
	_, err := Check(b.digest, b.wallet, msg)
	if err != nil {
		var r *MismatchError
		if !errors.As(err, &r) || r.Reason == "" {
			t.Fatalf("not a refusal: %v", err)
		}
		return
	}
	if why := oracle(b, msg); why != "" {
		t.Fatalf("accepted, but %s", why)
	}
}

// view is an instruction as the runtime sees it.
type view struct {
	program solana.PublicKey
	metas   string // key, signer and writable flag of each account
	data    []byte
}

// sameAsBuilt is the fuzz oracle: "" when signed, read by solana-go, is b
// with only guards and compute unit limit and price changed.
func sameAsBuilt(b fuzzBuilt, signed []byte) string {
	var sm, bm solana.Message
	if err := sm.UnmarshalWithDecoder(bin.NewBinDecoder(signed)); err != nil {
		return fmt.Sprintf("solana-go cannot read it: %v", err)
	}
	if err := bm.UnmarshalWithDecoder(bin.NewBinDecoder(b.msg)); err != nil {
		return fmt.Sprintf("solana-go cannot read the built message: %v", err)
	}
	switch {
	case sm.AddressTableLookups.NumLookups() > 0:
		return "it has lookup tables"
	case sm.Header.NumRequiredSignatures != 1 || !sm.AccountKeys[0].Equals(b.wallet):
		return "it has another signer or fee payer"
	case sm.RecentBlockhash != bm.RecentBlockhash:
		return "it has another blockhash"
	}
	own, used, why := views(&sm, true)
	if why != "" {
		return why
	}
	if why := beyondBounds(&sm, &bm, b.net); why != "" {
		return why
	}
	want, _, _ := views(&bm, false)
	if len(own) != len(want) {
		return fmt.Sprintf("it has %d instructions besides guards and budget, built %d", len(own), len(want))
	}
	for i := range own {
		if !own[i].program.Equals(want[i].program) || own[i].metas != want[i].metas || !bytes.Equal(own[i].data, want[i].data) {
			return fmt.Sprintf("instruction %d differs: %+v, built %+v", i, own[i], want[i])
		}
	}
	for i, k := range sm.AccountKeys {
		if i > 0 && !used[k] && sm.IsWritableStatic(k) {
			return fmt.Sprintf("unused key %s is writable", k)
		}
	}
	return ""
}

// views reads m's instructions, leaving out compute unit limit and price
// and, when guards is set, Lighthouse assertions (at most one limit and one
// price). used holds the keys the others use.
func views(m *solana.Message, guards bool) ([]view, map[solana.PublicKey]bool, string) {
	var out []view
	used := map[solana.PublicKey]bool{}
	budget := map[byte]int{}
	for _, ix := range m.Instructions {
		if int(ix.ProgramIDIndex) >= len(m.AccountKeys) {
			return nil, nil, "a program index is out of range"
		}
		p := m.AccountKeys[ix.ProgramIDIndex]
		d := []byte(ix.Data)
		if p.Equals(solana.ComputeBudget) && len(ix.Accounts) == 0 &&
			((len(d) == 5 && d[0] == 2) || (len(d) == 9 && d[0] == 3)) {
			if budget[d[0]]++; budget[d[0]] > 1 {
				return nil, nil, "two compute budget instructions of one kind"
			}
			continue
		}
		if guards && p.Equals(LighthouseProgramID) && len(d) >= 2 && d[0] >= 2 && d[0] <= 15 {
			continue
		}
		v := view{program: p, data: d}
		used[p] = true
		for _, a := range ix.Accounts {
			if int(a) >= len(m.AccountKeys) {
				return nil, nil, "an account index is out of range"
			}
			k := m.AccountKeys[a]
			used[k] = true
			v.metas += fmt.Sprintf("%s/%t/%t ", k, m.IsSigner(k), m.IsWritableStatic(k))
		}
		out = append(out, v)
	}
	return out, used, ""
}

// beyondBounds is the fuzz oracle's own reading of the allowance: "" when
// signed's compute unit limit (the runtime's default of 200,000 units an
// instruction when it sets none), price and priority fee stay within the
// built ones widened by the default allowance, the fee by at most half net.
func beyondBounds(signed, built *solana.Message, net int64) string {
	units, price := oracleBudget(signed)
	builtUnits, builtPrice := oracleBudget(built)
	maxUnits := min(builtUnits+uint64(allowance.HeadroomUnits), 1_400_000)
	maxPrice := max(builtPrice, allowance.MaxPrice)
	fee := func(price, units uint64) *big.Int {
		n := new(big.Int).Mul(new(big.Int).SetUint64(price), new(big.Int).SetUint64(units))
		n.Add(n, big.NewInt(999_999))
		return n.Quo(n, big.NewInt(1_000_000))
	}
	maxFee := fee(maxPrice, maxUnits)
	if net > 0 {
		if half := new(big.Int).Add(fee(builtPrice, builtUnits), big.NewInt(net/2)); half.Cmp(maxFee) < 0 {
			maxFee = half
		}
	}
	switch {
	case units > maxUnits:
		return fmt.Sprintf("its limit %d is above %d", units, maxUnits)
	case price > maxPrice:
		return fmt.Sprintf("its price %d is above %d", price, maxPrice)
	case fee(price, units).Cmp(maxFee) > 0:
		return fmt.Sprintf("its priority fee %s is above %s", fee(price, units), maxFee)
	}
	return ""
}

// oracleBudget reads m's compute unit limit and price with solana-go.
func oracleBudget(m *solana.Message) (units, price uint64) {
	explicit, others := false, uint64(0)
	for _, ix := range m.Instructions {
		d := []byte(ix.Data)
		switch {
		case !m.AccountKeys[ix.ProgramIDIndex].Equals(solana.ComputeBudget) || len(ix.Accounts) != 0:
			others++
		case len(d) == 5 && d[0] == 2:
			units, explicit = uint64(binary.LittleEndian.Uint32(d[1:])), true
		case len(d) == 9 && d[0] == 3:
			price = binary.LittleEndian.Uint64(d[1:])
		default:
			others++
		}
	}
	if !explicit {
		units = min(others*200_000, 1_400_000)
	}
	return units, price
}

// TestOracleAgrees runs the fuzz oracle on the fixture cases, so that the
// oracle is known to tell accepted from refused the way Check does.
func TestOracleAgrees(t *testing.T) {
	t.Parallel()
	b := realBuilt(t)
	fx := b[len(b)-1]
	ixs := built()
	ok := signedBy(t, insert(ixs, 2, assertSystemOwned(wallet))...)
	bad := signedBy(t, append(append([]solana.Instruction{}, ixs...), transfer(wallet, stranger, 1))...)
	if why := sameAsBuilt(fx, ok); why != "" {
		t.Fatalf("oracle refuses a guarded message: %s", why)
	}
	if why := sameAsBuilt(fx, bad); why == "" {
		t.Fatal("oracle accepts an added transfer")
	}
	attack := signedBy(t, append(append([]solana.Instruction{ixs[0], computePrice(50_000_000_000)}, ixs[2:]...), assertSystemOwned(wallet))...)
	if why := sameAsBuilt(fx, attack); !strings.Contains(why, "its price 50000000000 is above 5000000") {
		t.Fatalf("oracle on the attack: %q", why)
	}
	for _, g := range b {
		if g.net <= 0 {
			t.Fatal("a golden transaction without its net rebate")
		}
		if _, err := Check(g.digest, g.wallet, g.msg); err != nil {
			t.Fatalf("a golden message refused against its own digest: %v", err)
		}
	}
}

// FuzzCheckEdits edits the instruction lists of real built messages (adds
// Lighthouse instructions of any discriminator, compute budget, transfers,
// memos and closes; removes, swaps and alters instructions and accounts),
// compiles them as a wallet would, and checks the same property as
// FuzzCheck: raw byte mutations rarely make a message Check accepts, edits
// often do.
func FuzzCheckEdits(f *testing.F) {
	all := realBuilt(f)
	for i := range all {
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{0, 5, 0, 1, 2, 0, 6, 4, 0, 0, 1, 3, 1, 0})
		f.Add(uint8(i), []byte{2, 0, 1, 7, 3, 1, 2, 4, 2, 9, 5, 1, 6, 2, 1})
	}
	// The attack of issue 19 as edits: a price of 46 << 30 (about 4.9e10)
	// and two guards; a limit of 255 << 15 (8.4M).
	f.Add(uint8(len(all)-1), []byte{1, 46, 0, 30, 0, 6, 0, 4, 0, 5, 0, 10})
	f.Add(uint8(0), []byte{2, 255, 0, 15, 0, 6, 0, 4})
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		b := all[int(which)%len(all)]
		ixs, err := decompile(b.msg)
		if err != nil {
			t.Fatal(err)
		}
		var bm solana.Message
		if err := bm.UnmarshalWithDecoder(bin.NewBinDecoder(b.msg)); err != nil {
			t.Fatal(err)
		}
		ixs, payer, hash := edit(ixs, b.wallet, bm.RecentBlockhash, ops)
		tx, err := solana.NewTransaction(ixs, hash, solana.TransactionPayer(payer))
		if err != nil {
			return
		}
		tx.Message.SetVersion(solana.MessageVersionV0)
		msg, err := tx.Message.MarshalBinary()
		if err != nil {
			return
		}
		if _, err := Check(b.digest, b.wallet, msg); err != nil {
			return
		}
		if why := sameAsBuilt(b, msg); why != "" {
			t.Fatalf("accepted, but %s", why)
		}
	})
}

// decompile turns a message back into instructions with their flags.
func decompile(msg []byte) ([]solana.Instruction, error) {
	var m solana.Message
	if err := m.UnmarshalWithDecoder(bin.NewBinDecoder(msg)); err != nil {
		return nil, err
	}
	var out []solana.Instruction
	for _, ix := range m.Instructions {
		metas := solana.AccountMetaSlice{}
		for _, a := range ix.Accounts {
			k := m.AccountKeys[a]
			metas = append(metas, &solana.AccountMeta{PublicKey: k, IsSigner: m.IsSigner(k), IsWritable: m.IsWritableStatic(k)})
		}
		out = append(out, solana.NewInstruction(m.AccountKeys[ix.ProgramIDIndex], metas, append([]byte{}, ix.Data...)))
	}
	return out, nil
}

// edit applies ops to ixs: each op is a code and up to three argument bytes.
func edit(ixs []solana.Instruction, payer solana.PublicKey, hash solana.Hash, ops []byte) ([]solana.Instruction, solana.PublicKey, solana.Hash) {
	pool := []solana.PublicKey{wallet, stranger, tokenAcct, donation, treasury, LighthouseProgramID, solana.SystemProgramID}
	for _, ix := range ixs {
		for _, a := range ix.Accounts() {
			pool = append(pool, a.PublicKey)
		}
	}
	at := func(b byte, n int) int { return int(b) % (n + 1) }
	arg := func(i int) byte {
		if i < len(ops) {
			return ops[i]
		}
		return 0
	}
	for i := 0; i < len(ops); i += 4 {
		a, b, c := arg(i+1), arg(i+2), arg(i+3)
		k := pool[int(b)%len(pool)]
		var add solana.Instruction
		switch ops[i] % 10 {
		case 0: // a Lighthouse instruction, any discriminator, on a pool key
			add = lighthouse([]byte{a % 20, c % 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4}[:2+int(c)%11], k)
		case 1:
			add = computePrice(uint64(a) << (c % 40))
		case 2:
			add = computeLimit(uint32(a) << (c % 16))
		case 3:
			add = []solana.Instruction{transfer(payer, k, uint64(a)), memo(string(rune(c))), closeAccount(k)}[int(a)%3]
		case 4:
			if n := len(ixs); n > 1 {
				x, y := int(a)%n, int(b)%n
				ixs[x], ixs[y] = ixs[y], ixs[x]
			}
		case 5:
			if n := len(ixs); n > 0 {
				j := int(a) % n
				d := append([]byte{}, ixs[j].(*solana.GenericInstruction).DataBytes...)
				if len(d) > 0 {
					d[int(b)%len(d)] ^= c | 1
				}
				ixs[j] = solana.NewInstruction(ixs[j].ProgramID(), ixs[j].Accounts(), d)
			}
		case 6:
			if n := len(ixs); n > 0 {
				ixs = append(ixs[:int(a)%n:int(a)%n], ixs[int(a)%n+1:]...)
			}
		case 7:
			if n := len(ixs); n > 0 && len(ixs[int(a)%n].Accounts()) > 0 {
				j := int(a) % n
				metas := append(solana.AccountMetaSlice{}, ixs[j].Accounts()...)
				m := *metas[int(c)%len(metas)]
				if c&1 == 0 {
					m.PublicKey = k
				} else {
					m.IsWritable = !m.IsWritable
				}
				metas[int(c)%len(metas)] = &m
				ixs[j] = solana.NewInstruction(ixs[j].ProgramID(), metas, ixs[j].(*solana.GenericInstruction).DataBytes)
			}
		case 8:
			add = solana.NewInstruction(LighthouseProgramID, solana.AccountMetaSlice{{PublicKey: k, IsWritable: a&1 == 1, IsSigner: a&2 == 2}}, []byte{5 + a%10, 0})
		case 9:
			if a&1 == 1 {
				payer = k
			} else {
				hash[int(b)%32] ^= c | 1
			}
		}
		if add != nil {
			j := at(a, len(ixs))
			ixs = append(ixs[:j:j], append([]solana.Instruction{add}, ixs[j:]...)...)
		}
	}
	return ixs, payer, hash
}
