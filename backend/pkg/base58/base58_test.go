package base58

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// reference is solana-go's decoding of s as an address.
func reference(s []byte) ([32]byte, bool) {
	k, err := solana.PublicKeyFromBase58(string(s))
	return k, err == nil
}

func check(t *testing.T, s []byte) {
	t.Helper()
	got, ok := Decode32(s)
	want, wantOK := reference(s)
	if ok != wantOK || ok && got != want {
		t.Fatalf("Decode32(%q) = %x, %v; solana-go: %x, %v", s, got, ok, want, wantOK)
	}
}

func TestDecode32(t *testing.T) {
	t.Parallel()
	for range 2000 {
		k := solana.NewWallet().PublicKey()
		check(t, []byte(k.String()))
	}
	for _, s := range []string{
		"", "1", strings.Repeat("1", 31), strings.Repeat("1", 32), strings.Repeat("1", 33),
		"11111111111111111111111111111111", // the System program: 32 zero bytes
		"So11111111111111111111111111111111111111112",
		"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
		"TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
		"1TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", // a zero byte too many
		"JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG", // 2^256 - 1: the largest value of 32 bytes
		"JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFH", // 2^256: 33 bytes
		"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", // far over
		"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D0",  // '0' is not base58
		"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DI",  // nor 'I'
		"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D\xff",
		"2", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", // short values: fewer than 32 bytes
	} {
		check(t, []byte(s))
	}
}

// FuzzDecode32: Decode32 accepts and decodes exactly what solana-go does.
func FuzzDecode32(f *testing.F) {
	f.Add([]byte("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"))
	f.Add([]byte("11111111111111111111111111111111"))
	f.Add([]byte("1TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"))
	f.Add([]byte("JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFH"))
	f.Fuzz(func(t *testing.T, s []byte) { check(t, s) })
}

func BenchmarkDecode32(b *testing.B) {
	s := []byte(solana.NewWallet().PublicKey().String())
	for b.Loop() {
		Decode32(s)
	}
}

func BenchmarkPublicKeyFromBase58(b *testing.B) {
	s := solana.NewWallet().PublicKey().String()
	for b.Loop() {
		_, _ = solana.PublicKeyFromBase58(s)
	}
}
