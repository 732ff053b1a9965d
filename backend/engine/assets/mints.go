package assets

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// mints reads the distinct mints of owned, and with withMetadata their Metaplex
// metadata PDAs in the same chunked reads, each chunk read as soon as its
// PDAs are derived. A mint that no longer exists (Token-2022 mints with a
// close authority can be closed once their supply is zero) reads as the zero
// spltoken.Mint: its accounts are empty and close.
//
// With metadata (a listing), a mint is read only when an item needs it: an
// account with a balance (its decimals, supply and state classify it), or
// any account of Token-2022 (its mint may hold the metadata extension). An
// empty SPL Token account needs only its mint's PDA: its item shows no
// decimals, and a mint of SPL Token has no metadata of its own. Its mint
// stays unread: the zero spltoken.Mint, so its item's Decimals is 0.
func (d *Discoverer) mints(ctx context.Context, owned []ownedAccount, withMetadata bool) (map[solana.PublicKey]mintInfo, error) {
	var mints []solana.PublicKey
	index := map[solana.PublicKey]int{}
	var need []bool // of mints: its account is read
	for _, a := range owned {
		i, ok := index[a.state.Mint]
		if !ok {
			i = len(mints)
			index[a.state.Mint] = i
			mints = append(mints, a.state.Mint)
			need = append(need, !withMetadata)
		}
		need[i] = need[i] || a.state.Amount > 0 || !a.program.Equals(solana.TokenProgramID)
	}
	var mintAccs, pdaAccs []*rpc.Account
	var err error
	if withMetadata {
		mintAccs, pdaAccs, err = d.mintsAndMetadata(ctx, mints, need)
	} else {
		mintAccs, err = d.accounts(ctx, mints)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[solana.PublicKey]mintInfo, len(mints))
	for i, mint := range mints {
		var mi mintInfo
		if a := mintAccs[i]; a != nil && spltoken.IsProgram(a.Owner) {
			mi.state, _ = spltoken.ParseMint(data(a))
			mi.meta = displayMetadata(mi.state.Metadata)
		}
		if withMetadata {
			if mp := metaplex.ReadMetadataAccount(pdaAccs[i], mint); mp != nil {
				mi.meta = metaplexDisplay(mp.Metadata)
				mi.metaplex = mp
			}
		}
		out[mint] = mi
	}
	return out, nil
}

// mintsAndMetadata reads the mints whose need is set and the metadata PDAs
// of all mints, in calls of up to maxKeysPerCall keys, issuing each call
// before deriving the next one's PDAs; the results are aligned with mints
// (nil for a mint not read).
func (d *Discoverer) mintsAndMetadata(ctx context.Context, mints []solana.PublicKey, need []bool) (mintAccs, pdaAccs []*rpc.Account, err error) {
	n := len(mints)
	for _, nd := range need {
		n += b2i(nd)
	}
	r := d.reader(ctx, n)
	mintAt, pdaAt := make([]int, len(mints)), make([]int, len(mints))
	start, keys := 0, make([]solana.PublicKey, 0, maxKeysPerCall)
	flush := func() {
		r.read(start, keys)
		start += len(keys)
		keys = make([]solana.PublicKey, 0, maxKeysPerCall)
	}
	pdas, ready := metadataAddresses(mints)
	for i, m := range mints {
		if i%pdaBlock == 0 {
			<-ready[i/pdaBlock]
		}
		if k := 1 + b2i(need[i]); len(keys)+k > maxKeysPerCall {
			flush()
		}
		mintAt[i] = -1
		if need[i] {
			mintAt[i] = start + len(keys)
			keys = append(keys, m)
		}
		pdaAt[i] = start + len(keys)
		keys = append(keys, pdas[i])
	}
	if len(keys) > 0 {
		flush()
	}
	accs, err := r.wait()
	if err != nil {
		return nil, nil, err
	}
	mintAccs, pdaAccs = make([]*rpc.Account, len(mints)), make([]*rpc.Account, len(mints))
	for i := range mints {
		if mintAt[i] >= 0 {
			mintAccs[i] = accs[mintAt[i]]
		}
		pdaAccs[i] = accs[pdaAt[i]]
	}
	return mintAccs, pdaAccs, nil
}

// pdaBlock is how many metadata addresses one worker derives at a time.
const pdaBlock = 50

// metadataAddresses finds the Metaplex metadata PDA of each mint: from
// pdaCache, or derived (about 10 us each: 100 ms for a wallet of 10,000
// mints never seen) on every processor, in blocks of pdaBlock taken in
// order: ready[b] is closed once block b's are in pdas, so that the caller
// sends the first calls while the later PDAs are derived. The workers end
// once every block is done.
func metadataAddresses(mints []solana.PublicKey) (pdas []solana.PublicKey, ready []chan struct{}) {
	pdas = make([]solana.PublicKey, len(mints))
	ready = make([]chan struct{}, (len(mints)+pdaBlock-1)/pdaBlock)
	for b := range ready {
		ready[b] = make(chan struct{})
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(ready)) {
		go func() {
			for b := int(next.Add(1) - 1); b < len(ready); b = int(next.Add(1) - 1) {
				from, to := b*pdaBlock, min((b+1)*pdaBlock, len(mints))
				missing := pdaCache.get(mints[from:to], pdas[from:to])
				for _, i := range missing {
					pdas[from+i] = metaplex.MetadataAddress(mints[from+i])
				}
				pdaCache.put(mints[from:to], pdas[from:to], missing)
				close(ready[b])
			}
		}()
	}
	return pdas, ready
}

// pdaCache remembers the metadata PDAs of the mints the process saw last:
// a PDA never changes, and the same mints come back (a wallet listed again,
// then streamed or summarized; the tokens and spam that many wallets hold).
var pdaCache = &addressCache{size: pdaCacheSize}

// pdaCacheSize is a generation of pdaCache: it holds at most twice this
// (about 65,000 addresses, 7 MB).
const pdaCacheSize = 1 << 15

// addressCache maps keys to addresses in two generations: when the current
// one is full it becomes the previous, and the previous is dropped. A key
// found in the previous one is kept in the current.
type addressCache struct {
	mu        sync.Mutex
	size      int
	cur, prev map[solana.PublicKey]solana.PublicKey
}

// get fills out[i] for each key it holds and returns the indexes of those
// it does not.
func (c *addressCache) get(keys, out []solana.PublicKey) (missing []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range keys {
		if v, ok := c.cur[k]; ok {
			out[i] = v
			continue
		}
		if v, ok := c.prev[k]; ok {
			out[i] = v
			c.store(k, v)
			continue
		}
		missing = append(missing, i)
	}
	return missing
}

// put remembers keys[i] -> values[i] for each i of idx.
func (c *addressCache) put(keys, values []solana.PublicKey, idx []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range idx {
		c.store(keys[i], values[i])
	}
}

func (c *addressCache) store(k, v solana.PublicKey) {
	if c.cur == nil || len(c.cur) >= c.size {
		c.prev, c.cur = c.cur, make(map[solana.PublicKey]solana.PublicKey, c.size)
	}
	c.cur[k] = v
}

// metaplexOf is the display metadata of mint from its Metaplex metadata
// account a; nil unless the Token Metadata program owns it and it is mint's.
func metaplexOf(a *rpc.Account, mint solana.PublicKey) *tokenMetadata {
	mp := metaplex.ReadMetadataAccount(a, mint)
	if mp == nil {
		return nil
	}
	return metaplexDisplay(mp.Metadata)
}

// nameCollections sets Collection on NFT items whose Metaplex metadata names a
// verified collection, and prepares the Token Metadata burn of Metaplex NFTs
// (metaplex.go): the collections' metadata, the NFTs' editions and token
// records and the Rent sysvar come in one more chunked read (print editions
// need one more for their masters). A collection without readable metadata
// keeps an empty name.
func (d *Discoverer) nameCollections(ctx context.Context, items []Item, mints map[solana.PublicKey]mintInfo) error {
	var cols []solana.PublicKey
	seen := map[solana.PublicKey]bool{}
	for _, it := range items {
		md := mints[it.Mint].meta
		if it.Type != TypeNFT || md == nil || md.collection == nil || seen[*md.collection] {
			continue
		}
		seen[*md.collection] = true
		cols = append(cols, *md.collection)
	}
	plan, at := planMetaplex(items, mints, true)
	if len(cols) == 0 && len(plan.Keys) == 0 {
		return nil
	}
	keys := make([]solana.PublicKey, len(cols), len(cols)+len(plan.Keys))
	for i, c := range cols {
		keys[i] = metaplex.MetadataAddress(c)
	}
	accs, err := d.accounts(ctx, append(keys, plan.Keys...))
	if err != nil {
		return err
	}
	names := make(map[solana.PublicKey]string, len(cols))
	for i, c := range cols {
		if md := metaplexOf(accs[i], c); md != nil {
			names[c] = md.name
		}
	}
	for i := range items {
		md := mints[items[i].Mint].meta
		if items[i].Type == TypeNFT && md != nil && md.collection != nil {
			c := *md.collection
			items[i].Collection = &Collection{Address: c.String(), Name: names[c]}
		}
	}
	return d.applyBurns(ctx, plan, at, accs[len(cols):], items)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
