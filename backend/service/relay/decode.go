package relay

import (
	"errors"
	"fmt"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// signedTx is a signed transaction as the relay reads it: legacy, v0 or v1.
type signedTx struct {
	// signatures in the order of the message's signers; the first is the
	// fee payer's, the transaction's id.
	signatures []solana.Signature
	// message is the exact bytes the signatures and the ticket's hash cover.
	message []byte
	// keys are the message's addresses (a v0 message's static ones).
	keys []solana.PublicKey
}

// decode parses a signed transaction: v1 (SIMD-0385) when its first byte
// is 0x81, its message first and its signatures after it; legacy or v0
// otherwise, a signature count and the signatures first. (No legacy or v0
// transaction starts with 0x81: that count, 129 or more signatures, does
// not fit its 1,232 bytes.) What is not one is an error saying what is
// wrong in the terms of the wire format (signature count, signatures,
// message), never in the decoder's.
// maxLegacySize is a legacy or v0 transaction's largest size (a packet).
const maxLegacySize = 1232

func decode(raw []byte) (signedTx, error) {
	if len(raw) > 0 && raw[0] == txv1.VersionByte {
		return decodeV1(raw)
	}
	if len(raw) > maxLegacySize {
		return signedTx{}, fmt.Errorf("it is %d bytes, but a legacy or v0 transaction is at most %d (only a v1 one, first byte 0x81, may reach %d)",
			len(raw), maxLegacySize, txv1.MaxTransactionSize)
	}
	n, size, err := shortvec(raw)
	if err != nil {
		return signedTx{}, errors.New("it does not start with a signature count (a compact-u16)")
	}
	start := size + n*64
	if start >= len(raw) {
		return signedTx{}, fmt.Errorf("it declares %d %s of 64 bytes and a message after them, but only %d bytes follow the signature count",
			n, plural(n, "signature", "signatures"), len(raw)-size)
	}
	tx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
	if err != nil || n != len(tx.Signatures) {
		return signedTx{}, errors.New("its message (header, account keys, recent blockhash, instructions) is cut short or malformed")
	}
	return signedTx{signatures: tx.Signatures, message: raw[start:], keys: tx.Message.AccountKeys}, nil
}

// decodeV1 reads a v1 transaction with txv1's decoder, which refuses what
// a node refuses (over 4,096 bytes or 64 addresses, a bad config mask,
// bytes after the signatures).
func decodeV1(raw []byte) (signedTx, error) {
	var tx txv1.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return signedTx{}, fmt.Errorf("it starts as a v1 transaction (first byte 0x81) but is not one: %w", err)
	}
	msg := raw[:len(raw)-txv1.SignatureSize*len(tx.Signatures)]
	return signedTx{signatures: tx.Signatures, message: msg, keys: tx.Message.AccountKeys}, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shortvec reads Solana's compact-u16 length prefix.
func shortvec(b []byte) (n, size int, err error) {
	for i := 0; i < 3 && i < len(b); i++ {
		n |= int(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return n, i + 1, nil
		}
	}
	return 0, 0, errors.New("bad length prefix")
}
