package assets

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

func TestAssetsActionsTable(t *testing.T) {
	t.Parallel()
	want := []ItemType{"empty_account", "token", "nft", "fungible_asset", "zk_compressed_token", "cnft",
		"excess_rent", "program_buffer", "nonce_account", "stake_account", "lookup_table", "mint"}
	if got := ItemTypes(); !slices.Equal(got, want) {
		t.Fatalf("ItemTypes = %v, want the contract's %v", got, want)
	}
	for _, typ := range want {
		if !typ.Known() || ActionsFor(typ) == nil {
			t.Errorf("%s has no row", typ)
		}
		for _, a := range []Action{ActionClose, ActionBurn, ActionWithdrawExcess, ActionWithdraw} {
			if ValidAction(typ, a) != slices.Contains(ActionsFor(typ), a) {
				t.Errorf("ValidAction(%s, %s) disagrees with ActionsFor", typ, a)
			}
		}
	}
	if ItemType("nfts").Known() || ActionsFor("nfts") != nil || ValidAction("nfts", ActionBurn) || ValidAction(TypeToken, "swap") {
		t.Error("an unknown type or action accepted")
	}
	// Callers get copies: the table stays as it is.
	ActionsFor(TypeToken)[0] = "swap"
	ItemTypes()[0] = "swap"
	if !ValidAction(TypeToken, ActionBurn) || ItemTypes()[0] != TypeEmptyAccount {
		t.Error("the table changed through a returned slice")
	}
}

// TestAssetsSafeActions: select-all takes each safe type's one action when
// the item offers it, and never a burn nor a token's close.
func TestAssetsSafeActions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		item Item
		want Action
	}{
		{Item{Type: TypeEmptyAccount, Actions: []Action{ActionClose}}, ActionClose},
		{Item{Type: TypeEmptyAccount, HasCloseAuthority: true}, ""}, // another key closes it
		{Item{Type: TypeExcessRent, Actions: []Action{ActionWithdrawExcess}}, ActionWithdrawExcess},
		{Item{Type: TypeProgramBuffer, Actions: []Action{ActionClose}}, ActionClose},
		{Item{Type: TypeNonceAccount, Actions: []Action{ActionClose}}, ActionClose},
		{Item{Type: TypeStakeAccount, Actions: []Action{ActionWithdraw}}, ActionWithdraw},
		{Item{Type: TypeToken, Actions: []Action{ActionBurn}}, ""},
		{Item{Type: TypeToken, IsNative: true, Actions: []Action{ActionClose}}, ""},
		{Item{Type: TypeNFT, Actions: []Action{ActionBurn}}, ""},
		{Item{Type: TypeCNFT, Actions: []Action{ActionBurn}}, ""},
		{Item{Type: TypeFungibleAsset}, ""},
		{Item{Type: TypeZKCompressedToken}, ""},
	} {
		a, ok := tc.item.SafeAction()
		if a != tc.want || ok != (tc.want != "") {
			t.Errorf("%s %+v: SafeAction = %q %v, want %q", tc.item.Type, tc.item.Actions, a, ok, tc.want)
		}
		if ok && (a == ActionBurn || !ValidAction(tc.item.Type, a)) {
			t.Errorf("%s: select-all takes %s", tc.item.Type, a)
		}
	}
	for _, typ := range ItemTypes() {
		a, ok := Item{Type: typ, Actions: ActionsFor(typ)}.SafeAction()
		if ok && a == ActionBurn {
			t.Errorf("%s: select-all burns", typ)
		}
	}
}

// TestAssetsClassifyOffersOnlyTableActions classifies every kind of token
// account: an item's actions are always some of its type's.
func TestAssetsClassifyOffersOnlyTableActions(t *testing.T) {
	t.Parallel()
	owner, other := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	for _, amount := range []uint64{0, 1, 5} {
		for _, native := range []bool{false, true} {
			for _, frozen := range []bool{false, true} {
				for _, closeAuth := range []*solana.PublicKey{nil, &owner, &other} {
					for _, m := range []spltoken.Mint{{Decimals: 0, Supply: 1}, {Decimals: 6, Supply: 9}} {
						st := spltoken.Account{Owner: owner, Amount: amount, Native: native, Frozen: frozen, CloseAuthority: closeAuth}
						typ, actions := classify(st, m)
						for _, a := range actions {
							if !ValidAction(typ, a) {
								t.Errorf("%+v: %s offered for a %s", st, a, typ)
							}
						}
					}
				}
			}
		}
	}
}

// TestAssetsDocsAgreeWithActions reads the decisions (docs/decisions.md and,
// where a row is shortened, its whole text under the same heading in
// docs/decisions/*.md): the build decision of "Validation and limits" must
// state the table, and those on wrapped SOL, fungible assets and
// ZK-compressed tokens must agree with it.
func TestAssetsDocsAgreeWithActions(t *testing.T) {
	t.Parallel()
	rows := decisions(t)

	build := regexp.MustCompile("`action` allowed for the type \\(([^)]*)\\)").FindStringSubmatch(rows["build"])
	if build == nil {
		t.Fatalf("the build row does not state the actions per type: %q", rows["build"])
	}
	stated := map[ItemType][]Action{}
	quoted := regexp.MustCompile("^`([a-z_]+)`$")
	for _, part := range strings.Split(build[1], "; ") {
		typ, acts, _ := strings.Cut(part, ": ")
		m := quoted.FindStringSubmatch(typ)
		if m == nil {
			t.Fatalf("docs: %q in the build row is not \"`type`: actions\"", part)
		}
		list := []Action{}
		if acts != "none" {
			for _, a := range strings.Split(acts, " or ") {
				am := quoted.FindStringSubmatch(a)
				if am == nil {
					t.Fatalf("docs: %q in the build row is not an action", a)
				}
				list = append(list, Action(am[1]))
			}
		}
		stated[ItemType(m[1])] = list
	}
	for _, typ := range ItemTypes() {
		got, ok := stated[typ]
		if !ok {
			t.Errorf("docs: the build row does not name %s", typ)
			continue
		}
		if want := ActionsFor(typ); !slices.Equal(got, want) {
			t.Errorf("docs: %s takes %v, the table %v", typ, got, want)
		}
	}
	if len(stated) != len(ItemTypes()) {
		t.Errorf("docs: the build row names %d types, the table has %d", len(stated), len(ItemTypes()))
	}

	if !strings.Contains(rows["wrapped SOL"], "`close` is valid for `token` selections") || !ValidAction(TypeToken, ActionClose) {
		t.Errorf("docs: the wrapped SOL row and the table disagree on closing a token: %q", rows["wrapped SOL"])
	}
	for row, typ := range map[string]ItemType{"fungible assets": TypeFungibleAsset, "ZK-compressed tokens": TypeZKCompressedToken} {
		if strings.Contains(rows[row], "without actions") != (len(ActionsFor(typ)) == 0) {
			t.Errorf("docs: the %s row and the table (%v) disagree: %q", row, ActionsFor(typ), rows[row])
		}
	}
}

// decisions maps each decision's topic to its text: the row of
// docs/decisions.md, or the paragraph under the topic's heading in a
// docs/decisions/*.md file, which holds the whole text of a shortened row.
func decisions(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../../docs/decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if cells := strings.Split(line, "|"); len(cells) >= 4 && strings.HasPrefix(line, "|") {
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	topics, err := filepath.Glob("../../../docs/decisions/*.md")
	if err != nil || len(topics) == 0 {
		t.Fatalf("docs/decisions/*.md: %v (%d files)", err, len(topics))
	}
	for _, name := range topics {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, section := range strings.Split(string(raw), "\n## ")[1:] {
			heading, body, _ := strings.Cut(section, "\n")
			rows[strings.TrimSpace(heading)] = strings.TrimSpace(body)
		}
	}
	return rows
}
