package txv1

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// sixty is the golden sixty-instruction message, compiled in Go.
func sixty(t testing.TB) *Message {
	t.Helper()
	c := kitCases()[3]
	m, err := Compile(c.signers[0].PublicKey(), kitBlockhash(), c.config, c.instructions...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// raw encodes m without checking it, as an attacker's bytes.
func raw(m *Message, sigs int) []byte {
	return append(m.appendTo(nil), make([]byte, SignatureSize*sigs)...)
}

func keyN(i int) solana.PublicKey {
	var k solana.PublicKey
	binary.BigEndian.PutUint32(k[:], uint32(i+1))
	k[31] = 0xaa
	return k
}

// simple is a valid message: payer, a writable account, a program; the
// mutations below break one rule each.
func simple() *Message {
	return &Message{
		Header:          Header{NumRequiredSignatures: 1, NumReadonlyUnsignedAccounts: 1},
		RecentBlockhash: kitBlockhash(),
		AccountKeys:     []solana.PublicKey{keyN(0), keyN(1), solana.SystemProgramID},
		Instructions:    []Instruction{{ProgramIDIndex: 2, Accounts: []uint8{0, 1}, Data: []byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}}},
	}
}

// TestDecodeRefuses feeds the decoder what a node refuses (and what
// LiteSVM 1.5.0 panics on): each must be an error naming the fault, wrapping
// ErrInvalid or ErrTooLarge, never a panic.
func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	mutate := func(f func(m *Message)) []byte {
		m := simple()
		f(m)
		return raw(m, int(m.Header.NumRequiredSignatures))
	}
	good := mutate(func(*Message) {})
	withMask := func(mask uint32, values int) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[4:8], mask)
		at := fixedSize + 32*3
		return append(b[:at:at], append(make([]byte, values), b[at:]...)...)
	}
	many := func(n int) []solana.PublicKey {
		keys := make([]solana.PublicKey, n)
		for i := range keys {
			keys[i] = keyN(i)
		}
		return keys
	}
	cases := []struct {
		name  string
		in    []byte
		cause error
		says  string
	}{
		{"one fee bit (bit 0)", withMask(1, 4), ErrInvalid, "both bits 0 and 1"},
		{"one fee bit (bit 1)", withMask(2, 4), ErrInvalid, "both bits 0 and 1"},
		{"fee bit 1 with the limit", withMask(2|4, 8), ErrInvalid, "both bits 0 and 1"},
		{"unassigned bit 5", withMask(1<<5, 4), ErrInvalid, "unassigned bits 0x00000020"},
		{"unassigned bit 31", withMask(1<<31, 4), ErrInvalid, "unassigned bits 0x80000000"},
		{"config values cut off", withMask(uint32(MaskPriorityFee), 4)[:fixedSize+32*3+4], ErrInvalid, "config values needs 8 bytes"},
		{"trailing byte", append(bytes.Clone(good), 0), ErrInvalid, "need 64 bytes of signatures"},
		{"signature missing", good[:len(good)-SignatureSize], ErrInvalid, "need 64 bytes of signatures"},
		{"v0 version byte", append([]byte{0x80}, good[1:]...), ErrInvalid, "not v1's 129"},
		{"legacy first byte", append([]byte{1}, good[1:]...), ErrInvalid, "not v1's 129"},
		{"65 addresses", mutate(func(m *Message) {
			m.AccountKeys = append(many(64), solana.SystemProgramID)
			m.Instructions[0].ProgramIDIndex = 64
		}), ErrTooLarge, "65 addresses, at most 64"},
		{"65 instructions", mutate(func(m *Message) {
			for range 64 {
				m.Instructions = append(m.Instructions, Instruction{ProgramIDIndex: 2})
			}
		}), ErrTooLarge, "65 instructions, at most 64"},
		{"account index out of range", mutate(func(m *Message) { m.Instructions[0].Accounts[1] = 3 }), ErrInvalid, "account 1 is address 3 of 3"},
		{"program index out of range", mutate(func(m *Message) { m.Instructions[0].ProgramIDIndex = 200 }), ErrInvalid, "invokes address 200 of 3"},
		{"fee payer invoked", mutate(func(m *Message) { m.Instructions[0].ProgramIDIndex = 0 }), ErrInvalid, "invokes the fee payer"},
		{"duplicate address", mutate(func(m *Message) { m.AccountKeys[1] = m.AccountKeys[0] }), ErrInvalid, "appears twice"},
		{"no signer", mutate(func(m *Message) { m.Header.NumRequiredSignatures = 0 }), ErrInvalid, "no signer"},
		{"readonly fee payer", mutate(func(m *Message) { m.Header.NumReadonlySignedAccounts = 1 }), ErrInvalid, "fee payer must be writable"},
		{"header over the addresses", mutate(func(m *Message) { m.Header.NumReadonlyUnsignedAccounts = 3 }), ErrInvalid, "the message has 3 addresses"},
		{"13 signers", mutate(func(m *Message) {
			m.AccountKeys = append(many(13), solana.SystemProgramID)
			m.Header.NumRequiredSignatures = 13
			m.Instructions[0].ProgramIDIndex = 13
		}), ErrTooLarge, "13 signers, at most 12"},
		{"4,097 bytes", mutate(func(m *Message) {
			m.Instructions[0].Data = make([]byte, MaxTransactionSize+1-(fixedSize+32*3+4+2+SignatureSize))
		}), ErrTooLarge, "at most 4096"},
		{"4,097 bytes of instruction data cut short", mutate(func(m *Message) {
			m.Instructions[0].Data = make([]byte, 5000)
		})[:4000], ErrInvalid, "truncated at byte 144: instruction 0's data needs 5000 bytes, 3856 left"},
		{"over 4,096 bytes in all", append(bytes.Clone(good), make([]byte, MaxTransactionSize)...), ErrTooLarge, "at most 4096"},
		{"empty", nil, ErrInvalid, "truncated at byte 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tx Transaction
			err := tx.UnmarshalBinary(c.in)
			if !errors.Is(err, c.cause) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("UnmarshalBinary = %v, want %v saying %q", err, c.cause, c.says)
			}
		})
	}
	var tx Transaction
	if err := tx.UnmarshalBinary(good); err != nil {
		t.Fatalf("the unmutated message: %v", err)
	}
}

// TestDecodeTruncated cuts a golden transaction at every length: each
// prefix is an error, and so is the message with any byte after it.
func TestDecodeTruncated(t *testing.T) {
	t.Parallel()
	tx := Transaction{Message: *sixty(t)}
	if err := tx.Sign(seedKey(1)); err != nil {
		t.Fatal(err)
	}
	full, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	msgLen := tx.Message.Size()
	for n := range len(full) {
		var got Transaction
		if err := got.UnmarshalBinary(full[:n]); !errors.Is(err, ErrInvalid) {
			t.Fatalf("transaction cut to %d of %d bytes: %v", n, len(full), err)
		}
		var m Message
		if err := m.UnmarshalBinary(full[:n]); n != msgLen && !errors.Is(err, ErrInvalid) {
			t.Fatalf("message of %d bytes cut to %d: %v", msgLen, n, err)
		}
	}
	var m Message
	if err := m.UnmarshalBinary(full); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "64 bytes after the message") {
		t.Fatalf("message with a signature after it: %v", err)
	}
}

// TestEncodeRefuses: MarshalBinary and Compile write nothing a node would
// refuse, nor a config value whose bit is missing (it would be dropped).
func TestEncodeRefuses(t *testing.T) {
	t.Parallel()
	m := simple()
	m.Config.ComputeUnitLimit = 200_000
	if _, err := m.MarshalBinary(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "compute-unit limit is set but its config mask bit is not") {
		t.Errorf("limit without its bit: %v", err)
	}
	m = simple()
	m.Config.Mask = 1
	if _, err := m.MarshalBinary(); !errors.Is(err, ErrInvalid) {
		t.Errorf("one fee bit: %v", err)
	}
	tx := Transaction{Message: *simple()}
	if _, err := tx.MarshalBinary(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "0 signatures for 1 signers") {
		t.Errorf("unsigned transaction: %v", err)
	}

	payer := seedKey(1).PublicKey()
	var ixs []solana.Instruction
	for i := range 32 {
		ixs = append(ixs, closeIx(keyN(i), payer, payer))
	}
	// payer, the token program and 32 accounts fit; 63 do not.
	if _, err := Compile(payer, kitBlockhash(), Config{}, ixs...); err != nil {
		t.Fatal(err)
	}
	for i := 32; i < 63; i++ {
		ixs = append(ixs, closeIx(keyN(i), payer, payer))
	}
	if _, err := Compile(payer, kitBlockhash(), Config{}, ixs...); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "65 addresses") {
		t.Errorf("65 addresses: %v", err)
	}
	writable := solana.NewInstruction(tokenProgram, solana.AccountMetaSlice{solana.Meta(tokenProgram).WRITE()}, nil)
	if _, err := Compile(payer, kitBlockhash(), Config{}, writable); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "invoked and writable") {
		t.Errorf("writable program: %v", err)
	}
	if _, err := Compile(payer, kitBlockhash(), Config{}, solana.NewInstruction(payer, nil, nil)); !errors.Is(err, ErrInvalid) {
		t.Errorf("payer invoked: %v", err)
	}
	big := solana.NewInstruction(memoProgram, solana.AccountMetaSlice{solana.Meta(payer).SIGNER()}, make([]byte, 4000))
	if _, err := Compile(payer, kitBlockhash(), Config{}, big); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at most 4096") {
		t.Errorf("4,000 bytes of data: %v", err)
	}
}

// TestCompileOrder: signers first (the payer at 0), writable before
// readonly, programs readonly, roles merged over uses.
func TestCompileOrder(t *testing.T) {
	t.Parallel()
	payer, a, b, signer := keyN(0), keyN(1), keyN(2), keyN(3)
	m, err := Compile(payer, kitBlockhash(), Config{},
		solana.NewInstruction(memoProgram, solana.AccountMetaSlice{solana.Meta(a), solana.Meta(signer).SIGNER()}, nil),
		solana.NewInstruction(tokenProgram, solana.AccountMetaSlice{solana.Meta(b).WRITE(), solana.Meta(a).WRITE(), solana.Meta(payer)}, nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []solana.PublicKey{payer, signer, a, b, memoProgram, tokenProgram}
	if !slicesEqual(m.AccountKeys, want) {
		t.Fatalf("addresses %v, want %v", m.AccountKeys, want)
	}
	if m.Header != (Header{NumRequiredSignatures: 2, NumReadonlySignedAccounts: 1, NumReadonlyUnsignedAccounts: 2}) {
		t.Fatalf("header %+v", m.Header)
	}
	if got := m.Instructions[1]; got.ProgramIDIndex != 5 || !bytes.Equal(got.Accounts, []uint8{3, 2, 0}) {
		t.Fatalf("second instruction %+v", got)
	}
	if !m.IsWritable(0) || m.IsWritable(1) || !m.IsWritable(3) || m.IsWritable(4) || !m.IsSigner(1) || m.IsSigner(2) {
		t.Fatal("IsSigner/IsWritable disagree with the header")
	}
}

func slicesEqual(a, b []solana.PublicKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSign: each key signs at its place, a stranger signs nothing, and
// Verify catches a changed message.
func TestSign(t *testing.T) {
	t.Parallel()
	c := kitCases()[1] // two signers
	m, err := Compile(c.signers[0].PublicKey(), kitBlockhash(), c.config, c.instructions...)
	if err != nil {
		t.Fatal(err)
	}
	tx := Transaction{Message: *m}
	if err := tx.Sign(c.signers[1]); err != nil {
		t.Fatal(err)
	}
	if err := tx.Verify(); err == nil || !strings.Contains(err.Error(), "signature 0") {
		t.Fatalf("half-signed transaction verified: %v", err)
	}
	if err := tx.Sign(seedKey(99)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not a signer") {
		t.Fatalf("stranger's key: %v", err)
	}
	if err := tx.Sign(solana.PrivateKey{1, 2, 3}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short key: %v", err)
	}
	if err := tx.Sign(c.signers[0]); err != nil {
		t.Fatal(err)
	}
	if err := tx.Verify(); err != nil {
		t.Fatal(err)
	}
	tx.Message.Config.PriorityFeeLamports++
	if err := tx.Verify(); err == nil {
		t.Fatal("a changed fee verified")
	}
}
