// Package address decodes the Solana addresses requests carry: any
// account's (Parse) and a wallet's, which must be able to sign (Wallet).
// The faces decode a request's address once, as they convert it, and the
// services below take the solana.PublicKey; the messages are written for
// the person who sent the address.
package address

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Parse decodes s, the base58 of 32 bytes.
func Parse(s string) (solana.PublicKey, error) {
	key, err := solana.PublicKeyFromBase58(s)
	if err != nil {
		return key, fmt.Errorf("%q is not a Solana address (base58 of 32 bytes)", s)
	}
	return key, nil
}

// Wallet decodes s as a wallet's address: base58 of a 32-byte Ed25519
// public key on the curve (a program-derived address cannot sign, so it
// cannot be a wallet).
func Wallet(s string) (solana.PublicKey, error) {
	key, err := Parse(s)
	if err != nil {
		return key, err
	}
	if !key.IsOnCurve() {
		return solana.PublicKey{}, fmt.Errorf("%q is not an Ed25519 public key (it is off the curve, like a program-derived address): a wallet must be able to sign", s)
	}
	return key, nil
}
