package nonce_test

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/chain/ixtest"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
)

var key = ixtest.Key

// TestWithdraw pins WithdrawNonceAccount to solana-system-interface's
// withdraw_nonce_account (u32 5, the lamports; nonce and recipient
// writable, RecentBlockhashes and Rent, the authority signing), which
// solana-go's encoder agrees with.
func TestWithdraw(t *testing.T) {
	t.Parallel()
	acct, to, auth := key("nonce"), key("to"), key("authority")
	w := ixtest.Writable
	ro := ixtest.ReadOnly
	ixtest.Run(t, []ixtest.Case{{
		Name: "WithdrawNonceAccount", Ix: nonce.Withdraw(acct, to, auth, 1_447_680),
		Program: solana.SystemProgramID, Data: "05000000" + "0017160000000000",
		Metas: []ixtest.Meta{w(acct), w(to), ro(solana.SysVarRecentBlockHashesPubkey), ro(solana.SysVarRentPubkey), {Key: auth, Signer: true}},
		Same:  system.NewWithdrawNonceAccountInstruction(1_447_680, acct, to, solana.SysVarRecentBlockHashesPubkey, solana.SysVarRentPubkey, auth).Build(),
	}})
}

// account lays out a nonce account as the System program writes it.
func account(version, state uint32, authority solana.PublicKey, stored solana.Hash) []byte {
	d := binary.LittleEndian.AppendUint32(nil, version)
	d = binary.LittleEndian.AppendUint32(d, state)
	d = append(append(d, authority[:]...), stored[:]...)
	return binary.LittleEndian.AppendUint64(d, 5000)
}

func TestParse(t *testing.T) {
	t.Parallel()
	auth, stored := key("authority"), solana.HashFromBytes(key("blockhash").Bytes())
	for _, v := range []uint32{0, 1} {
		got, err := nonce.Parse(account(v, 1, auth, stored))
		if err != nil || got.Authority != auth || got.Nonce != stored {
			t.Errorf("version %d: Parse = %+v, %v", v, got, err)
		}
	}
	if got := account(1, 1, auth, stored)[nonce.AuthorityOffset : nonce.AuthorityOffset+32]; solana.PublicKeyFromBytes(got) != auth {
		t.Errorf("AuthorityOffset reads %x", got)
	}
	for name, data := range map[string][]byte{
		"uninitialized": account(1, 0, auth, stored),
		"version 2":     account(2, 1, auth, stored),
		"short":         account(1, 1, auth, stored)[:79],
		"a wallet":      nil,
	} {
		if _, err := nonce.Parse(data); err == nil {
			t.Errorf("%s: parsed as a nonce account", name)
		}
	}
}
