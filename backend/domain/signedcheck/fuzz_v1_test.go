package signedcheck

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// kitMessages are the v1 messages of txv1's goldens, written by
// @solana/kit 8.4.0 (signature slots cut off the transactions).
func kitMessages(t testing.TB) [][]byte {
	t.Helper()
	raw, err := os.ReadFile("../../chain/txv1/testdata/kit.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct{ Message, Transaction string } `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, c := range g.Cases {
		for _, s := range []string{c.Message, c.Transaction} {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// builtV1Fuzz is the v1 fixture and each kit message that digests, as
// built messages with the default allowance.
func builtV1Fuzz(t testing.TB) []fuzzBuilt {
	b, c := builtV1()
	msg := compileV1(t, c, b...)
	out := []fuzzBuilt{{msg: msg, wallet: wallet, net: fixtureNet, digest: allowed(t, msg, fixtureNet)}}
	for _, m := range kitMessages(t) {
		d, err := DigestOf(m)
		if err != nil {
			continue
		}
		d.Allow(allowance, 1_000_000)
		p, _ := parse(m)
		out = append(out, fuzzBuilt{msg: m, wallet: p.keys[0], net: 1_000_000, digest: d})
	}
	return out
}

// FuzzCheckV1 feeds Check v1 messages (kit's goldens, the fixture and its
// guarded and tampered variants, and what the fuzzer makes of them): it
// never panics, refuses with a reason, and what it accepts is, read by
// txv1's decoder, the built message with only guards, the compute-unit
// limit and the priority fee changed, within the bounds.
func FuzzCheckV1(f *testing.F) {
	all := builtV1Fuzz(f)
	for i, b := range all {
		f.Add(uint8(i), b.msg)
	}
	for _, m := range kitMessages(f) {
		f.Add(uint8(0), m)
	}
	b, c := builtV1()
	raised := configWith(c, func(c *txv1.Config) { c.SetComputeUnitLimit(26_000); c.SetPriorityFee(130_000) })
	for _, v := range []struct {
		c   txv1.Config
		ixs []solana.Instruction
	}{
		{c, append(insert(b, 0, assertLamports(wallet, 1)), assertSystemOwned(wallet))},
		{raised, b},
		{configWith(c, func(c *txv1.Config) { c.SetPriorityFee(1 << 40) }), b},
		{configWith(c, func(c *txv1.Config) { c.SetHeapSize(1 << 16) }), b},
		{c, append(append([]solana.Instruction{}, b...), memoryWrite())},
		{c, append(append([]solana.Instruction{}, b...), computeLimit(1))},
		{c, []solana.Instruction{b[0], b[2], b[1]}},
	} {
		f.Add(uint8(0), compileV1(f, v.c, v.ixs...))
	}
	f.Fuzz(func(t *testing.T, which uint8, msg []byte) { fuzzOne(t, all[int(which)%len(all)], msg, sameAsBuiltV1) })
}

// v1View is an instruction of a v1 message as the runtime sees it.
type v1View struct {
	program solana.PublicKey
	metas   string
	data    string
}

// v1Views reads m's instructions, leaving out Lighthouse assertions.
func v1Views(m *txv1.Message) []v1View {
	var out []v1View
	for _, ix := range m.Instructions {
		p := m.AccountKeys[ix.ProgramIDIndex]
		if p == LighthouseProgramID && len(ix.Data) >= 2 && ix.Data[0] >= firstAssertion && ix.Data[0] <= lastAssertion {
			continue
		}
		metas := ""
		for _, a := range ix.Accounts {
			metas += fmt.Sprintf("%s/%t/%t ", m.AccountKeys[a], m.IsSigner(int(a)), m.IsWritable(int(a)))
		}
		out = append(out, v1View{program: p, metas: metas, data: string(ix.Data)})
	}
	return out
}

// sameAsBuiltV1 is the oracle: "" when signed, read by txv1, is b but for
// guards, the limit and the fee, within b's bounds.
func sameAsBuiltV1(b fuzzBuilt, signed []byte) string {
	var sm, bm txv1.Message
	if err := sm.UnmarshalBinary(signed); err != nil {
		return "txv1 cannot read it: " + err.Error()
	}
	if err := bm.UnmarshalBinary(b.msg); err != nil {
		return "txv1 cannot read the built one: " + err.Error()
	}
	sc, bc := sm.Config, bm.Config
	switch {
	case sm.AccountKeys[0] != b.wallet || sm.Header.NumRequiredSignatures != 1:
		return "another payer or signer"
	case sm.RecentBlockhash != bm.RecentBlockhash:
		return "another blockhash"
	case sc.Mask&fixedBits != bc.Mask&fixedBits || sc.LoadedAccountsDataSizeLimit != bc.LoadedAccountsDataSizeLimit || sc.HeapSize != bc.HeapSize:
		return "the loaded-data limit or heap size changed"
	case sc.Mask&txv1.MaskComputeUnitLimit == 0 && min(200_000*len(sm.Instructions), 1_400_000) > int(b.digest.MaxUnits):
		return "the compute-unit limit is unset and the runtime's default is beyond the bound"
	case sc.ComputeUnitLimit > b.digest.MaxUnits:
		return "the compute-unit limit is beyond the bound"
	case sc.Mask&txv1.MaskPriorityFee != 0 && sc.PriorityFeeLamports > b.digest.MaxPriorityFee:
		return "the priority fee is beyond the bound"
	case !slices.Equal(v1Views(&sm), v1Views(&bm)):
		return "the instructions other than guards differ"
	}
	for i := range sm.AccountKeys {
		if i > 0 && sm.IsWritable(i) && !usedByOwn(&sm, i) {
			return "an unused account is writable"
		}
	}
	return ""
}

// usedByOwn reports whether address i is used by an instruction that is
// not a Lighthouse assertion.
func usedByOwn(m *txv1.Message, i int) bool {
	for _, ix := range m.Instructions {
		if m.AccountKeys[ix.ProgramIDIndex] == LighthouseProgramID {
			continue
		}
		if int(ix.ProgramIDIndex) == i || slices.Contains(ix.Accounts, uint8(i)) {
			return true
		}
	}
	return false
}
