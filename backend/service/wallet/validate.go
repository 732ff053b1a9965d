package wallet

import (
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/address"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
)

// Limits of one request (docs/decisions.md).
const (
	// MaxBuildItems is the most items one build request may select.
	MaxBuildItems = 500
	// MaxSubmitSigned is the most signed transactions one submit may carry.
	MaxSubmitSigned = 100
	// MaxPageSize is the most items one page of a listing may hold.
	MaxPageSize = 1000
)

// PriorityLevel is how much priority fee a build's transactions pay: one of
// txbuild's levels (none, low, medium, high).
type PriorityLevel string

var priorityLevels = []PriorityLevel{txbuild.PriorityNone, txbuild.PriorityLow, txbuild.PriorityMedium, txbuild.PriorityHigh}

// Known reports whether l is one of the levels.
func (l PriorityLevel) Known() bool { return slices.Contains(priorityLevels, l) }

// ParseAddress decodes the path's wallet of a listing or a stream: any
// 32-byte address. The faces call it as they convert the request, so that
// the address is decoded once.
func ParseAddress(s string) (solana.PublicKey, error) {
	if s == "" {
		return solana.PublicKey{}, invalidf("address", "the wallet address in the path is required")
	}
	key, err := address.Parse(s)
	if err != nil {
		return key, invalidf("address", "%s", err.Error())
	}
	return key, nil
}

// ParseSigner decodes the path's wallet of a build or a submit: it must be
// able to sign (on the Ed25519 curve).
func ParseSigner(s string) (solana.PublicKey, error) {
	if s == "" {
		return solana.PublicKey{}, invalidf("address", "the wallet address in the path is required")
	}
	key, err := address.Wallet(s)
	if err != nil {
		return key, invalidf("address", "%s", err.Error())
	}
	return key, nil
}

// SelectionOf is a caller's selection with its address decoded, once, as
// the face converts the request. An address that is missing or does not
// decode is kept with the selection, not refused here: Build refuses it as
// items[i].address in its turn among the request's checks, so that a
// request with several mistakes is told the same first one whatever the
// face.
func SelectionOf(t assets.ItemType, addr string, a assets.Action) Selection {
	s := Selection{Type: t, Action: a}
	switch key, err := address.Parse(addr); {
	case addr == "":
		s.badAddress = errors.New("is required")
	case err != nil:
		s.badAddress = err
	default:
		s.Address = key
	}
	return s
}

// validateBuild checks what the proto's rules (buf.validate, checked by the
// faces before the service is called: items or selectAll, at most
// MaxBuildItems, known types and actions, the donation's range, the
// priority levels) cannot say: an address that decodes, an action the
// item's type takes, no item twice.
func validateBuild(req BuildRequest) error {
	seen := make(map[solana.PublicKey]int, len(req.Items))
	for i, it := range req.Items {
		field := itemField(i)
		if it.badAddress != nil {
			return invalidf(field+".address", "%s", it.badAddress.Error())
		}
		if !assets.ValidAction(it.Type, it.Action) {
			return InvalidAction(field, it.Type, it.Action)
		}
		if j, dup := seen[it.Address]; dup {
			return invalidf(field+".address", "%s is already selected in items[%d]", it.Address, j)
		}
		seen[it.Address] = i
	}
	return nil
}

// InvalidAction is the fault of item (items[3]) whose action its type does
// not take.
func InvalidAction(item string, t assets.ItemType, a assets.Action) error {
	return invalidf(item+".action", "action %q is not valid for an item of type %s: %s", a, t, takes(t))
}

// takes says which actions a type takes, for a message.
func takes(t assets.ItemType) string {
	acts := assets.ActionsFor(t)
	if len(acts) == 0 {
		return "it takes no action yet"
	}
	return "want " + join(acts, " or ")
}

// validateSubmit checks what the proto's rules (1 to MaxSubmitSigned
// entries, each with a ticket of at most 8 KiB and transactionBase64 of at
// most a transaction's length or signature, not both) cannot say: a
// signature that decodes to 64 bytes, standard base64.
func validateSubmit(signed []Signed) error {
	for i, s := range signed {
		field := "signed[" + strconv.Itoa(i) + "]"
		if s.Signature != "" {
			if _, err := solana.SignatureFromBase58(s.Signature); err != nil {
				return invalidf(field+".signature", "is not a transaction signature (64 bytes in base58)")
			}
			continue
		}
		if _, err := base64.StdEncoding.DecodeString(s.TransactionBase64); err != nil {
			return invalidf(field+".transactionBase64", "is not valid standard base64")
		}
	}
	return nil
}

// ChunkSize checks a stream's requested chunk size (nil: the default).
func ChunkSize(n *uint32) (int, error) {
	if n == nil {
		return assets.DefaultChunkSize, nil
	}
	if *n < 1 || *n > assets.MaxChunkSize {
		return 0, invalidf("chunkSize", "must be from 1 to %d, got %d", assets.MaxChunkSize, *n)
	}
	return int(*n), nil
}

func itemField(i int) string { return "items[" + strconv.Itoa(i) + "]" }

// join lists named strings (item types, actions) for a message.
func join[T ~string](in []T, sep string) string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return strings.Join(out, sep)
}
