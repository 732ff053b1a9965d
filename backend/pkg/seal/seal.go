// Package seal encrypts small secrets kept in a database (AES-256-GCM), so
// that a copy of the database alone does not reveal them. The key lives
// elsewhere (the operator's settings or the data directory); the additional
// data binds a sealed value to the row it belongs to, so it cannot be moved
// to another row and opened there.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the length of a Box's key: AES-256.
const KeySize = 32

// ErrOpen is a sealed value that does not open: another key sealed it, or
// it was changed, or it was sealed for other additional data.
var ErrOpen = errors.New("sealed value does not open with this key")

// Box seals and opens values under one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New returns a Box keyed by key, KeySize bytes.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: key of %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal returns plain encrypted and authenticated with ad: a random nonce
// followed by the ciphertext and its tag.
func (b *Box) Seal(plain, ad []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b.aead.Seal(nonce, nonce, plain, ad)
}

// Open returns the plain value of sealed, which Seal returned for ad, or
// ErrOpen.
func (b *Box) Open(sealed, ad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
