package assets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Discovery order. List and Stream give the items of a wallet in one order,
// which lets Stream send its first chunk long before the wallet is read
// whole: first the SPL Token and Token-2022 accounts by address (known after
// the two getTokenAccountsByOwner calls, before any mint is read), then, by
// address, the items of the Sources and those the cluster's reads found
// (cluster.go: the excess rent of token accounts and mints, program
// buffers, nonce and stake accounts). Type does not order items: an
// account's type is known only once its mint is read.

// StreamPage is how many token accounts Stream classifies in one step: their
// mints and metadata PDAs fill one getMultipleAccounts call of 100 keys.
const StreamPage = maxKeysPerCall / 2

// streamPagesAhead bounds the pages read ahead of what emit has taken, so a
// slow consumer holds back the cluster reads instead of piling up items.
// Their reads go out together, within the request's rpclimit.Limit.
const streamPagesAhead = 8

// Chunk sizes of Stream.
const (
	DefaultChunkSize = 50
	MaxChunkSize     = 500
)

// StreamOptions tune Stream.
type StreamOptions struct {
	// ChunkSize is the most items per emit (DefaultChunkSize when 0), and
	// per call of Early.
	ChunkSize int
	// StepTimeout bounds each step of discovery: the token accounts, each page,
	// each Source. Zero: only ctx bounds them.
	StepTimeout time.Duration
	// Early, when set, takes the early items (earlyOf) of the wallet's
	// token accounts, in discovery order and in chunks of ChunkSize, as
	// soon as the token accounts are read: before the first emit, while
	// the mints and metadata are read. Like emit it runs on the caller's
	// goroutine, and an error from it stops discovery.
	Early func(items []Item) error
}

// Stream discovers wallet's items in the order of List and hands them to emit
// in chunks of opts.ChunkSize as they are classified; the last chunk (and
// only it) has last set. A wallet without items gives one empty last chunk.
// Concatenated, the chunks are List's items. With opts.Early, the empty
// accounts go there first, one round trip after the stream starts, while
// the mints and metadata are read.
//
// emit runs on the caller's goroutine, one chunk at a time; an error from
// emit stops discovery (in-flight reads are cancelled) and is returned as is.
func (d *Discoverer) Stream(ctx context.Context, wallet solana.PublicKey, opts StreamOptions, emit func(chunk []Item, last bool) error) error {
	size := opts.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	if size < 1 || size > MaxChunkSize {
		return fmt.Errorf("chunk size %d out of 1..%d", size, MaxChunkSize)
	}
	c := &chunker{size: size, emit: emit}
	var early func([]ownedAccount) error
	if opts.Early != nil {
		early = func(owned []ownedAccount) error { return sendEarly(owned, size, opts.Early) }
	}
	_, err := d.discover(ctx, wallet, StreamPage, opts.StepTimeout, c.add, early)
	return err
}

// earlyOf is the early item of token account a, if it has one: an empty
// token account (type empty_account), whose type, lamports (what closing
// it returns), actions and every field of the account are known from
// getTokenAccountsByOwner alone. Only its mint's metadata is not: an early
// item has the Name, Symbol, URI and ImageURI of a mint without metadata
// ("Wrapped SOL" for wrapped SOL, "" otherwise), Decimals 0 and Rent 0
// (the Rent sysvar comes with the state), until the item itself comes in a
// chunk.
func earlyOf(a ownedAccount) (Item, bool) {
	if a.state.Amount != 0 {
		return Item{}, false
	}
	return newItem(a, mintInfo{}), true
}

// sendEarly hands the early items of owned to early, size at a time.
func sendEarly(owned []ownedAccount, size int, early func([]Item) error) error {
	var chunk []Item
	for _, a := range owned {
		if it, ok := earlyOf(a); ok {
			chunk = append(chunk, it)
		}
		if len(chunk) == size {
			if err := early(chunk); err != nil {
				return err
			}
			chunk = nil
		}
	}
	if len(chunk) > 0 {
		return early(chunk)
	}
	return nil
}

// chunker cuts discovered items into chunks. It holds a full chunk back until
// it knows another item follows, so that the last chunk is never empty
// (unless the wallet is).
type chunker struct {
	size    int
	emit    func([]Item, bool) error
	buf     []Item
	emitted bool
}

// add takes the next items; more says that at least one more item follows,
// final that none does.
func (c *chunker) add(items []Item, more, final bool) error {
	c.buf = append(c.buf, items...)
	for len(c.buf) > c.size || len(c.buf) == c.size && more {
		if err := c.flush(c.size, false); err != nil {
			return err
		}
	}
	if !final {
		return nil
	}
	for len(c.buf) > c.size {
		if err := c.flush(c.size, false); err != nil {
			return err
		}
	}
	if len(c.buf) > 0 || !c.emitted {
		return c.flush(len(c.buf), true)
	}
	return nil
}

func (c *chunker) flush(n int, last bool) error {
	chunk := slices.Clone(c.buf[:n])
	c.buf = append(c.buf[:0], c.buf[n:]...)
	c.emitted = true
	return c.emit(chunk, last)
}

// sink takes discovered items in order: more is true when at least one more
// item certainly follows, final on the last call.
type sink func(items []Item, more, final bool) error

// discover reads wallet's token accounts, then classifies them pageSize at a
// time (all at once when pageSize is 0), reading up to streamPagesAhead pages
// in parallel but handing them to out in order; the Sources and the
// cluster's reads (cluster.go) run meanwhile, and their items follow with
// the token accounts' excess rent, by address. early, when set, gets the
// token accounts (sorted) once the pages' reads are under way, before out
// gets anything. It returns how many items were token accounts.
func (d *Discoverer) discover(ctx context.Context, wallet solana.PublicKey, pageSize int, step time.Duration, out sink, early func([]ownedAccount) error) (int, error) {
	ctx, cancel := context.WithCancel(rpclimit.Ensure(ctx))
	// The token accounts' reads go out first: the first chunk waits for them.
	ownedRead := d.startOwned(ctx, wallet, step)
	sources := d.startSources(ctx, wallet, step)
	cluster := d.startCluster(ctx, wallet, step)
	var pages <-chan pageResult
	defer func() {
		// Nothing outlives the call: reads in flight see the cancellation.
		cancel()
		sources.wait()
		cluster.wait()
		if pages != nil {
			for range pages {
			}
		}
	}()

	owned, err := ownedRead() // sorted by address
	if err != nil {
		return 0, err
	}
	if pageSize <= 0 {
		pageSize = max(len(owned), 1)
	}
	pages = d.readPages(ctx, owned, pageSize, step)
	if early != nil {
		if err := early(owned); err != nil {
			return 0, err
		}
	}
	var excess []Item
	done := 0
	for res := range pages {
		if res.err != nil {
			return 0, res.err
		}
		st, err := cluster.state.wait(ctx)
		if err != nil {
			return 0, err
		}
		withRent(res.items, owned[done:done+len(res.items)], st.rentSysvar())
		excess = append(excess, excessPage(owned[done:done+len(res.items)], res.items, st)...)
		done += len(res.items)
		if err := out(res.items, done < len(owned), false); err != nil {
			return 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	more, err := sources.items(ctx)
	if err != nil {
		return 0, err
	}
	others, err := cluster.items.wait(ctx)
	if err != nil {
		return 0, err
	}
	more = append(append(more, others...), excess...)
	sortByAddress(more, func(it Item) string { return it.Address.String() })
	return len(owned), out(more, false, true)
}

type pageResult struct {
	items []Item
	err   error
}

// readPages classifies owned page by page and yields the pages in order on
// the returned channel, which is closed after the last page, the first error,
// or ctx's end. A page is read only when fewer than streamPagesAhead pages
// are in flight or waiting to be taken.
func (d *Discoverer) readPages(ctx context.Context, owned []ownedAccount, pageSize int, step time.Duration) <-chan pageResult {
	out := make(chan pageResult)
	go func() {
		defer close(out)
		var pending []chan pageResult
		next := 0
		for next < len(owned) || len(pending) > 0 {
			if ctx.Err() != nil {
				for _, ch := range pending {
					<-ch // the reads see ctx's end and return
				}
				return
			}
			for next < len(owned) && len(pending) < streamPagesAhead {
				first := next == 0
				page := owned[next:min(next+pageSize, len(owned))]
				next += len(page)
				ch := make(chan pageResult, 1)
				pending = append(pending, ch)
				pctx, out, done := rpclimit.Started(ctx)
				go func() {
					defer done()
					var res pageResult
					res.err = within(pctx, step, func(ctx context.Context) (err error) {
						res.items, err = d.page(ctx, page)
						return err
					})
					ch <- res
				}()
				if first {
					// The first page's read goes out before those read
					// ahead with it: a provider that answers in the order
					// requests come (the local validator answers one at a
					// time) answers it first, and the first chunk does not
					// wait behind the other pages.
					<-out
				}
			}
			var res pageResult
			select {
			case res = <-pending[0]:
			case <-ctx.Done():
				for _, ch := range pending {
					<-ch
				}
				return
			}
			pending = pending[1:]
			select {
			case out <- res:
			case <-ctx.Done():
				for _, ch := range pending {
					<-ch
				}
				return
			}
			if res.err != nil {
				for _, ch := range pending {
					<-ch
				}
				return
			}
		}
	}()
	return out
}

// page classifies token accounts: their mints and metadata, then the
// collections of their NFTs (one more cluster read), their prices and their
// images, the three at once: prices and images work on copies of the items
// and only their own fields come back.
func (d *Discoverer) page(ctx context.Context, owned []ownedAccount) ([]Item, error) {
	mints, err := d.mints(ctx, owned, true)
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(owned))
	for i, a := range owned {
		items[i] = newItem(a, mints[a.state.Mint])
	}
	priced, imaged := slices.Clone(items), slices.Clone(items)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		applyPrices(ctx, d.prices, priced)
	}()
	go func() {
		defer wg.Done()
		if d.images != nil {
			d.images.Fill(ctx, imaged)
		}
	}()
	err = d.nameCollections(ctx, items, mints)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for i := range items {
		items[i].USDValue, items[i].ImageURI = priced[i].USDValue, imaged[i].ImageURI
	}
	return items, nil
}

// sourceRun is the Sources listing in the background.
type sourceRun struct {
	done  chan struct{}
	wg    sync.WaitGroup
	names []string
	lists [][]Item
	errs  []error
}

func (d *Discoverer) startSources(ctx context.Context, wallet solana.PublicKey, step time.Duration) *sourceRun {
	r := &sourceRun{done: make(chan struct{}), names: make([]string, len(d.sources)),
		lists: make([][]Item, len(d.sources)), errs: make([]error, len(d.sources))}
	for i, src := range d.sources {
		r.names[i] = src.Name()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.errs[i] = within(ctx, step, func(ctx context.Context) (err error) {
				r.lists[i], err = src.Items(ctx, wallet)
				return err
			})
		}()
	}
	go func() { r.wg.Wait(); close(r.done) }()
	return r
}

func (r *sourceRun) wait() { <-r.done }

// items waits for every Source and returns their items by address; the
// first failing Source (in the Discoverer's order) fails them all.
func (r *sourceRun) items(ctx context.Context) ([]Item, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var all []Item
	for i, list := range r.lists {
		if r.errs[i] != nil {
			return nil, fmt.Errorf("list %s items: %w", r.names[i], r.errs[i])
		}
		all = append(all, list...)
	}
	sortByAddress(all, func(it Item) string { return it.Address.String() })
	return all, nil
}

// sortByAddress sorts s stably by the base58 form of each element's address
// (key), the order of the contract. Each key is taken once (base58 costs
// about two microseconds, a comparison sort would pay it 2 n log n times),
// and the sort moves indices, not elements.
func sortByAddress[T any](s []T, key func(T) string) {
	type keyed struct {
		key string
		i   int
	}
	ks := make([]keyed, len(s))
	for i, v := range s {
		ks[i] = keyed{key(v), i}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.i, b.i)) })
	sorted := make([]T, len(s))
	for j, k := range ks {
		sorted[j] = s[k.i]
	}
	copy(s, sorted)
}

// within runs f under a deadline of step (none when step is 0). A deadline
// of its own is reported as such, not as the parent's cancellation.
func within(ctx context.Context, step time.Duration, f func(context.Context) error) error {
	if step <= 0 {
		return f(ctx)
	}
	sctx, cancel := context.WithTimeoutCause(ctx, step, errStepTimeout)
	defer cancel()
	err := f(sctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errStepTimeout) {
		return fmt.Errorf("%w (%s): %w", errStepTimeout, step, err)
	}
	return err
}

var errStepTimeout = errors.New("cluster step timed out")
