package admin

import (
	"errors"
	"fmt"
	"net/netip"
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

// Explorer builds links to a block explorer. They never carry the RPC URL:
// an RPC provider's URL holds its API key, and every tenant's console shows
// the links. On mainnet-beta, devnet and testnet they go to the Solana
// Explorer's public cluster; on localnet to its custom cluster at Local
// (the validator the service reaches, when that is on this machine) or
// LocalValidatorURL; with a Template, wherever the operator says (another
// explorer, or a custom cluster at a public URL).
type Explorer struct {
	Cluster string
	// Local is the custom cluster of localnet links ("": LocalValidatorURL).
	Local string
	// Template, when set, is a URL holding {kind} ("tx" or "address") and
	// {id} (RECLAIM_EXPLORER_URL), as in
	// https://explorer.solana.com/{kind}/{id}?cluster=custom&customUrl=https%3A%2F%2Frpc.example.
	Template string
}

// LocalValidatorURL is the custom cluster of localnet links when the
// service reaches its validator elsewhere than on this machine: where the
// compose topology publishes the validator (and `make validator` listens
// by default).
const LocalValidatorURL = "http://127.0.0.1:8899"

// localCluster is the custom cluster for localnet links from the RPC URL
// the service uses: its scheme, host and port alone when its host is a
// loopback address (a validator on this machine, on whatever port it was
// moved to), else "" (LocalValidatorURL: a validator on another host, as
// compose's, is published there). Userinfo, path and query are never kept,
// so a provider's key never reaches a page.
func localCluster(rpcURL string) string {
	u, err := url.Parse(rpcURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	host := u.Hostname()
	ip, err := netip.ParseAddr(host)
	if host != "localhost" && (err != nil || !ip.IsLoopback()) {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
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

// NewExplorer validates a cluster name and a link template ("" for none):
// an absolute http or https URL holding {kind} and {id}. rpcURL is the
// cluster the service uses (SOLANA_RPC_URL): localnet links go to it when
// it is on this machine. The error never quotes the template, which may
// hold a URL the operator keeps private.
func NewExplorer(cluster, template, rpcURL string) (Explorer, error) {
	c, err := ParseCluster(cluster)
	if err != nil {
		return Explorer{}, err
	}
	local := ""
	if c == ClusterLocalnet {
		local = localCluster(rpcURL)
	}
	if template == "" {
		return Explorer{Cluster: c, Local: local}, nil
	}
	u, err := url.Parse(strings.NewReplacer("{kind}", "tx", "{id}", "x").Replace(template))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		!strings.Contains(template, "{kind}") || !strings.Contains(template, "{id}") {
		return Explorer{}, errors.New("RECLAIM_EXPLORER_URL: want an http or https URL holding {kind} and {id}, as https://explorer.solana.com/{kind}/{id}?cluster=devnet")
	}
	return Explorer{Cluster: c, Local: local, Template: template}, nil
}

func (e Explorer) link(kind, id string) string {
	if e.Template != "" {
		return strings.NewReplacer("{kind}", kind, "{id}", url.PathEscape(id)).Replace(e.Template)
	}
	u := "https://explorer.solana.com/" + kind + "/" + url.PathEscape(id)
	switch e.Cluster {
	case ClusterMainnet:
		return u
	case ClusterDevnet, ClusterTestnet:
		return u + "?cluster=" + e.Cluster
	default:
		local := e.Local
		if local == "" {
			local = LocalValidatorURL
		}
		return u + "?cluster=custom&customUrl=" + url.QueryEscape(local)
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
	u := uint64(lamports) //nolint:gosec // G115: read only when lamports >= 0; a negative one is negated below (two's complement: -math.MinInt64 as uint64 is its magnitude)
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
	"token_account_closure":    "Account closure",
	"token_burn":               "Token burn",
	"nft_burn":                 "NFT burn",
	"excess_rent_withdrawal":   "Excess rent withdrawal",
	"program_buffer_closure":   "Program buffer closure",
	"nonce_account_closure":    "Nonce account closure",
	"stake_account_withdrawal": "Stake withdrawal",
	"lookup_table_reclaim":     "Lookup table reclaim",
}

func typeLabel(t string) string {
	if l, ok := typeLabels[t]; ok {
		return l
	}
	return t
}

// rate is a requests-per-second figure: whole when it is, else to two
// decimals.
func rate(rps float64) string {
	return strconv.FormatFloat(rps, 'f', -1, 64)
}

// quotaSource says where a project's quota comes from.
func quotaSource(q QuotaReport) string {
	if q.Own {
		return "set for this project by the operator"
	}
	return "the deployment's default"
}
