package signedcheck

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// message is a Solana transaction message, legacy, version 0 or version 1,
// read strictly: every index in range, no trailing bytes, canonical lengths.
// It is read here (v1 with txv1) rather than with solana-go so that the
// check has one exact reading of the bytes the wallet signed, and never
// panics on any input.
type message struct {
	versioned bool
	version   byte
	// config is a v1 message's config mask and values; nil for legacy and v0.
	config *txv1.Config
	// numSigners, numReadonlySigned and numReadonlyUnsigned are the header.
	numSigners, numReadonlySigned, numReadonlyUnsigned int
	keys                                               []solana.PublicKey
	blockhash                                          solana.Hash
	instructions                                       []instruction
	// lookups is the number of address lookup tables (version 0 only).
	lookups int
}

// instruction is one compiled instruction: indexes into message.keys.
type instruction struct {
	program  int
	accounts []int
	data     []byte
}

// v1 reports whether m is a v1 message.
func (m *message) v1() bool { return m.config != nil }

// signer reports whether key i signs the message.
func (m *message) signer(i int) bool { return i < m.numSigners }

// writable reports whether key i is writable, from the header and its
// position, as the runtime decides it.
func (m *message) writable(i int) bool {
	if i < m.numSigners {
		return i < m.numSigners-m.numReadonlySigned
	}
	return i < len(m.keys)-m.numReadonlyUnsigned
}

// errTruncated is a message shorter than its own lengths say.
var errTruncated = errors.New("truncated")

type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	r.off++
	return r.b[r.off-1], nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || len(r.b)-r.off < n {
		return nil, errTruncated
	}
	r.off += n
	return r.b[r.off-n : r.off], nil
}

// length reads a compact-u16 (Solana's short_vec length), refusing the
// non-canonical encodings the runtime refuses.
func (r *reader) length() (int, error) {
	n := 0
	for i := 0; i < 3; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		n |= int(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if (i > 0 && c == 0) || n > 0xffff {
				return 0, errors.New("non-canonical length")
			}
			return n, nil
		}
	}
	return 0, errors.New("length longer than 3 bytes")
}

// parse reads a message: v1 by its first byte (0x81), legacy or v0
// otherwise.
func parse(b []byte) (*message, error) {
	if isV1(b) {
		return parseV1(b)
	}
	r := &reader{b: b}
	m := &message{}
	first, err := r.byte()
	if err != nil {
		return nil, err
	}
	if first&0x80 != 0 {
		m.versioned, m.version = true, first&0x7f
		if m.version != 0 {
			return nil, fmt.Errorf("message version %d is not supported", m.version)
		}
		if first, err = r.byte(); err != nil {
			return nil, err
		}
	}
	header, err := r.bytes(2)
	if err != nil {
		return nil, err
	}
	m.numSigners, m.numReadonlySigned, m.numReadonlyUnsigned = int(first), int(header[0]), int(header[1])
	if err := m.readKeys(r); err != nil {
		return nil, err
	}
	if err := m.readInstructions(r); err != nil {
		return nil, err
	}
	if m.versioned {
		if err := m.readLookups(r); err != nil {
			return nil, err
		}
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("%d bytes after the message", len(b)-r.off)
	}
	return m, nil
}

func (m *message) readKeys(r *reader) error {
	n, err := r.length()
	if err != nil {
		return err
	}
	if m.numSigners == 0 || m.numReadonlySigned >= m.numSigners || m.numSigners+m.numReadonlyUnsigned > n {
		return fmt.Errorf("header (%d signers, %d read-only signed, %d read-only unsigned) does not fit %d keys",
			m.numSigners, m.numReadonlySigned, m.numReadonlyUnsigned, n)
	}
	m.keys = make([]solana.PublicKey, n)
	for i := range m.keys {
		k, err := r.bytes(32)
		if err != nil {
			return err
		}
		copy(m.keys[i][:], k)
	}
	h, err := r.bytes(32)
	if err != nil {
		return err
	}
	copy(m.blockhash[:], h)
	return nil
}

func (m *message) readInstructions(r *reader) error {
	n, err := r.length()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		var ix instruction
		p, err := r.byte()
		if err != nil {
			return err
		}
		ix.program = int(p)
		na, err := r.length()
		if err != nil {
			return err
		}
		idx, err := r.bytes(na)
		if err != nil {
			return err
		}
		ix.accounts = make([]int, na)
		for j, a := range idx {
			ix.accounts[j] = int(a)
		}
		nd, err := r.length()
		if err != nil {
			return err
		}
		if ix.data, err = r.bytes(nd); err != nil {
			return err
		}
		m.instructions = append(m.instructions, ix)
	}
	return nil
}

// readLookups reads the address table lookups of a version 0 message; only
// their number is kept (any is refused). Indexes into loaded addresses are
// then legal, so instruction indexes are checked by the caller.
func (m *message) readLookups(r *reader) error {
	n, err := r.length()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := r.bytes(32); err != nil {
			return err
		}
		for range 2 { // writable, then read-only indexes
			k, err := r.length()
			if err != nil {
				return err
			}
			if _, err := r.bytes(k); err != nil {
				return err
			}
		}
	}
	m.lookups = n
	return nil
}

// checkIndexes refuses an instruction naming a key the message does not
// have (without lookup tables, every index is into keys).
func (m *message) checkIndexes() error {
	for i, ix := range m.instructions {
		if ix.program >= len(m.keys) {
			return fmt.Errorf("instruction %d names program key %d of %d", i, ix.program, len(m.keys))
		}
		for _, a := range ix.accounts {
			if a >= len(m.keys) {
				return fmt.Errorf("instruction %d names account key %d of %d", i, a, len(m.keys))
			}
		}
	}
	return nil
}
