package spltoken

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// AccountState is a token account's state byte (offset 108).
type AccountState uint8

// The account states.
const (
	StateUninitialized AccountState = 0
	StateInitialized   AccountState = 1
	StateFrozen        AccountState = 2
)

// Account is the part of a token account's state that Reclaim reads.
type Account struct {
	Mint, Owner solana.PublicKey
	// Amount is the raw token balance.
	Amount uint64
	Frozen bool
	// Native is a wrapped SOL account (is_native is Some).
	Native bool
	// CloseAuthority is nil when none is set (then the owner closes).
	CloseAuthority *solana.PublicKey
	// WithheldAmount is Token-2022's TransferFeeAmount extension: transfer
	// fees withheld in the account; 0 without the extension.
	WithheldAmount uint64
}

// ParseAccount reads an initialized SPL Token or Token-2022 account:
// mint 0..32, owner 32..64, amount 64..72, delegate COption 72..108, state
// 108, is_native COption<u64> 109..121, delegated_amount 121..129,
// close_authority COption 129..165, then (Token-2022) the account-type byte
// and TLV extensions. A mint, a multisig or an uninitialized account is
// ErrLayout.
func ParseAccount(data []byte) (Account, error) {
	if len(data) < AccountSize || len(data) == MultisigSize {
		return Account{}, ErrLayout
	}
	if len(data) > AccountSize && AccountType(data[AccountSize]) != AccountTypeAccount {
		return Account{}, ErrLayout
	}
	state := AccountState(data[108])
	if state != StateInitialized && state != StateFrozen {
		return Account{}, ErrLayout
	}
	a := Account{
		Mint:   solana.PublicKeyFromBytes(data[0:32]),
		Owner:  solana.PublicKeyFromBytes(data[32:64]),
		Amount: binary.LittleEndian.Uint64(data[64:72]),
		Frozen: state == StateFrozen,
		Native: binary.LittleEndian.Uint32(data[109:113]) == 1,
	}
	if binary.LittleEndian.Uint32(data[129:133]) == 1 {
		pk := solana.PublicKeyFromBytes(data[133:165])
		a.CloseAuthority = &pk
	}
	EachExtension(data, func(typ ExtensionType, value []byte) {
		if typ == ExtensionTransferFeeAmount && len(value) >= 8 {
			a.WithheldAmount = binary.LittleEndian.Uint64(value)
		}
	})
	return a, nil
}

// ForeignCloseAuthority reports a close authority other than the owner:
// then only that authority can close the account.
func (a Account) ForeignCloseAuthority() bool {
	return a.CloseAuthority != nil && !a.CloseAuthority.Equals(a.Owner)
}
