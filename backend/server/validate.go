package server

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"strings"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"

	"github.com/reclaim-sol/reclaim/backend/auth"
)

// Limits of one request (docs/decisions.md).
const (
	maxBuildItems   = 500
	maxSubmitSigned = 100
	// maxSignedTxBase64 is the base64 length of the largest transaction the
	// cluster accepts (1232 bytes).
	maxSignedTxBase64 = (1232 + 2) / 3 * 4
	maxTicketLen      = 8 << 10
)

// actionsByType are the actions each WalletItemType can take. A token is
// burned, except wrapped SOL, which is closed (the token program refuses to
// burn it); which one applies is checked against the chain at build time.
var actionsByType = map[string][]string{
	"empty_account":       {"close"},
	"token":               {"burn", "close"},
	"nft":                 {"burn"},
	"fungible_asset":      {"burn"},
	"zk_compressed_token": {"burn"},
	"cnft":                {"burn"},
}

var itemTypes = []string{"empty_account", "token", "nft", "fungible_asset", "zk_compressed_token", "cnft"}

var priorityLevels = []string{"none", "low", "medium", "high"}

func validateWalletPath(address string) error {
	if address == "" {
		return invalidf("address", "the wallet address in the path is required")
	}
	if err := auth.ValidateAddress(address); err != nil {
		return invalidf("address", "%s", err.Error())
	}
	return nil
}

func validateBuild(req *reclaimv1.BuildTransactionsRequest) error {
	if err := validateSigner(req.GetAddress()); err != nil {
		return err
	}
	items := req.GetItems()
	if len(items) == 0 {
		return invalidf("items", "at least one item is required")
	}
	if len(items) > maxBuildItems {
		return invalidf("items", "at most %d items per request, got %d: split the selection", maxBuildItems, len(items))
	}
	seen := make(map[string]int, len(items))
	for i, it := range items {
		field := "items[" + itoa(i) + "]"
		actions, ok := actionsByType[it.GetType()]
		if !ok {
			return invalidf(field+".type", "unknown item type %q: want one of %s", it.GetType(), strings.Join(itemTypes, ", "))
		}
		if it.GetAddress() == "" {
			return invalidf(field+".address", "is required")
		}
		if err := auth.ValidateAddress(it.GetAddress()); err != nil {
			return invalidf(field+".address", "%s", err.Error())
		}
		if !slices.Contains(actions, it.GetAction()) {
			return invalidf(field+".action", "action %q is not valid for an item of type %s: want %s", it.GetAction(), it.GetType(), strings.Join(actions, " or "))
		}
		if j, dup := seen[it.GetAddress()]; dup {
			return invalidf(field+".address", "%s is already selected in items[%d]", it.GetAddress(), j)
		}
		seen[it.GetAddress()] = i
	}
	if req.DonationPercentage != nil {
		d := req.GetDonationPercentage()
		if math.IsNaN(d) || d < 0 || d > 1 {
			return invalidf("donationPercentage", "must be from 0 to 1 (0.1 means 10%%), got %v", d)
		}
	}
	if req.PriorityFeeLevel != nil && !slices.Contains(priorityLevels, req.GetPriorityFeeLevel()) {
		return invalidf("priorityFeeLevel", "unknown level %q: want one of %s", req.GetPriorityFeeLevel(), strings.Join(priorityLevels, ", "))
	}
	return nil
}

func validateSubmit(req *reclaimv1.SubmitTransactionsRequest) error {
	if err := validateSigner(req.GetAddress()); err != nil {
		return err
	}
	signed := req.GetSigned()
	if len(signed) == 0 {
		return invalidf("signed", "at least one signed transaction is required")
	}
	if len(signed) > maxSubmitSigned {
		return invalidf("signed", "at most %d signed transactions per request, got %d", maxSubmitSigned, len(signed))
	}
	for i, s := range signed {
		field := "signed[" + itoa(i) + "]"
		if s.GetSubmissionTicket() == "" {
			return invalidf(field+".submissionTicket", "is required: pass back the ticket of the matching built transaction")
		}
		if len(s.GetSubmissionTicket()) > maxTicketLen {
			return invalidf(field+".submissionTicket", "is not a ticket this service issued")
		}
		tx := s.GetTransactionBase64()
		if tx == "" {
			return invalidf(field+".transactionBase64", "is required")
		}
		if len(tx) > maxSignedTxBase64 {
			return invalidf(field+".transactionBase64", "is longer than a Solana transaction can be (1232 bytes)")
		}
		if _, err := base64.StdEncoding.DecodeString(tx); err != nil {
			return invalidf(field+".transactionBase64", "is not valid standard base64")
		}
	}
	return nil
}

// validateSigner checks a path address that must sign the transactions.
func validateSigner(address string) error {
	if address == "" {
		return invalidf("address", "the wallet address in the path is required")
	}
	if err := auth.ValidateWallet(address); err != nil {
		return invalidf("address", "%s", err.Error())
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }
