package relay

import (
	"errors"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

// decode parses a signed transaction and returns it with the exact bytes of
// its message (what the signatures and the ticket's hash cover).
func decode(raw []byte) (*solana.Transaction, []byte, error) {
	tx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
	if err != nil {
		return nil, nil, err
	}
	n, size, err := shortvec(raw)
	if err != nil {
		return nil, nil, err
	}
	start := size + n*64
	if n != len(tx.Signatures) || start >= len(raw) {
		return nil, nil, errors.New("truncated signatures")
	}
	return tx, raw[start:], nil
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
