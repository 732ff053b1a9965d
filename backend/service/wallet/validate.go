package wallet

import (
	"encoding/base64"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// Limits of one request (docs/decisions.md).
const (
	// MaxBuildItems is the most items one build request may select.
	MaxBuildItems = 500
	// MaxSubmitSigned is the most signed transactions one submit may carry.
	MaxSubmitSigned = 100
	// MaxPageSize is the most items one page of a listing may hold.
	MaxPageSize = 1000
	// maxSignedTxBase64 is the base64 length of the largest transaction the
	// cluster accepts (1232 bytes).
	maxSignedTxBase64 = (1232 + 2) / 3 * 4
	maxTicketLen      = 8 << 10
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
func ParseAddress(address string) (solana.PublicKey, error) {
	if address == "" {
		return solana.PublicKey{}, invalidf("address", "the wallet address in the path is required")
	}
	key, err := auth.ParseAddress(address)
	if err != nil {
		return key, invalidf("address", "%s", err.Error())
	}
	return key, nil
}

// ParseSigner decodes the path's wallet of a build or a submit: it must be
// able to sign (on the Ed25519 curve).
func ParseSigner(address string) (solana.PublicKey, error) {
	if address == "" {
		return solana.PublicKey{}, invalidf("address", "the wallet address in the path is required")
	}
	key, err := auth.ParseWallet(address)
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
func SelectionOf(t assets.ItemType, address string, a assets.Action) Selection {
	s := Selection{Type: t, Action: a}
	switch key, err := auth.ParseAddress(address); {
	case address == "":
		s.badAddress = errors.New("is required")
	case err != nil:
		s.badAddress = err
	default:
		s.Address = key
	}
	return s
}

func validateBuild(req BuildRequest) error {
	switch {
	case req.SelectAll && len(req.Items) > 0:
		return invalidf("selectAll", "give either items or selectAll, not both: selectAll selects every safe item itself")
	case req.SelectAll:
		return validateOptions(req.DonationPercentage, req.PriorityFeeLevel)
	case len(req.Items) == 0:
		return invalidf("items", "at least one item is required")
	}
	if len(req.Items) > MaxBuildItems {
		return invalidf("items", "at most %d items per request, got %d: split the selection", MaxBuildItems, len(req.Items))
	}
	seen := make(map[solana.PublicKey]int, len(req.Items))
	for i, it := range req.Items {
		field := itemField(i)
		if !it.Type.Known() {
			return invalidf(field+".type", "unknown item type %q: want one of %s", it.Type, join(assets.ItemTypes(), ", "))
		}
		if it.badAddress != nil {
			return invalidf(field+".address", "%s", it.badAddress.Error())
		}
		if !assets.ValidAction(it.Type, it.Action) {
			return invalidf(field+".action", "action %q is not valid for an item of type %s: %s", it.Action, it.Type, takes(it.Type))
		}
		if j, dup := seen[it.Address]; dup {
			return invalidf(field+".address", "%s is already selected in items[%d]", it.Address, j)
		}
		seen[it.Address] = i
	}
	return validateOptions(req.DonationPercentage, req.PriorityFeeLevel)
}

// validateOptions checks a build's (or a summary's) donation and priority
// (nil: not given).
func validateOptions(donation *float64, level *PriorityLevel) error {
	if donation != nil {
		d := *donation
		if math.IsNaN(d) || d < 0 || d > 1 {
			return invalidf("donationPercentage", "must be from 0 to 1 (0.1 means 10%%), got %v", d)
		}
	}
	if level != nil && !level.Known() {
		return invalidf("priorityFeeLevel", "unknown level %q: want one of %s", *level, join(priorityLevels, ", "))
	}
	return nil
}

// takes says which actions a type takes, for a message.
func takes(t assets.ItemType) string {
	acts := assets.ActionsFor(t)
	if len(acts) == 0 {
		return "it takes no action yet"
	}
	return "want " + join(acts, " or ")
}

func validateSubmit(signed []Signed) error {
	if len(signed) == 0 {
		return invalidf("signed", "at least one signed transaction is required")
	}
	if len(signed) > MaxSubmitSigned {
		return invalidf("signed", "at most %d signed transactions per request, got %d", MaxSubmitSigned, len(signed))
	}
	for i, s := range signed {
		field := "signed[" + strconv.Itoa(i) + "]"
		if s.Ticket == "" {
			return invalidf(field+".submissionTicket", "is required: pass back the ticket of the matching built transaction")
		}
		if len(s.Ticket) > maxTicketLen {
			return invalidf(field+".submissionTicket", "is not a ticket this service issued")
		}
		if s.Signature != "" {
			if s.TransactionBase64 != "" {
				return invalidf(field, "give transactionBase64 (Reclaim sends it) or signature (the wallet sent it), not both")
			}
			if _, err := solana.SignatureFromBase58(s.Signature); err != nil {
				return invalidf(field+".signature", "is not a transaction signature (64 bytes in base58)")
			}
			continue
		}
		if s.TransactionBase64 == "" {
			return invalidf(field+".transactionBase64", "is required")
		}
		if len(s.TransactionBase64) > maxSignedTxBase64 {
			return invalidf(field+".transactionBase64", "is longer than a Solana transaction can be (1232 bytes)")
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
