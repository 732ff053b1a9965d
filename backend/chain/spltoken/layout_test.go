package spltoken_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken/spltokentest"
)

func TestParseAccount(t *testing.T) {
	t.Parallel()
	mint, owner, other := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	cases := []struct {
		name string
		in   spltokentest.Account
	}{
		{"token", spltokentest.Account{Account: spltoken.Account{Mint: mint, Owner: owner, Amount: 5}}},
		{"frozen", spltokentest.Account{Account: spltoken.Account{Mint: mint, Owner: owner, Frozen: true}}},
		{"wrapped SOL", spltokentest.Account{Account: spltoken.Account{Mint: solana.WrappedSol, Owner: owner, Amount: 9, Native: true}}},
		{"close authority", spltokentest.Account{Account: spltoken.Account{Mint: mint, Owner: owner, CloseAuthority: &other}}},
		{"Token-2022 withheld fees", spltokentest.Account{Account: spltoken.Account{Mint: mint, Owner: owner, WithheldAmount: 77}}},
		{"Token-2022 immutable owner", spltokentest.Account{Account: spltoken.Account{Mint: mint, Owner: owner}, Token2022: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := spltoken.ParseAccount(tc.in.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			want := tc.in.Account
			sameAuth := (got.CloseAuthority == nil) == (want.CloseAuthority == nil) &&
				(got.CloseAuthority == nil || *got.CloseAuthority == *want.CloseAuthority)
			got.CloseAuthority, want.CloseAuthority = nil, nil
			if got != want || !sameAuth {
				t.Errorf("ParseAccount = %+v, want %+v", got, want)
			}
		})
	}
}

func TestForeignCloseAuthority(t *testing.T) {
	t.Parallel()
	owner, other := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	for _, tc := range []struct {
		auth *solana.PublicKey
		want bool
	}{{nil, false}, {&owner, false}, {&other, true}} {
		if got := (spltoken.Account{Owner: owner, CloseAuthority: tc.auth}).ForeignCloseAuthority(); got != tc.want {
			t.Errorf("close authority %v: %v, want %v", tc.auth, got, tc.want)
		}
	}
}

func TestParseAccountRejects(t *testing.T) {
	t.Parallel()
	good := spltokentest.Account{Account: spltoken.Account{Mint: solana.NewWallet().PublicKey(), Owner: solana.NewWallet().PublicKey()}, Token2022: true}.Bytes()
	mintType := append([]byte{}, good...)
	mintType[spltoken.AccountSize] = byte(spltoken.AccountTypeMint)
	badState := append([]byte{}, good...)
	badState[108] = 3
	cases := map[string][]byte{
		"short":             good[:164],
		"multisig size":     make([]byte, spltoken.MultisigSize),
		"Token-2022 mint":   mintType,
		"unknown state":     badState,
		"uninitialized 165": make([]byte, spltoken.AccountSize),
	}
	for name, data := range cases {
		if _, err := spltoken.ParseAccount(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := spltoken.ParseAccount(good); err != nil {
		t.Errorf("good account: %v", err)
	}
	// A TLV entry that overruns the data is ignored, not a failure.
	fee := spltokentest.TLV(spltoken.ExtensionTransferFeeAmount, []byte{9, 0, 0, 0, 0, 0, 0, 0})
	overrun := append(append([]byte{}, good[:spltoken.AccountSize+1]...), fee[:6]...)
	if a, err := spltoken.ParseAccount(overrun); err != nil || a.WithheldAmount != 0 {
		t.Errorf("overrunning extension: %+v, %v", a, err)
	}
}

func TestParseMintMetadataExtension(t *testing.T) {
	t.Parallel()
	m := solana.NewWallet().PublicKey()
	md := spltoken.TokenMetadata{Name: "N", Symbol: "S", URI: "U"}
	st, err := spltoken.ParseMint(spltokentest.Mint(m, 9, 42, &md))
	if err != nil || st.Decimals != 9 || st.Supply != 42 || st.Metadata == nil || *st.Metadata != md {
		t.Errorf("mint %+v, %v", st, err)
	}
	if _, err := spltoken.ParseMint(make([]byte, spltoken.MintSize)); err == nil {
		t.Error("uninitialized mint parsed")
	}
	plain, err := spltoken.ParseMint(spltokentest.Mint(m, 6, 1, nil))
	if err != nil || plain.Metadata != nil || plain.Decimals != 6 {
		t.Errorf("mint without extensions: %+v, %v", plain, err)
	}
	account := spltokentest.Account{Account: spltoken.Account{Mint: m, Owner: m}, Token2022: true}.Bytes()
	if _, err := spltoken.ParseMint(account); err == nil {
		t.Error("a Token-2022 account read as a mint")
	}
}

func TestParseTokenMetadataTruncated(t *testing.T) {
	t.Parallel()
	md := spltoken.TokenMetadata{Name: "Name", Symbol: "SYM", URI: "https://example.com/m.json"}
	whole := spltokentest.Mint(solana.NewWallet().PublicKey(), 0, 1, &md)
	var value []byte
	spltoken.EachExtension(whole, func(typ spltoken.ExtensionType, v []byte) {
		if typ == spltoken.ExtensionTokenMetadata {
			value = v
		}
	})
	if got, err := spltoken.ParseTokenMetadata(value); err != nil || got != md {
		t.Fatalf("ParseTokenMetadata = %+v, %v", got, err)
	}
	if _, err := spltoken.ParseTokenMetadata(value[:80]); err == nil {
		t.Error("a truncated name parsed")
	}
}

func TestSizes(t *testing.T) {
	t.Parallel()
	if got := spltoken.ExtendedSize(spltoken.TransferFeeConfigLen); got != 278 {
		t.Errorf("mint with TransferFeeConfig: %d bytes, want 278", got)
	}
	if got := spltoken.ExtendedSize(spltoken.MetadataPointerLen); got != 234 {
		t.Errorf("mint with MetadataPointer: %d bytes, want 234", got)
	}
	// The TLV entry InitializeTokenMetadata appends, as spl-token-metadata-interface sizes it.
	if got := spltoken.TokenMetadataSize("Name", "SYM", "uri"); got != 4+64+4+4+4+3+4+3+4 {
		t.Errorf("TokenMetadataSize = %d", got)
	}
}

func TestParseMintAuthority(t *testing.T) {
	t.Parallel()
	self, auth := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	md := spltoken.TokenMetadata{Name: "N", Symbol: "S", URI: "U"}
	for name, data := range map[string][]byte{
		"SPL Token mint":                  spltokentest.MintOf(&auth, self, 6, 1000, nil),
		"Token-2022 mint with extensions": spltokentest.MintOf(&auth, self, 6, 1000, &md),
	} {
		m, err := spltoken.ParseMint(data)
		if err != nil || m.MintAuthority == nil || *m.MintAuthority != auth {
			t.Errorf("%s: ParseMint = %+v, %v; want mint authority %s", name, m, err, auth)
		}
		if got := data[spltoken.MintAuthorityFilter : spltoken.MintAuthorityFilter+36]; string(got) != string(spltoken.MintAuthorityBytes(auth)) {
			t.Errorf("%s: the filter's bytes %x are not the mint's %x", name, spltoken.MintAuthorityBytes(auth), got)
		}
	}
	fixed, err := spltoken.ParseMint(spltokentest.MintOf(nil, self, 0, 1, nil))
	if err != nil || fixed.MintAuthority != nil {
		t.Errorf("a mint without mint authority: %+v, %v", fixed, err)
	}
}

func TestWithdrawsExcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		program solana.PublicKey
		pToken  bool
		want    bool
	}{
		{solana.Token2022ProgramID, false, true},
		{solana.Token2022ProgramID, true, true},
		{solana.TokenProgramID, true, true},
		{solana.TokenProgramID, false, false}, // the classic program: InvalidInstruction
		{solana.SystemProgramID, true, false},
	} {
		if got := spltoken.WithdrawsExcess(tc.program, tc.pToken); got != tc.want {
			t.Errorf("WithdrawsExcess(%s, p-token %v) = %v, want %v", tc.program, tc.pToken, got, tc.want)
		}
	}
}

// A mint with MintCloseAuthority is 202 bytes (the base padded to 165, the
// account type, the 4-byte TLV header and the 32-byte key), as Token-2022's
// get_account_len gives it; an all-zero key is none (MaybeNull).
func TestParseMintCloseAuthority(t *testing.T) {
	t.Parallel()
	auth, closer := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	d := spltokentest.ClosableMint(&auth, &closer, 6, 0)
	if len(d) != 202 || d[spltoken.AccountSize+1] != 3 || d[spltoken.AccountSize+3] != 32 {
		t.Fatalf("laid out %d bytes, TLV header %x", len(d), d[spltoken.AccountSize+1:spltoken.AccountSize+5])
	}
	m, err := spltoken.ParseMint(d)
	if err != nil || m.CloseAuthority == nil || !m.CloseAuthority.Equals(closer) || m.Supply != 0 || !m.MintAuthority.Equals(auth) {
		t.Fatalf("mint %+v, %v", m, err)
	}
	if m, err := spltoken.ParseMint(spltokentest.ClosableMint(nil, nil, 6, 0)); err != nil || m.CloseAuthority != nil || m.MintAuthority != nil {
		t.Fatalf("no close authority: %+v, %v", m, err)
	}
	if m, err := spltoken.ParseMint(d[:len(d)-1]); err != nil || m.CloseAuthority != nil {
		t.Fatalf("truncated extension read: %+v, %v", m, err)
	}
}
