// Package txv1 encodes and decodes v1 transactions (SIMD-0385, "Transaction
// V1 Format", with SIMD-0296's 4,096-byte limit): messages of up to 64
// addresses and 64 instructions, no address lookup tables, whose compute-unit
// limit, loaded-accounts-data-size limit, heap size and total priority fee sit
// in a config mask instead of compute-budget instructions. solana-go has no
// v1 support, so this is ours; its bytes are pinned to @solana/kit 8.4.0's
// (testdata/kit.golden.json, written by the end-to-end suite's txv1kit).
//
// The layout, as SIMD-0385 "Transaction V1 Specification" gives it
// (proposals/0385-transaction-v1.md of solana-foundation/
// solana-improvement-documents, commit b21bf31) and as kit 8.4.0 writes it
// (@solana/transaction-messages dist/index.node.cjs: getMessageEncoder3 at
// line 555, getCompiledTransactionConfigValuesDecoder line 506, the mask bits
// line 469; @solana/transactions dist/index.node.cjs:
// getTransactionEncoderWithMessageFirst line 92), all integers little-endian:
//
//	offset  width      field
//	0       u8         version byte: 129 (0x80 | 1); 0x80 | 0 is v0, below 0x80 legacy
//	1       u8 x 3     header: num_required_signatures, num_readonly_signed,
//	                   num_readonly_unsigned (as legacy and v0)
//	4       u32        TransactionConfigMask
//	8       32         lifetime specifier (the recent blockhash or a nonce)
//	40      u8         NumInstructions (at most 64)
//	41      u8         NumAddresses (at most 64)
//	42      32 x N     addresses, ordered as legacy: writable signers (the
//	                   fee payer first), readonly signers, writable
//	                   non-signers, readonly non-signers; no duplicates
//	...     config values, in bit order, only those whose bits are set:
//	          bits 0 and 1: total priority fee, u64 lamports (both bits or neither)
//	          bit 2:        compute-unit limit, u32
//	          bit 3:        loaded accounts data size limit, u32 bytes
//	          bit 4:        heap size, u32 bytes
//	...     instruction headers, 4 bytes each: program address index u8,
//	          number of accounts u8, number of data bytes u16
//	...     instruction payloads, in order: the account indexes (u8 each),
//	          then the data
//	...     signatures: num_required_signatures x 64 bytes, AFTER the message
//	          (legacy and v0 put a compact-u16 count and the signatures first);
//	          signature i is ed25519 by address i over every byte before it
//
// A transaction is at most 4,096 bytes (SIMD-0296) and carries nothing after
// its signatures. Unlike kit, which ignores mask bits it does not know and
// throws on one fee bit, the decoder refuses any bit above 4 and a lone fee
// bit (LiteSVM 1.5.0's native code panics on the latter): the SIMD assigns
// no other bits, and a node that reads them differently from us must not
// get our signature on it.
package txv1

import (
	"errors"

	"github.com/gagliardetto/solana-go"
)

// Limits of SIMD-0385 and SIMD-0296.
const (
	// VersionByte opens every v1 message.
	VersionByte = 0x80 | 1
	// MaxTransactionSize is a whole transaction's size, signatures included.
	MaxTransactionSize = 4096
	// MaxAddresses is the number of addresses a message may hold.
	MaxAddresses = 64
	// MaxInstructions is the number of instructions a message may hold.
	MaxInstructions = 64
	// MaxSignatures is the number of signatures a transaction may carry.
	MaxSignatures = 12
	// SignatureSize is an ed25519 signature's size.
	SignatureSize = 64

	// fixedSize is the message's bytes before its addresses.
	fixedSize = 1 + 3 + 4 + 32 + 1 + 1
)

// ErrInvalid is the cause of every error about a malformed message or
// transaction: truncated, trailing bytes, a bad config mask, an index out of
// range, a duplicate address, a header that contradicts the addresses.
var ErrInvalid = errors.New("invalid v1 transaction")

// ErrTooLarge is the cause of every error about a message over a limit:
// more than 64 addresses or instructions, more than 12 signers, or a
// transaction over 4,096 bytes. A packer tries fewer instructions.
var ErrTooLarge = errors.New("v1 transaction over a limit")

// ConfigMask says which config values a message carries.
type ConfigMask uint32

// The bits SIMD-0385 assigns.
const (
	// MaskPriorityFee is two bits: the total priority fee is a u64.
	MaskPriorityFee ConfigMask = 0b11
	// MaskComputeUnitLimit carries the compute-unit limit.
	MaskComputeUnitLimit ConfigMask = 1 << 2
	// MaskLoadedAccountsDataSizeLimit carries the loaded accounts data size limit.
	MaskLoadedAccountsDataSizeLimit ConfigMask = 1 << 3
	// MaskHeapSize carries the requested heap size.
	MaskHeapSize ConfigMask = 1 << 4

	knownMask = MaskPriorityFee | MaskComputeUnitLimit | MaskLoadedAccountsDataSizeLimit | MaskHeapSize
)

// Config is what a v1 message asks of the runtime in place of
// compute-budget instructions. A value counts only when its bits are in
// Mask; the Set methods set both. An unset value means the SIMD's minimum:
// no priority fee, a compute-unit limit of 0, a loaded-data limit of 0 and a
// heap of 32 KiB, so a message that runs anything sets the first limits.
type Config struct {
	Mask ConfigMask
	// PriorityFeeLamports is the transaction's whole priority fee, not a
	// price per compute unit.
	PriorityFeeLamports         uint64
	ComputeUnitLimit            uint32
	LoadedAccountsDataSizeLimit uint32
	HeapSize                    uint32
}

// SetPriorityFee sets the total priority fee in lamports.
func (c *Config) SetPriorityFee(lamports uint64) {
	c.Mask |= MaskPriorityFee
	c.PriorityFeeLamports = lamports
}

// SetComputeUnitLimit sets the compute-unit limit.
func (c *Config) SetComputeUnitLimit(units uint32) {
	c.Mask |= MaskComputeUnitLimit
	c.ComputeUnitLimit = units
}

// SetLoadedAccountsDataSizeLimit sets the loaded accounts data size limit.
func (c *Config) SetLoadedAccountsDataSizeLimit(bytes uint32) {
	c.Mask |= MaskLoadedAccountsDataSizeLimit
	c.LoadedAccountsDataSizeLimit = bytes
}

// SetHeapSize sets the requested heap size.
func (c *Config) SetHeapSize(bytes uint32) {
	c.Mask |= MaskHeapSize
	c.HeapSize = bytes
}

// Header is the legacy header, unchanged in v1.
type Header struct {
	NumRequiredSignatures       uint8
	NumReadonlySignedAccounts   uint8
	NumReadonlyUnsignedAccounts uint8
}

// Instruction is a compiled instruction: indexes into the message's
// addresses.
type Instruction struct {
	ProgramIDIndex uint8
	Accounts       []uint8
	Data           []byte
}

// Message is a v1 message. MarshalBinary and UnmarshalBinary check it as a
// node sanitizes one.
type Message struct {
	Header Header
	Config Config
	// RecentBlockhash is SIMD-0385's lifetime specifier.
	RecentBlockhash solana.Hash
	AccountKeys     []solana.PublicKey
	Instructions    []Instruction
}

// Transaction is a v1 message and its signatures, one per required signer
// in the order of the message's first addresses.
type Transaction struct {
	Message    Message
	Signatures []solana.Signature
}

// IsSigner tells whether address i signs.
func (m *Message) IsSigner(i int) bool {
	return i < int(m.Header.NumRequiredSignatures)
}

// IsWritable tells whether address i is loaded writable.
func (m *Message) IsWritable(i int) bool {
	h := m.Header
	if m.IsSigner(i) {
		return i < int(h.NumRequiredSignatures)-int(h.NumReadonlySignedAccounts)
	}
	return i < len(m.AccountKeys)-int(h.NumReadonlyUnsignedAccounts)
}

// Signers are the addresses that sign, the fee payer first.
func (m *Message) Signers() []solana.PublicKey {
	n := min(int(m.Header.NumRequiredSignatures), len(m.AccountKeys))
	return m.AccountKeys[:n]
}
