package txbuild

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// Reference keys: every transaction carries a key of its own, drawn at
// random when it is built, as the read-only, unsigned account of a
// SetLoadedAccountsDataSizeLimit at its default (referenceInstruction;
// Solana Pay's reference pattern). No two builds, of one project or of
// two, then produce the same message, so the signature of a transaction
// belongs to one ticket: a project that builds the same items for the same
// wallet on the same blockhash cannot pass the wallet's transaction off as
// its own. The key is no account anyone holds: it costs 41 bytes (the key,
// the instruction's 9) and 150 compute units, and loads no data.

// referenceSource draws reference keys; safe for concurrent builds.
type referenceSource struct {
	mu sync.Mutex
	r  io.Reader
}

// WithReferenceSource draws the reference keys from r instead of
// crypto/rand (tests: a seeded reader makes builds repeatable).
func WithReferenceSource(r io.Reader) Option {
	return func(b *Builder) { b.refs = &referenceSource{r: r} }
}

// draw returns n reference keys, in order.
func (s *referenceSource) draw(n int) ([]solana.PublicKey, error) {
	out := make([]solana.PublicKey, n)
	if s == nil {
		for i := range out {
			if _, err := rand.Read(out[i][:]); err != nil {
				return nil, fmt.Errorf("txbuild: reference key: %w", err)
			}
		}
		return out, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range out {
		if _, err := io.ReadFull(s.r, out[i][:]); err != nil {
			return nil, fmt.Errorf("txbuild: reference key: %w", err)
		}
	}
	return out, nil
}

// sizingReference stands for the reference key while packing counts bytes:
// a key of its own, as every drawn one is.
var sizingReference = solana.PublicKeyFromBytes(func() []byte {
	h := sha256.Sum256([]byte("reclaim/txbuild/sizing reference"))
	return h[:]
}())
