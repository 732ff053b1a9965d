package assets

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Names shown for wrapped SOL when its mint has no metadata (as on a local
// validator; mainnet's native mint has Metaplex metadata with the same values).
const (
	wrappedSOLName   = "Wrapped SOL"
	wrappedSOLSymbol = "SOL"
)

// mintInfo is a mint's state and its display metadata (nil when it has none).
type mintInfo struct {
	state spltoken.Mint
	meta  *tokenMetadata
	// metaplex is the mint's Metaplex metadata account when it was read (nil
	// when it was not, or the mint has none): what a Token Metadata burn
	// needs of it.
	metaplex *metaplex.MetadataAccount
}

// newItem classifies a token account and fills every field the chain gives.
func newItem(a ownedAccount, m mintInfo) Item {
	st := a.state
	it := Item{
		Address:           a.address,
		Owner:             st.Owner,
		Mint:              st.Mint,
		TokenProgram:      a.program,
		Lamports:          a.lamports,
		Decimals:          m.state.Decimals,
		Amount:            st.Amount,
		UIBalance:         uiAmount(st.Amount, m.state.Decimals),
		IsFrozen:          st.Frozen,
		IsNative:          st.Native,
		WithheldAmount:    st.WithheldAmount,
		HasCloseAuthority: st.ForeignCloseAuthority(),
	}
	it.Type, it.Actions = classify(st, m.state)
	switch {
	case m.meta != nil:
		it.Name, it.Symbol, it.URI = m.meta.name, m.meta.symbol, m.meta.uri
	case st.Native:
		it.Name, it.Symbol = wrappedSOLName, wrappedSOLSymbol
	}
	return it
}

// classify gives an account's type and, of the actions its type can take
// (ActionsFor), those the token program would accept from its owner now: a
// zero balance is empty_account, a non-native balance of a mint with
// decimals 0 and supply 1 is nft, any other balance (wrapped SOL included)
// is token.
func classify(st spltoken.Account, m spltoken.Mint) (ItemType, []Action) {
	t := TypeToken
	switch {
	case st.Amount == 0:
		t = TypeEmptyAccount
	case !st.Native && m.Decimals == 0 && m.Supply == 1:
		t = TypeNFT
	}
	offered := []Action{}
	for _, a := range ActionsFor(t) {
		if accepts(st, a) {
			offered = append(offered, a)
		}
	}
	return t, offered
}

// accepts reports whether the token program would take action a on st from
// its owner. Both SPL Token and Token-2022:
//   - CloseAccount needs a zero balance (native accounts excepted: closing returns
//     their lamports) and the close authority's signature, which is the owner's
//     only when no other close authority is set. It does not look at the frozen
//     state, so an empty frozen account closes.
//   - Burn refuses frozen and native accounts.
//
// A burn is only worth offering when the account can be closed after it (burning
// alone reclaims nothing), so it needs the close authority too. Withheld transfer
// fees block CloseAccount as well, but any signer may harvest them to the mint
// first, so such accounts stay closable.
func accepts(st spltoken.Account, a Action) bool {
	if st.ForeignCloseAuthority() {
		return false
	}
	switch a {
	case ActionClose:
		return st.Amount == 0 || st.Native
	case ActionBurn:
		return st.Amount > 0 && !st.Native && !st.Frozen
	}
	return false
}

// uiAmount is amount in display units, correctly rounded to the nearest float64
// (formatting the decimal string avoids the double rounding of amount / 10^d).
func uiAmount(amount uint64, decimals uint8) float64 {
	s := strconv.FormatUint(amount, 10)
	if d := int(decimals); d > 0 {
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// applyPrices sets USDValue on token items whose mint has a known price. A failing
// price source means no prices: the listing never fails because of it.
func applyPrices(ctx context.Context, src PriceSource, items []Item) {
	if src == nil {
		return
	}
	var mints []string
	seen := map[solana.PublicKey]bool{}
	for _, it := range items {
		if it.Type == TypeToken && !seen[it.Mint] {
			seen[it.Mint] = true
			mints = append(mints, it.Mint.String())
		}
	}
	if len(mints) == 0 {
		return
	}
	prices, err := src.Prices(ctx, mints)
	if err != nil {
		return
	}
	for i := range items {
		if items[i].Type != TypeToken {
			continue
		}
		if p, ok := prices[items[i].Mint.String()]; ok && p >= 0 && !math.IsInf(p, 0) {
			v := items[i].UIBalance * p
			items[i].USDValue = &v
		}
	}
}

// countItems counts items per type, with every type of ItemTypes present.
func countItems(items []Item) map[ItemType]int {
	counts := make(map[ItemType]int, len(itemTypes))
	for _, t := range itemTypes {
		counts[t] = 0
	}
	for _, it := range items {
		counts[it.Type]++
	}
	return counts
}
