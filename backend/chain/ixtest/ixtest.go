// Package ixtest checks instruction encoders in tests: the program, the data
// byte for byte, the account metas, and, where solana-go ships an encoder of
// the same instruction, agreement with it.
package ixtest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// Meta is an expected account of an instruction.
type Meta struct {
	Key              solana.PublicKey
	Signer, Writable bool
}

// Case is an instruction and what it must encode to.
type Case struct {
	Name    string
	Ix      solana.Instruction
	Program solana.PublicKey
	// Data is the expected data, in hex.
	Data  string
	Metas []Meta
	// Same is solana-go's encoding of the same instruction, when it has
	// one: its data and metas must equal ours too.
	Same solana.Instruction
}

// Run checks each case in a parallel subtest.
func Run(t *testing.T, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			if !tc.Ix.ProgramID().Equals(tc.Program) {
				t.Errorf("program = %s, want %s", tc.Ix.ProgramID(), tc.Program)
			}
			data, err := tc.Ix.Data()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(data); got != tc.Data {
				t.Errorf("data = %s, want %s", got, tc.Data)
			}
			CheckMetas(t, tc.Ix.Accounts(), tc.Metas)
			if tc.Same != nil {
				theirs, err := tc.Same.Data()
				if err != nil {
					t.Fatal(err)
				}
				if hex.EncodeToString(theirs) != tc.Data {
					t.Errorf("solana-go encodes %x, we encode %s", theirs, tc.Data)
				}
				if !tc.Same.ProgramID().Equals(tc.Program) {
					t.Errorf("solana-go's program = %s, want %s", tc.Same.ProgramID(), tc.Program)
				}
				var want []Meta
				for _, m := range tc.Same.Accounts() {
					want = append(want, Meta{m.PublicKey, m.IsSigner, m.IsWritable})
				}
				CheckMetas(t, tc.Ix.Accounts(), want)
			}
		})
	}
}

// CheckMetas compares an instruction's accounts with want, in order.
func CheckMetas(t *testing.T, got solana.AccountMetaSlice, want []Meta) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d accounts, want %d", len(got), len(want))
	}
	for i, m := range got {
		if !m.PublicKey.Equals(want[i].Key) || m.IsSigner != want[i].Signer || m.IsWritable != want[i].Writable {
			t.Errorf("account %d = %s signer %v writable %v, want %s signer %v writable %v",
				i, m.PublicKey, m.IsSigner, m.IsWritable, want[i].Key, want[i].Signer, want[i].Writable)
		}
	}
}

// Key is a fixed public key named for a test: the SHA-256 of its name.
func Key(name string) solana.PublicKey {
	h := sha256.Sum256([]byte(name))
	return solana.PublicKeyFromBytes(h[:])
}

// Writable is the expected meta of a writable account that does not sign.
func Writable(k solana.PublicKey) Meta { return Meta{Key: k, Writable: true} }

// Signer is a read-only signer.
func Signer(k solana.PublicKey) Meta { return Meta{Key: k, Signer: true} }

// ReadOnly is neither writable nor a signer.
func ReadOnly(k solana.PublicKey) Meta { return Meta{Key: k} }
