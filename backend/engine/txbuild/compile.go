package txbuild

import (
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// compile is solana.NewTransaction(ixs, blockhash,
// solana.TransactionPayer(payer)) without address tables, to the byte:
// every account of the instructions, then each program once, sorted stably
// signers first, then writable; each key once, where it first appears,
// writable if any use writes it; the payer first, a writable signer. It
// indexes keys by their bytes where NewTransaction encodes each in base58,
// which made compiling the largest part of a build's processor time, and
// leaves the instructions' account metas as they were (NewTransaction
// changes them). TestCompileMatchesNewTransaction checks it.
func compile(ixs []solana.Instruction, blockhash solana.Hash, payer solana.PublicKey) (*solana.Transaction, error) {
	if len(ixs) == 0 {
		return nil, fmt.Errorf("txbuild: compile a transaction of no instructions")
	}
	type meta struct {
		key              solana.PublicKey
		signer, writable bool
	}
	var all []meta
	var programs []solana.PublicKey
	for _, ix := range ixs {
		for _, m := range ix.Accounts() {
			all = append(all, meta{m.PublicKey, m.IsSigner, m.IsWritable})
		}
		if p := ix.ProgramID(); !slices.Contains(programs, p) {
			programs = append(programs, p)
		}
	}
	for _, p := range programs {
		all = append(all, meta{key: p})
	}
	slices.SortStableFunc(all, func(a, b meta) int {
		switch {
		case a.signer != b.signer:
			if a.signer {
				return -1
			}
			return 1
		case a.writable != b.writable:
			if a.writable {
				return -1
			}
			return 1
		}
		return 0
	})
	keys := make([]meta, 1, len(all)+1)
	keys[0] = meta{payer, true, true}
	at := make(map[solana.PublicKey]uint16, len(all)+1)
	at[payer] = 0
	for _, m := range all {
		if i, ok := at[m.key]; ok {
			keys[i].writable = keys[i].writable || m.writable
			continue
		}
		if len(keys) > 255 {
			return nil, fmt.Errorf("txbuild: compile a transaction of more than 256 accounts")
		}
		at[m.key] = uint16(len(keys)) //nolint:gosec // G115: at most 255, checked above (a message indexes its keys with one byte)
		keys = append(keys, m)
	}
	msg := solana.Message{RecentBlockhash: blockhash, AccountKeys: make(solana.PublicKeySlice, len(keys))}
	for i, k := range keys {
		msg.AccountKeys[i] = k.key
		switch {
		case k.signer:
			msg.Header.NumRequiredSignatures++
			if !k.writable {
				msg.Header.NumReadonlySignedAccounts++
			}
		case !k.writable:
			msg.Header.NumReadonlyUnsignedAccounts++
		}
	}
	msg.Instructions = make([]solana.CompiledInstruction, len(ixs))
	for i, ix := range ixs {
		data, err := ix.Data()
		if err != nil {
			return nil, fmt.Errorf("txbuild: compile instruction %d: %w", i, err)
		}
		accounts := ix.Accounts()
		idx := make([]uint16, len(accounts))
		for j, m := range accounts {
			idx[j] = at[m.PublicKey]
		}
		msg.Instructions[i] = solana.CompiledInstruction{ProgramIDIndex: at[ix.ProgramID()], Accounts: idx, Data: data}
	}
	return &solana.Transaction{Message: msg}, nil
}
