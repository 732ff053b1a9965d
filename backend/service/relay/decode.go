package relay

import (
	"errors"
	"fmt"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

// decode parses a signed transaction and returns it with the exact bytes of
// its message (what the signatures and the ticket's hash cover). What is
// not one is an error saying what is wrong in the terms of the wire format
// (signature count, signatures, message), never in the decoder's.
func decode(raw []byte) (*solana.Transaction, []byte, error) {
	n, size, err := shortvec(raw)
	if err != nil {
		return nil, nil, errors.New("it does not start with a signature count (a compact-u16)")
	}
	start := size + n*64
	if start >= len(raw) {
		return nil, nil, fmt.Errorf("it declares %d %s of 64 bytes and a message after them, but only %d bytes follow the signature count",
			n, plural(n, "signature", "signatures"), len(raw)-size)
	}
	tx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
	if err != nil || n != len(tx.Signatures) {
		return nil, nil, errors.New("its message (header, account keys, recent blockhash, instructions) is cut short or malformed")
	}
	return tx, raw[start:], nil
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
