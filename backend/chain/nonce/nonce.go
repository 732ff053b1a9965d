// Package nonce speaks to the System program's durable nonce accounts: their
// layout and the withdrawal that empties one. A nonce account lets its
// authority sign transactions that stay valid until used; once it is not
// needed, withdrawing its whole balance closes it. Layouts follow
// solana-nonce (state.rs, versions.rs) and solana-system-interface
// (instruction.rs): bincode, u32 enum tags.
//
// Layout (80 bytes): Versions u32 (0 Legacy, 1 Current), State u32 (0
// Uninitialized, 1 Initialized), then when initialized: authority 8..40,
// durable_nonce 40..72, fee_calculator.lamports_per_signature 72..80.
package nonce

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// Size is a nonce account's data length.
const Size = 80

// AuthorityOffset is where a getProgramAccounts memcmp finds an
// initialized nonce account's authority.
const AuthorityOffset = 8

// ErrNotNonce is data that is not an initialized nonce account.
var ErrNotNonce = errors.New("nonce: not an initialized nonce account")

// Account is an initialized nonce account's state.
type Account struct {
	// Authority may advance the nonce and withdraw.
	Authority solana.PublicKey
	// Nonce is the stored durable nonce: the blockhash a transaction using
	// the account carries.
	Nonce solana.Hash
}

// Parse reads a nonce account's data (either version).
func Parse(data []byte) (Account, error) {
	if len(data) != Size {
		return Account{}, ErrNotNonce
	}
	if v := binary.LittleEndian.Uint32(data[0:4]); v > 1 {
		return Account{}, ErrNotNonce
	}
	if binary.LittleEndian.Uint32(data[4:8]) != 1 {
		return Account{}, ErrNotNonce
	}
	return Account{Authority: solana.PublicKeyFromBytes(data[8:40]), Nonce: solana.HashFromBytes(data[40:72])}, nil
}
