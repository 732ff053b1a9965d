package assets

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/pkg/base58"
	internalrpc "github.com/reclaim-sol/reclaim/backend/upstream/jsonrpc"
)

// programTokenAccounts is wallet's token accounts under program (one
// getTokenAccountsByOwner call, base64), those that parse as initialized
// token accounts of wallet, each with its address in base58 as the cluster
// wrote it.
//
// When the RPC is solana-go's *rpc.Client itself, the call goes through its
// RPCCallWithCallback and tokenAccountsAnswer reads the answer (about 450
// bytes per account, 226 KB for 500) in place of solana-go's generic
// decoder: at 1,000 accounts that decoder (the answer scanned whole for the
// envelope, then each account through reflection) and encoding every
// address again to sort them were most of the service's time between the
// cluster's answer and the stream's first page going out. Any other RPC (a
// wrapper, a fake) is called through its GetTokenAccountsByOwner.
func (d *Discoverer) programTokenAccounts(ctx context.Context, wallet, program solana.PublicKey) ([]ownedAccount, error) {
	client, ok := d.rpc.(*rpc.Client)
	if !ok {
		return d.programTokenAccountsDecoded(ctx, wallet, program)
	}
	params := []any{wallet, rpc.M{"programId": program}, rpc.M{"commitment": commitment, "encoding": solana.EncodingBase64}}
	var out []ownedAccount
	err := internalrpc.RawCall(ctx, client, "getTokenAccountsByOwner", params, func(body []byte, status int) error {
		var err error
		out, err = tokenAccountsAnswer(body, wallet)
		if err != nil && status >= 400 {
			return fmt.Errorf("HTTP status %d: %w", status, err)
		}
		return err
	})
	return out, err
}

// programTokenAccountsDecoded is programTokenAccounts through the RPC
// interface's own method (an RPC that is not a solana-go client).
func (d *Discoverer) programTokenAccountsDecoded(ctx context.Context, wallet, program solana.PublicKey) ([]ownedAccount, error) {
	res, err := d.rpc.GetTokenAccountsByOwner(ctx, wallet, &rpc.GetTokenAccountsConfig{ProgramId: &program},
		&rpc.GetTokenAccountsOpts{Commitment: commitment, Encoding: solana.EncodingBase64})
	if err != nil || res == nil {
		return nil, err
	}
	var out []ownedAccount
	for _, ka := range res.Value {
		if ka == nil || ka.Account.Data == nil || !spltoken.IsProgram(ka.Account.Owner) {
			continue
		}
		if a, ok := ownedOf(ka.Pubkey, ka.Account.Owner, ka.Account.Lamports, ka.Account.Data.GetBinary(), wallet); ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// ownedOf is the account at address if data parses as an initialized token
// account of wallet.
func ownedOf(address, program solana.PublicKey, lamports uint64, data []byte, wallet solana.PublicKey) (ownedAccount, bool) {
	st, err := spltoken.ParseAccount(data)
	if err != nil || !st.Owner.Equals(wallet) {
		return ownedAccount{}, false
	}
	return ownedAccount{address: address, key: address.String(), program: program, lamports: lamports, size: uint64(len(data)), state: st}, true
}

// tokenAccountsAnswer reads a getTokenAccountsByOwner answer (base64
// encoding) as programTokenAccountsDecoded does solana-go's decoding of it:
// accounts whose owner is not a token program, or whose data is not an
// initialized token account of wallet, are left out; a JSON-RPC error is a
// *jsonrpc.RPCError.
func tokenAccountsAnswer(body []byte, wallet solana.PublicKey) ([]ownedAccount, error) {
	s := &jsonScan{b: body}
	out := make([]ownedAccount, 0, len(body)/minEntryBytes+1)
	var rpcErr *jsonrpc.RPCError
	result := false
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "result":
			result = true
			if s.null() {
				return nil
			}
			return s.object(func(key []byte) error {
				if string(key) != "value" {
					return s.skip()
				}
				if s.null() {
					return nil
				}
				return s.array(func() error {
					a, ok, err := s.keyedAccount(wallet)
					if ok {
						out = append(out, a)
					}
					return err
				})
			})
		case "error":
			if s.null() {
				return nil
			}
			text, err := s.raw()
			if err != nil {
				return err
			}
			rpcErr = &jsonrpc.RPCError{}
			return json.Unmarshal(text, rpcErr)
		}
		return s.skip()
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("getTokenAccountsByOwner answer: %w", err)
	case rpcErr != nil:
		return nil, rpcErr
	case !result:
		return nil, fmt.Errorf("getTokenAccountsByOwner answer: %w: no result", errJSONSyntax)
	}
	return out, nil
}

// minEntryBytes is less than the JSON of any token account in an answer
// (about 450 bytes: an address, the data's 220 base64 characters, the owner).
const minEntryBytes = 400

var (
	programKeys = func() [][]byte {
		out := make([][]byte, len(spltoken.Programs))
		for i, p := range spltoken.Programs {
			out[i] = []byte(p.String())
		}
		return out
	}()
	base64Name = []byte(solana.EncodingBase64)
)

// keyedAccount reads one {"pubkey", "account"} element; ok says it is a
// token account of wallet.
func (s *jsonScan) keyedAccount(wallet solana.PublicKey) (a ownedAccount, ok bool, err error) {
	if s.null() {
		return a, false, nil
	}
	var pubkey, owner, data []byte // data is s.buf's, until the next account
	var lamports uint64
	hasData := false
	err = s.object(func(key []byte) (err error) {
		switch string(key) {
		case "pubkey":
			pubkey, err = s.str()
			return err
		case "account":
			return s.object(func(key []byte) (err error) {
				switch string(key) {
				case "owner":
					owner, err = s.str()
				case "lamports":
					lamports, err = s.uint()
				case "data":
					hasData = !s.null()
					if hasData {
						data, err = s.base64Data()
					}
				default:
					err = s.skip()
				}
				return err
			})
		}
		return s.skip()
	})
	if err != nil || !hasData {
		return a, false, err
	}
	program := -1
	for i, p := range programKeys {
		if bytes.Equal(owner, p) {
			program = i
		}
	}
	if program < 0 {
		return a, false, nil // not a token program's account: left out
	}
	address, valid := base58.Decode32(pubkey)
	if !valid {
		return a, false, s.fail("bad pubkey")
	}
	st, perr := spltoken.ParseAccount(data)
	if perr != nil || !st.Owner.Equals(wallet) {
		return a, false, nil //nolint:nilerr // not an initialized token account of wallet: left out, as solana-go's path does
	}
	return ownedAccount{address: solana.PublicKey(address), key: string(pubkey), program: spltoken.Programs[program], lamports: lamports, size: uint64(len(data)), state: st}, true, nil
}

// base64Data reads an account's data as ["<base64>", "base64"], into s.buf
// (spltoken.ParseAccount copies what it keeps).
func (s *jsonScan) base64Data() ([]byte, error) {
	var text, enc []byte
	n := 0
	err := s.array(func() (err error) {
		switch n++; n {
		case 1:
			text, err = s.str()
		case 2:
			enc, err = s.str()
		default:
			err = s.fail("data of more than two elements")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if n != 2 || !bytes.Equal(enc, base64Name) {
		return nil, s.fail("data not [text, \"base64\"]")
	}
	if n := base64.StdEncoding.DecodedLen(len(text)); cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(s.buf[:cap(s.buf)], text)
	if err != nil {
		return nil, s.fail("bad base64")
	}
	return s.buf[:m], nil
}
