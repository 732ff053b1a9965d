package signedcheck

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// Digest is what a submission ticket states about the transaction as built,
// so that Check can run at submit without the build: the recent blockhash,
// the SHA-256 of the canonical form of its instructions other than compute
// budget, a short fingerprint of each such instruction, by which a refusal
// says which one differs, and the bounds of the compute budget a wallet may
// set (budget.go).
type Digest struct {
	// Blockhash is the recent blockhash, base58.
	Blockhash string `json:"bh"`
	// Sum is the base64url SHA-256 of the canonical form: the fee payer, the
	// blockhash, then each instruction (program id, accounts with their
	// signer and writable flags, data) that is not SetComputeUnitLimit or
	// SetComputeUnitPrice, in order.
	Sum string `json:"dg"`
	// Instructions fingerprint the same instructions, in order: 4 bytes of
	// the SHA-256 of the program, of the accounts and of the data, base64url.
	// They only locate a difference: Sum decides.
	Instructions []string `json:"ix"`
	// Bounds limit the compute unit limit and price the signed message may
	// set; a ticket issued before them has none.
	Bounds
}

// Empty reports whether d states nothing (a ticket issued before digests).
func (d Digest) Empty() bool { return d.Sum == "" }

// digestVersion starts the canonical form, so that a change of the form can
// never be mistaken for a change of the transaction. It keeps the package's
// former name: tickets in flight carry digests of this form.
const digestVersion = "reclaim/walletguard/v1\x00"

// DigestOf digests a built message (the bytes the wallet signs). Its bounds
// are the built compute budget: a wallet may lower it, not raise it, until
// Allow widens them.
//
// A v1 message (txv1) digests the same way, its version in the canonical
// form; its bounds are its config's limit and total priority fee (parseV1).
func DigestOf(msg []byte) (Digest, error) {
	if len(msg) > 0 && msg[0] == txv1.VersionByte {
		m, b, fee, err := parseV1(msg)
		if err != nil {
			return Digest{}, fmt.Errorf("signedcheck: digest: %w", err)
		}
		return m.digest(b, fee), nil
	}
	m, err := parse(msg)
	if err != nil {
		return Digest{}, fmt.Errorf("signedcheck: digest: %w", err)
	}
	if err := m.checkIndexes(); err != nil {
		return Digest{}, fmt.Errorf("signedcheck: digest: %w", err)
	}
	b := m.budget()
	return m.digest(b, PriorityFee(b.price, b.units)), nil
}

// digest is the Digest of m, whose compute budget is b and priority fee
// fee.
func (m *message) digest(b budget, fee uint64) Digest {
	own := m.own()
	d := Digest{Blockhash: m.blockhash.String(), Sum: m.sum(own), Instructions: make([]string, len(own)),
		Bounds: Bounds{MaxUnits: b.units, MaxPrice: b.price, MaxPriorityFee: fee}}
	for i, ix := range own {
		d.Instructions[i] = m.fingerprint(ix).String()
	}
	return d
}

// own returns the instructions the canonical form covers: all but the
// compute unit limit and price (the wallet may change those: it pays them).
func (m *message) own() []instruction {
	var out []instruction
	for _, ix := range m.instructions {
		if computeBudgetKind(m.keys[ix.program], ix) == 0 {
			out = append(out, ix)
		}
	}
	return out
}

// sum is the base64url SHA-256 of the canonical form of ixs in m.
func (m *message) sum(ixs []instruction) string {
	h := sha256.New()
	h.Write([]byte(digestVersion))
	if m.version == 1 {
		h.Write([]byte(v1Marker))
	}
	h.Write(m.keys[0][:])
	h.Write(m.blockhash[:])
	h.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(ixs))))
	for _, ix := range ixs {
		h.Write(m.keys[ix.program][:])
		h.Write(m.accountBytes(ix))
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(ix.data))))
		h.Write(ix.data)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// accountBytes is the canonical form of an instruction's accounts: their
// count, then each key and a flags byte (1 writable, 2 signer), the flags
// the message gives the key.
func (m *message) accountBytes(ix instruction) []byte {
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+33*len(ix.accounts)), uint32(len(ix.accounts)))
	for _, a := range ix.accounts {
		b = append(b, m.keys[a][:]...)
		var flags byte
		if m.writable(a) {
			flags |= 1
		}
		if m.signer(a) {
			flags |= 2
		}
		b = append(b, flags)
	}
	return b
}

// fingerprint is 4 bytes each of the SHA-256 of an instruction's program,
// accounts and data.
type fingerprint [12]byte

func (m *message) fingerprint(ix instruction) fingerprint {
	var f fingerprint
	p := sha256.Sum256(m.keys[ix.program][:])
	a := sha256.Sum256(m.accountBytes(ix))
	d := sha256.Sum256(ix.data)
	copy(f[0:4], p[:4])
	copy(f[4:8], a[:4])
	copy(f[8:12], d[:4])
	return f
}

func (f fingerprint) String() string { return base64.RawURLEncoding.EncodeToString(f[:]) }

func parseFingerprint(s string) (fingerprint, bool) {
	var f fingerprint
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != len(f) {
		return f, false
	}
	copy(f[:], b)
	return f, true
}

// Compute budget instruction kinds the wallet may add, change or remove.
const (
	computeUnitLimit = 1
	computeUnitPrice = 2
)

// computeBudgetKind says whether ix is a well-formed SetComputeUnitLimit (2,
// u32) or SetComputeUnitPrice (3, u64) without accounts; 0 for any other
// instruction, including the compute budget program's others
// (RequestHeapFrame, SetLoadedAccountsDataSizeLimit), which are ours or
// nobody's.
func computeBudgetKind(program solana.PublicKey, ix instruction) int {
	if !program.Equals(solana.ComputeBudget) || len(ix.accounts) != 0 {
		return 0
	}
	switch {
	case len(ix.data) == 5 && ix.data[0] == 2:
		return computeUnitLimit
	case len(ix.data) == 9 && ix.data[0] == 3:
		return computeUnitPrice
	}
	return 0
}
