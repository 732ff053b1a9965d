// Package signedcheck decides whether a wallet-signed message is the
// transaction Reclaim built, allowing for what wallets add when they sign.
//
// Phantom and Solflare add Lighthouse assertion instructions (program
// L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95) to protect their users
// against state changes between simulation and landing, before, between or
// after the dapp's instructions, and a wallet may set its own compute unit
// limit and price (it pays that fee), within bounds the ticket states.
// Check accepts a signed message when, after removing those, it is the
// built transaction; everything else is a *MismatchError that says what
// differs.
//
// The rules, with indexes counted from 0 as the runtime counts them:
//   - legacy, or version 0 without address lookup tables, or version 1
//     (SIMD-0385, read by its first byte 0x81) when the ticket says it was
//     built v1: its compute budget is the config mask, whose limit and
//     total priority fee a wallet may change within the same bounds, and
//     nothing else of it (v1.go);
//   - exactly one required signature, the wallet's, and the wallet is the
//     fee payer; the recent blockhash is the built one;
//   - Lighthouse instructions whose discriminator (data[0]) is one of its
//     read-only assertions, 2 to 15, may stand anywhere. Its memory write
//     (0) and close (1) move lamports, AssertMerkleTreeAccount (16) calls
//     another program, and anything else is unknown: all refused;
//   - at most one SetComputeUnitLimit and one SetComputeUnitPrice, anywhere
//     (or none), within the bounds the digest states (budget.go: the limit
//     at most the built one plus the guard headroom, the price at most a
//     cap, the priority fee at most half the net rebate beyond the built
//     one). The compute budget program's other instructions are never
//     built, so never accepted;
//   - the remaining instructions equal the built ones (program, accounts
//     with their signer and writable flags, data) in the same order: guards
//     may interleave with them, but they never move relative to each other;
//   - every key no remaining instruction uses, but the fee payer, is
//     read-only (the one signature makes it unsigned too).
//
// The built side is a Digest the ticket carries (DigestOf, at build), so
// submit needs nothing but the ticket and the signed bytes.
package signedcheck

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// LighthouseProgramID is the Lighthouse program whose assertions wallets add.
// Its earlier id (L1TEV…, a different instruction layout) is not accepted.
var LighthouseProgramID = solana.MustPublicKeyFromBase58("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95")

// Lighthouse discriminators accepted: its assertions that read accounts and
// write nothing (AssertAccountData through AssertSysvarClock).
const (
	firstAssertion = 2
	lastAssertion  = 15
)

// MismatchError is a signed message that is not the built transaction with at
// most guards and compute budget changes.
type MismatchError struct {
	// Reason says what differs, for the caller.
	Reason string
}

func (r *MismatchError) Error() string { return "signedcheck: " + r.Reason }

func refuse(format string, args ...any) *MismatchError {
	return &MismatchError{Reason: fmt.Sprintf(format, args...)}
}

// Accepted describes what a wallet added to an accepted message.
type Accepted struct {
	// Guards is the number of Lighthouse assertions.
	Guards int
}

// Check decides whether msg, the message a wallet signed, is the transaction
// digested in d for wallet, allowing Lighthouse assertions and the wallet's
// own compute unit limit and price within the digest's bounds. A refusal is
// a *MismatchError.
func Check(d Digest, wallet solana.PublicKey, msg []byte) (Accepted, error) {
	if d.Empty() {
		return Accepted{}, refuse("the ticket carries no digest of the built instructions, so only the exact built message is accepted")
	}
	m, err := parse(msg)
	if err != nil {
		return Accepted{}, refuse("the signed message cannot be read: %v", err)
	}
	if err := m.skeleton(d, wallet); err != nil {
		return Accepted{}, err
	}
	if err := d.checkV1(m); err != nil {
		return Accepted{}, err
	}
	own, positions, guards, err := m.sort()
	if err != nil {
		return Accepted{}, err
	}
	if m.sum(own) != d.Sum {
		return Accepted{}, m.diagnose(d, own, positions)
	}
	if err := m.unusedReadOnly(own); err != nil {
		return Accepted{}, err
	}
	if err := d.check(m.budget()); err != nil {
		return Accepted{}, err
	}
	return Accepted{Guards: guards}, nil
}

// skeleton checks what surrounds the instructions: no lookup tables, the one
// signer is the wallet and pays, the blockhash is the built one.
func (m *message) skeleton(d Digest, wallet solana.PublicKey) error {
	if m.lookups > 0 {
		return refuse("address lookup tables are not accepted (the message uses %d)", m.lookups)
	}
	if err := m.checkIndexes(); err != nil {
		return refuse("the signed message is malformed: %v", err)
	}
	if !m.keys[0].Equals(wallet) {
		return refuse("the fee payer changed: %s instead of the wallet %s", m.keys[0], wallet)
	}
	if m.numSigners != 1 {
		return refuse("the message requires %d signatures; only the wallet's is accepted", m.numSigners)
	}
	if m.blockhash.String() != d.Blockhash {
		return refuse("the recent blockhash changed: %s instead of %s", m.blockhash, d.Blockhash)
	}
	seen := make(map[solana.PublicKey]bool, len(m.keys))
	for _, k := range m.keys {
		if seen[k] {
			return refuse("account %s appears twice in the message", k)
		}
		seen[k] = true
	}
	return nil
}

// sort sets apart the Lighthouse assertions and the compute unit limit and
// price, and returns the other instructions with their indexes in the
// message.
func (m *message) sort() (own []instruction, positions []int, guards int, err error) {
	var budget [3]int
	for i, ix := range m.instructions {
		program := m.keys[ix.program]
		if program.Equals(LighthouseProgramID) {
			if err := lighthouseAssertion(i, ix); err != nil {
				return nil, nil, 0, err
			}
			guards++
			continue
		}
		if kind := m.budgetKind(ix); kind != 0 {
			if budget[kind]++; budget[kind] > 1 {
				return nil, nil, 0, refuse("instruction %d is a second %s; a transaction takes one", i, describe(program, ix.data))
			}
			continue
		}
		own, positions = append(own, ix), append(positions, i)
	}
	return own, positions, guards, nil
}

// lighthouseAssertion refuses a Lighthouse instruction that is not one of
// the read-only assertions.
func lighthouseAssertion(i int, ix instruction) error {
	if len(ix.data) < 2 {
		return refuse("instruction %d is a Lighthouse instruction without a log level; not an assertion", i)
	}
	switch d := ix.data[0]; {
	case d == 0 || d == 1:
		return refuse("instruction %d is a %s, which moves lamports; only Lighthouse assertions are accepted", i, describe(LighthouseProgramID, ix.data))
	case d < firstAssertion || d > lastAssertion:
		return refuse("instruction %d is a %s; only Lighthouse assertions that read accounts (discriminators 2 to 15) are accepted", i, describe(LighthouseProgramID, ix.data))
	}
	return nil
}

// unusedReadOnly refuses a writable key that no built instruction uses
// (other than the fee payer, which is always writable).
func (m *message) unusedReadOnly(own []instruction) error {
	used := make([]bool, len(m.keys))
	used[0] = true
	for _, ix := range own {
		used[ix.program] = true
		for _, a := range ix.accounts {
			used[a] = true
		}
	}
	for i, u := range used {
		if !u && m.writable(i) {
			return refuse("account %s is writable, but no built instruction uses it", m.keys[i])
		}
	}
	return nil
}
