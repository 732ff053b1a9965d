package admin

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Clusters the explorer links can point at.
const (
	ClusterMainnet  = "mainnet-beta"
	ClusterDevnet   = "devnet"
	ClusterTestnet  = "testnet"
	ClusterLocalnet = "localnet"
)

// Explorer builds links to the Solana Explorer for a cluster. On localnet
// the explorer reads the cluster at RPCURL (its custom cluster).
type Explorer struct {
	Cluster string
	RPCURL  string
}

// ParseCluster validates a cluster name; "" is localnet.
func ParseCluster(s string) (string, error) {
	switch s {
	case "":
		return ClusterLocalnet, nil
	case ClusterMainnet, ClusterDevnet, ClusterTestnet, ClusterLocalnet:
		return s, nil
	}
	return "", fmt.Errorf("unknown cluster %q: use mainnet-beta, devnet, testnet or localnet", s)
}

func (e Explorer) link(kind, id string) string {
	u := "https://explorer.solana.com/" + kind + "/" + url.PathEscape(id)
	switch e.Cluster {
	case ClusterMainnet:
		return u
	case ClusterDevnet, ClusterTestnet:
		return u + "?cluster=" + e.Cluster
	default:
		return u + "?cluster=custom&customUrl=" + url.QueryEscape(e.RPCURL)
	}
}

// TxURL links a transaction signature.
func (e Explorer) TxURL(sig string) string { return e.link("tx", sig) }

// AddressURL links a wallet.
func (e Explorer) AddressURL(addr string) string { return e.link("address", addr) }

// sol formats lamports as SOL, exactly (9 decimals at most, trailing zeros
// dropped), with thousands separators.
func sol(lamports int64) string {
	sign := ""
	u := uint64(lamports)
	if lamports < 0 {
		sign, u = "-", uint64(-lamports)
	}
	whole, frac := u/1_000_000_000, u%1_000_000_000
	s := sign + group(strconv.FormatUint(whole, 10))
	if frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	return s
}

// count formats an integer with thousands separators.
func count(n int64) string {
	if n < 0 {
		return "-" + group(strconv.FormatInt(-n, 10))
	}
	return group(strconv.FormatInt(n, 10))
}

func group(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func whenPtr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return when(*t)
}

// short abbreviates an address or signature: first and last four.
func short(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:4] + "…" + s[len(s)-4:]
}

var typeLabels = map[string]string{
	"token_account_closure": "Account closure",
	"token_burn":            "Token burn",
	"nft_burn":              "NFT burn",
}

func typeLabel(t string) string {
	if l, ok := typeLabels[t]; ok {
		return l
	}
	return t
}
