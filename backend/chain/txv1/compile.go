package txv1

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Compile builds the message that runs instructions in order, paid by payer:
// the addresses ordered as legacy and v0 messages order them (the payer, the
// other writable signers, readonly signers, writable non-signers, readonly
// non-signers, each class in the order of first use; a program is a readonly
// non-signer), roles merged (an address is a signer, or writable, if any use
// makes it so). It refuses an invoked program that is writable or the payer,
// and a message over a limit (ErrTooLarge: a packer tries fewer
// instructions). Kit sorts within each class by its collation of the base58
// addresses instead; both orders are valid and sign the same accounts.
func Compile(payer solana.PublicKey, blockhash solana.Hash, config Config, instructions ...solana.Instruction) (*Message, error) {
	byClass, datas, err := classify(payer, instructions)
	if err != nil {
		return nil, err
	}
	signers := len(byClass[0]) + len(byClass[1])
	m := &Message{
		Header: Header{
			NumRequiredSignatures:       clampCount(signers),
			NumReadonlySignedAccounts:   clampCount(len(byClass[1])),
			NumReadonlyUnsignedAccounts: clampCount(len(byClass[3])),
		},
		Config:          config,
		RecentBlockhash: blockhash,
		Instructions:    make([]Instruction, len(instructions)),
	}
	for _, keys := range byClass {
		m.AccountKeys = append(m.AccountKeys, keys...)
	}
	if len(m.AccountKeys) > MaxAddresses {
		return nil, fmt.Errorf("%w: %d addresses, at most %d", ErrTooLarge, len(m.AccountKeys), MaxAddresses)
	}
	if signers > MaxSignatures {
		return nil, fmt.Errorf("%w: %d signers, at most %d", ErrTooLarge, signers, MaxSignatures)
	}
	index := make(map[solana.PublicKey]uint8, len(m.AccountKeys))
	for i, k := range m.AccountKeys {
		index[k] = uint8(i)
	}
	for i, ix := range instructions {
		metas := ix.Accounts()
		accounts := make([]uint8, len(metas))
		for j, a := range metas {
			accounts[j] = index[a.PublicKey]
		}
		m.Instructions[i] = Instruction{ProgramIDIndex: index[ix.ProgramID()], Accounts: accounts, Data: datas[i]}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// classify gives the instructions' addresses in their four classes
// (writable signers from the payer on, readonly signers, writable
// non-signers, readonly non-signers), each in order of first use, and the
// instructions' data.
func classify(payer solana.PublicKey, instructions []solana.Instruction) ([4][]solana.PublicKey, [][]byte, error) {
	type role struct{ signer, writable, program bool }
	roles := map[solana.PublicKey]*role{payer: {signer: true, writable: true}}
	order := []solana.PublicKey{payer}
	use := func(k solana.PublicKey) *role {
		r, ok := roles[k]
		if !ok {
			r = &role{}
			roles[k] = r
			order = append(order, k)
		}
		return r
	}
	var byClass [4][]solana.PublicKey
	datas := make([][]byte, len(instructions))
	for i, ix := range instructions {
		data, err := ix.Data()
		if err != nil {
			return byClass, nil, fmt.Errorf("instruction %d data: %w", i, err)
		}
		datas[i] = data
		for _, a := range ix.Accounts() {
			r := use(a.PublicKey)
			r.signer = r.signer || a.IsSigner
			r.writable = r.writable || a.IsWritable
		}
		use(ix.ProgramID()).program = true
	}
	for _, k := range order {
		r := roles[k]
		switch {
		case r.program && k == payer:
			return byClass, nil, fmt.Errorf("%w: the fee payer %s is invoked as a program", ErrInvalid, k)
		case r.program && r.writable:
			return byClass, nil, fmt.Errorf("%w: program %s is invoked and writable", ErrInvalid, k)
		}
		c := 3
		switch {
		case r.signer && r.writable:
			c = 0
		case r.signer:
			c = 1
		case r.writable:
			c = 2
		}
		byClass[c] = append(byClass[c], k)
	}
	return byClass, datas, nil
}

// clampCount fits a count in the header's byte; Compile refuses what it
// clamps (more than 64 addresses) before the message is used.
func clampCount(n int) uint8 {
	return uint8(min(n, 255))
}
