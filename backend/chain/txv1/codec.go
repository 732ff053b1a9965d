package txv1

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// configSize is the bytes of the config values mask announces; mask must
// have passed checkMask.
func configSize(mask ConfigMask) int {
	return 4 * bits.OnesCount32(uint32(mask))
}

// checkMask refuses bits SIMD-0385 does not assign and one fee bit alone.
func checkMask(mask ConfigMask) error {
	if unknown := mask &^ knownMask; unknown != 0 {
		return fmt.Errorf("%w: config mask 0x%08x sets unassigned bits 0x%08x (SIMD-0385 assigns bits 0-4)", ErrInvalid, uint32(mask), uint32(unknown))
	}
	if fee := mask & MaskPriorityFee; fee != 0 && fee != MaskPriorityFee {
		return fmt.Errorf("%w: config mask 0x%08x sets one of the two priority-fee bits; the u64 fee needs both bits 0 and 1", ErrInvalid, uint32(mask))
	}
	return nil
}

// Size is the message's encoded size in bytes; it assumes the counts fit
// their fields (MarshalBinary checks that).
func (m *Message) Size() int {
	n := fixedSize + 32*len(m.AccountKeys) + configSize(m.Config.Mask&knownMask) + 4*len(m.Instructions)
	for _, ix := range m.Instructions {
		n += len(ix.Accounts) + len(ix.Data)
	}
	return n
}

// TransactionSize is the size of the signed transaction: the message and
// one signature per required signer. A packer compares it with
// MaxTransactionSize.
func (m *Message) TransactionSize() int {
	return m.Size() + SignatureSize*int(m.Header.NumRequiredSignatures)
}

// Check tells whether a node would accept the message's shape: the limits,
// the header against the addresses, no duplicate address, every index in
// range, no program at index 0 (the fee payer), a well-formed config mask
// and no config value without its bit.
func (m *Message) Check() error {
	h := m.Header
	switch {
	case len(m.AccountKeys) > MaxAddresses:
		return fmt.Errorf("%w: %d addresses, at most %d", ErrTooLarge, len(m.AccountKeys), MaxAddresses)
	case len(m.Instructions) > MaxInstructions:
		return fmt.Errorf("%w: %d instructions, at most %d", ErrTooLarge, len(m.Instructions), MaxInstructions)
	case h.NumRequiredSignatures > MaxSignatures:
		return fmt.Errorf("%w: %d signers, at most %d", ErrTooLarge, h.NumRequiredSignatures, MaxSignatures)
	case h.NumRequiredSignatures == 0:
		return fmt.Errorf("%w: no signer (the fee payer signs)", ErrInvalid)
	case h.NumReadonlySignedAccounts >= h.NumRequiredSignatures:
		return fmt.Errorf("%w: header has %d readonly signers of %d: the fee payer must be writable", ErrInvalid, h.NumReadonlySignedAccounts, h.NumRequiredSignatures)
	case int(h.NumRequiredSignatures)+int(h.NumReadonlyUnsignedAccounts) > len(m.AccountKeys):
		return fmt.Errorf("%w: header counts %d signers and %d readonly non-signers but the message has %d addresses", ErrInvalid, h.NumRequiredSignatures, h.NumReadonlyUnsignedAccounts, len(m.AccountKeys))
	}
	if err := checkMask(m.Config.Mask); err != nil {
		return err
	}
	if err := m.Config.checkUnset(); err != nil {
		return err
	}
	var buf [MaxAddresses]solana.PublicKey
	sorted := buf[:copy(buf[:], m.AccountKeys)]
	slices.SortFunc(sorted, func(a, b solana.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return fmt.Errorf("%w: address %s appears twice", ErrInvalid, sorted[i])
		}
	}
	for i, ix := range m.Instructions {
		switch {
		case int(ix.ProgramIDIndex) >= len(m.AccountKeys):
			return fmt.Errorf("%w: instruction %d invokes address %d of %d", ErrInvalid, i, ix.ProgramIDIndex, len(m.AccountKeys))
		case ix.ProgramIDIndex == 0:
			return fmt.Errorf("%w: instruction %d invokes the fee payer", ErrInvalid, i)
		case len(ix.Accounts) > math.MaxUint8:
			return fmt.Errorf("%w: instruction %d has %d accounts, at most 255", ErrTooLarge, i, len(ix.Accounts))
		case len(ix.Data) > math.MaxUint16:
			return fmt.Errorf("%w: instruction %d has %d data bytes, at most 65535", ErrTooLarge, i, len(ix.Data))
		}
		for j, a := range ix.Accounts {
			if int(a) >= len(m.AccountKeys) {
				return fmt.Errorf("%w: instruction %d account %d is address %d of %d", ErrInvalid, i, j, a, len(m.AccountKeys))
			}
		}
	}
	if n := m.TransactionSize(); n > MaxTransactionSize {
		return fmt.Errorf("%w: %d bytes signed, at most %d", ErrTooLarge, n, MaxTransactionSize)
	}
	return nil
}

// checkUnset refuses a value set without its bit: it would not be written,
// and the message would ask for something else than its author meant.
func (c *Config) checkUnset() error {
	unset := func(bit ConfigMask, nonzero bool, name string) error {
		if c.Mask&bit == 0 && nonzero {
			return fmt.Errorf("%w: %s is set but its config mask bit is not (use Config's Set methods)", ErrInvalid, name)
		}
		return nil
	}
	if err := unset(MaskPriorityFee, c.PriorityFeeLamports != 0, "the priority fee"); err != nil {
		return err
	}
	if err := unset(MaskComputeUnitLimit, c.ComputeUnitLimit != 0, "the compute-unit limit"); err != nil {
		return err
	}
	if err := unset(MaskLoadedAccountsDataSizeLimit, c.LoadedAccountsDataSizeLimit != 0, "the loaded accounts data size limit"); err != nil {
		return err
	}
	return unset(MaskHeapSize, c.HeapSize != 0, "the heap size")
}

// MarshalBinary encodes the message after Check.
func (m *Message) MarshalBinary() ([]byte, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m.appendTo(make([]byte, 0, m.Size())), nil
}

// appendTo writes the checked message after b.
func (m *Message) appendTo(b []byte) []byte {
	h := m.Header
	b = append(b, VersionByte, h.NumRequiredSignatures, h.NumReadonlySignedAccounts, h.NumReadonlyUnsignedAccounts)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Config.Mask))
	b = append(b, m.RecentBlockhash[:]...)
	b = append(b, uint8(len(m.Instructions)), uint8(len(m.AccountKeys)))
	for _, k := range m.AccountKeys {
		b = append(b, k[:]...)
	}
	c := m.Config
	if c.Mask&MaskPriorityFee != 0 {
		b = binary.LittleEndian.AppendUint64(b, c.PriorityFeeLamports)
	}
	if c.Mask&MaskComputeUnitLimit != 0 {
		b = binary.LittleEndian.AppendUint32(b, c.ComputeUnitLimit)
	}
	if c.Mask&MaskLoadedAccountsDataSizeLimit != 0 {
		b = binary.LittleEndian.AppendUint32(b, c.LoadedAccountsDataSizeLimit)
	}
	if c.Mask&MaskHeapSize != 0 {
		b = binary.LittleEndian.AppendUint32(b, c.HeapSize)
	}
	for _, ix := range m.Instructions {
		b = append(b, ix.ProgramIDIndex, uint8(len(ix.Accounts)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(ix.Data)))
	}
	for _, ix := range m.Instructions {
		b = append(b, ix.Accounts...)
		b = append(b, ix.Data...)
	}
	return b
}

// reader reads a message strictly: every read past the end is an error
// naming what was cut off.
type reader struct {
	b   []byte
	off int
}

func (r *reader) take(n int, what string) ([]byte, error) {
	if n > len(r.b)-r.off {
		return nil, fmt.Errorf("%w: truncated at byte %d: %s needs %d bytes, %d left", ErrInvalid, r.off, what, n, len(r.b)-r.off)
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out, nil
}

// takeOf is take for part of instruction i, naming it only on error.
func (r *reader) takeOf(n, i int, part string) ([]byte, error) {
	if n > len(r.b)-r.off {
		return r.take(n, fmt.Sprintf("instruction %d's %s", i, part))
	}
	return r.take(n, part)
}

// UnmarshalBinary decodes exactly one message: no byte missing, none after
// it, and the message must pass Check.
func (m *Message) UnmarshalBinary(data []byte) error {
	n, err := m.decode(data)
	if err != nil {
		return err
	}
	if n != len(data) {
		return fmt.Errorf("%w: %d bytes after the message's %d", ErrInvalid, len(data)-n, n)
	}
	return nil
}

// decode reads a message from the start of data and returns its length.
func (m *Message) decode(data []byte) (int, error) {
	if len(data) > MaxTransactionSize {
		return 0, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), MaxTransactionSize)
	}
	r := &reader{b: data}
	fixed, err := r.take(fixedSize, "the version, header, config mask, blockhash and counts")
	if err != nil {
		return 0, err
	}
	if fixed[0] != VersionByte {
		return 0, fmt.Errorf("%w: first byte %d is not v1's %d", ErrInvalid, fixed[0], VersionByte)
	}
	var out Message
	out.Header = Header{fixed[1], fixed[2], fixed[3]}
	out.Config.Mask = ConfigMask(binary.LittleEndian.Uint32(fixed[4:8]))
	if err := checkMask(out.Config.Mask); err != nil {
		return 0, err
	}
	copy(out.RecentBlockhash[:], fixed[8:40])
	numInstructions, numAddresses := int(fixed[40]), int(fixed[41])
	if numAddresses > MaxAddresses {
		return 0, fmt.Errorf("%w: %d addresses, at most %d", ErrTooLarge, numAddresses, MaxAddresses)
	}
	if numInstructions > MaxInstructions {
		return 0, fmt.Errorf("%w: %d instructions, at most %d", ErrTooLarge, numInstructions, MaxInstructions)
	}
	keys, err := r.take(32*numAddresses, "the addresses")
	if err != nil {
		return 0, err
	}
	out.AccountKeys = make([]solana.PublicKey, numAddresses)
	for i := range out.AccountKeys {
		copy(out.AccountKeys[i][:], keys[32*i:])
	}
	values, err := r.take(configSize(out.Config.Mask), "the config values")
	if err != nil {
		return 0, err
	}
	c := &out.Config
	if c.Mask&MaskPriorityFee != 0 {
		c.PriorityFeeLamports, values = binary.LittleEndian.Uint64(values), values[8:]
	}
	if c.Mask&MaskComputeUnitLimit != 0 {
		c.ComputeUnitLimit, values = binary.LittleEndian.Uint32(values), values[4:]
	}
	if c.Mask&MaskLoadedAccountsDataSizeLimit != 0 {
		c.LoadedAccountsDataSizeLimit, values = binary.LittleEndian.Uint32(values), values[4:]
	}
	if c.Mask&MaskHeapSize != 0 {
		c.HeapSize = binary.LittleEndian.Uint32(values)
	}
	headers, err := r.take(4*numInstructions, "the instruction headers")
	if err != nil {
		return 0, err
	}
	// One copy of the payloads backs every instruction's slices (capped, so
	// an append to one never writes into the next).
	payloads := bytes.Clone(r.b[r.off:])
	start := r.off
	out.Instructions = make([]Instruction, numInstructions)
	for i := range out.Instructions {
		h := headers[4*i:]
		accounts, err := r.takeOf(int(h[1]), i, "account indexes")
		if err != nil {
			return 0, err
		}
		ixData, err := r.takeOf(int(binary.LittleEndian.Uint16(h[2:4])), i, "data")
		if err != nil {
			return 0, err
		}
		a, d := len(accounts), len(ixData)
		at := r.off - start - d - a
		out.Instructions[i] = Instruction{
			ProgramIDIndex: h[0],
			Accounts:       payloads[at : at+a : at+a],
			Data:           payloads[at+a : at+a+d : at+a+d],
		}
	}
	if err := out.Check(); err != nil {
		return 0, err
	}
	*m = out
	return r.off, nil
}

// MarshalBinary encodes the transaction: the message, then one signature
// per required signer (zero bytes where a signer has not signed yet).
func (tx *Transaction) MarshalBinary() ([]byte, error) {
	m := &tx.Message
	if err := m.Check(); err != nil {
		return nil, err
	}
	if len(tx.Signatures) != int(m.Header.NumRequiredSignatures) {
		return nil, fmt.Errorf("%w: %d signatures for %d signers", ErrInvalid, len(tx.Signatures), m.Header.NumRequiredSignatures)
	}
	b := m.appendTo(make([]byte, 0, m.TransactionSize()))
	for _, s := range tx.Signatures {
		b = append(b, s[:]...)
	}
	return b, nil
}

// UnmarshalBinary decodes exactly one transaction of at most 4,096 bytes:
// a message, its signers' signatures, nothing after. It does not verify the
// signatures (Verify does).
func (tx *Transaction) UnmarshalBinary(data []byte) error {
	var m Message
	n, err := m.decode(data)
	if err != nil {
		return err
	}
	want := SignatureSize * int(m.Header.NumRequiredSignatures)
	if got := len(data) - n; got != want {
		return fmt.Errorf("%w: %d bytes after the message; its %d signers need %d bytes of signatures", ErrInvalid, got, m.Header.NumRequiredSignatures, want)
	}
	sigs := make([]solana.Signature, m.Header.NumRequiredSignatures)
	for i := range sigs {
		copy(sigs[i][:], data[n+SignatureSize*i:])
	}
	tx.Message, tx.Signatures = m, sigs
	return nil
}

// Sign signs the message with each key (ed25519 over the message bytes, as
// SIMD-0385 says), putting each signature at its signer's place; signatures
// of other signers stay. A key that is not one of the message's signers is
// an error, and nothing is signed then.
func (tx *Transaction) Sign(keys ...solana.PrivateKey) error {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	signers := tx.Message.Signers()
	places := make([]int, len(keys))
	for i, k := range keys {
		places[i] = -1
		if len(k) != ed25519.PrivateKeySize {
			return fmt.Errorf("%w: key %d has %d bytes, not an ed25519 private key's %d", ErrInvalid, i, len(k), ed25519.PrivateKeySize)
		}
		pub := k.PublicKey()
		for j, s := range signers {
			if s == pub {
				places[i] = j
			}
		}
		if places[i] < 0 {
			return fmt.Errorf("%w: %s is not a signer of the message", ErrInvalid, pub)
		}
	}
	if len(tx.Signatures) != len(signers) {
		sigs := make([]solana.Signature, len(signers))
		copy(sigs, tx.Signatures)
		tx.Signatures = sigs
	}
	for i, k := range keys {
		copy(tx.Signatures[places[i]][:], ed25519.Sign(ed25519.PrivateKey(k), msg))
	}
	return nil
}

// Verify checks every signer's signature over the message.
func (tx *Transaction) Verify() error {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return err
	}
	signers := tx.Message.Signers()
	if len(tx.Signatures) != len(signers) {
		return fmt.Errorf("%w: %d signatures for %d signers", ErrInvalid, len(tx.Signatures), len(signers))
	}
	for i, s := range signers {
		if !ed25519.Verify(ed25519.PublicKey(s[:]), msg, tx.Signatures[i][:]) {
			return fmt.Errorf("%w: signature %d is not %s's over the message", ErrInvalid, i, s)
		}
	}
	return nil
}
