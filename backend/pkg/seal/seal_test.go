package seal

import (
	"bytes"
	"errors"
	"testing"
)

func TestSeal(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, KeySize)
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("whsec_c2VjcmV0")
	sealed := b.Seal(plain, []byte("whe_1"))
	if bytes.Contains(sealed, plain) {
		t.Fatal("the sealed value holds the plain one")
	}
	if again := b.Seal(plain, []byte("whe_1")); bytes.Equal(again, sealed) {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	got, err := b.Open(sealed, []byte("whe_1"))
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	flipped := append([]byte(nil), sealed...)
	flipped[len(flipped)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other row":   func() ([]byte, error) { return b.Open(sealed, []byte("whe_2")) },
		"other key":   func() ([]byte, error) { return other.Open(sealed, []byte("whe_1")) },
		"changed":     func() ([]byte, error) { return b.Open(flipped, []byte("whe_1")) },
		"truncated":   func() ([]byte, error) { return b.Open(sealed[:10], []byte("whe_1")) },
		"empty value": func() ([]byte, error) { return b.Open(nil, []byte("whe_1")) },
	} {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: %v, want ErrOpen", name, err)
		}
	}
	if _, err := New(key[:16]); err == nil {
		t.Error("a 16-byte key was accepted")
	}
}
