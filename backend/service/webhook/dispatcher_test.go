package webhook_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	service "github.com/reclaim-sol/reclaim/backend/service/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	"github.com/reclaim-sol/reclaim/backend/upstream/receiver"
)

// hook is a receiver that records what it gets and answers from a script
// (its last answer then on).
type hook struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []received
	answers []int
	// hold, when set, keeps every request until it is closed.
	hold chan struct{}
	// held receives a value when a request starts waiting on hold.
	held chan struct{}
}

type received struct {
	headers map[string]string
	body    []byte
}

func newHook(t *testing.T, answers ...int) *hook {
	h := &hook{answers: answers}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if h.hold != nil {
			h.held <- struct{}{}
			<-h.hold
		}
		h.mu.Lock()
		h.got = append(h.got, received{headers: map[string]string{
			webhook.HeaderID: r.Header.Get(webhook.HeaderID), webhook.HeaderTimestamp: r.Header.Get(webhook.HeaderTimestamp),
			webhook.HeaderSignature: r.Header.Get(webhook.HeaderSignature),
		}, body: body})
		status := 200
		if n := len(h.got); len(h.answers) > 0 {
			status = h.answers[min(n, len(h.answers))-1]
		}
		h.mu.Unlock()
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"answer":%d}`, status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

type env struct {
	store *storagetest.Store
	svc   *service.Service
	proj  project.Project
}

func newEnv(t *testing.T, s *storagetest.Store, now func() time.Time) env {
	ctx := ctxT(t)
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.NewService(s, s, service.Options{Box: newBox(t), Insecure: true, Now: now})
	return env{store: s, svc: svc, proj: p}
}

func (e env) dispatcher(now func() time.Time, timeout time.Duration) *service.Dispatcher {
	d := service.NewDispatcher(e.store, receiver.New(receiver.Options{AllowPrivate: true, Timeout: timeout}), e.svc, nil,
		slog.New(slog.DiscardHandler), now)
	d.Timeout = timeout
	return d
}

// settle claims, submits and confirms (or fails) an entry of the env's
// project for wallet at at: a status change that writes the outbox.
func (e env) settle(t *testing.T, jti, wallet string, status ledger.Status, at time.Time) {
	t.Helper()
	ctx := ctxT(t)
	entry := ledger.Entry{
		ProjectID: e.proj.ID, Payer: wallet, Type: ledger.TypeTokenAccountClosure, GrossRebate: 2_039_280,
		NetRebate: 2_034_280, NetworkFee: 5000, Fees: 5000, ItemCount: 1, Signature: "sig-" + jti, TicketJTI: jti,
		CreatedAt: at, LastValidBlockHeight: 100,
	}
	if err := e.store.ClaimTicket(ctx, entry); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.MarkSubmitted(ctx, jti); err != nil {
		t.Fatal(err)
	}
	var ok bool
	var err error
	if status == ledger.StatusConfirmed {
		ok, err = e.store.ConfirmEntry(ctx, jti, entry.Figures(), 0, at)
	} else {
		ok, err = e.store.SetEntryStatus(ctx, jti, status, "InstructionError", at)
	}
	if err != nil || !ok {
		t.Fatalf("settle %s: %v %v", jti, ok, err)
	}
}

// A receiver that answers 500 twice then 200 gets the event three times,
// the same id each time, each attempt signed for its own time, the first
// retry after about 5 s, the second after about 30 s.
func TestDispatcherRetriesUntilDelivered(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		t0 := time.Date(2026, 5, 21, 10, 0, 0, 0, time.UTC)
		clk := clocktest.New(t0)
		e := newEnv(t, s, clk.Now)
		h := newHook(t, 500, 500, 200)
		ctx := ctxT(t)
		ep, secret, err := e.svc.Add(ctx, e.proj.ID, h.srv.URL+"/hook", []string{webhook.TypeSubmissionConfirmed})
		if err != nil {
			t.Fatal(err)
		}
		e.settle(t, "j1", "W1", ledger.StatusConfirmed, t0)
		d := e.dispatcher(clk.Now, 2*time.Second)
		pass := func(at time.Duration, wantLeased int) {
			t.Helper()
			clk.Set(t0.Add(at))
			n, err := d.Pass(ctx)
			if err != nil || n != wantLeased {
				t.Fatalf("pass at +%s: leased %d, %v; want %d", at, n, err, wantLeased)
			}
		}
		pass(0, 1)              // 500
		pass(3*time.Second, 0)  // not due before 4 s
		pass(6*time.Second, 1)  // 500
		pass(30*time.Second, 0) // not due before 6 + 24 s
		pass(42*time.Second, 1) // 200
		pass(time.Hour, 0)      // delivered: never again
		got := h.requests()
		if len(got) != 3 {
			t.Fatalf("%d requests", len(got))
		}
		for i, r := range got {
			at := t0.Add([]time.Duration{0, 6 * time.Second, 42 * time.Second}[i])
			if r.headers[webhook.HeaderID] != got[0].headers[webhook.HeaderID] || !strings.HasPrefix(r.headers[webhook.HeaderID], "msg_") {
				t.Errorf("attempt %d: id %q", i, r.headers[webhook.HeaderID])
			}
			if !webhook.Verify(secret, r.headers, r.body, at, 5*time.Minute) {
				t.Errorf("attempt %d: signature does not verify: %v", i, r.headers)
			}
			if !strings.Contains(string(r.body), `"type":"submission.confirmed"`) || !strings.Contains(string(r.body), `"walletAddress":"W1"`) {
				t.Errorf("attempt %d: body %s", i, r.body)
			}
		}
		list, _ := e.svc.Deliveries(ctx, e.proj.ID, ep.ID, 10)
		if len(list) != 1 || list[0].State != webhook.StateDelivered || list[0].Attempts != 3 || list[0].Last.Status != 200 ||
			list[0].Last.Response != `{"answer":200}` || list[0].DeliveredAt == nil {
			t.Fatalf("delivery %+v", list)
		}
	})
}

// Two instances draining one outbox deliver each event once.
func TestDispatchersShareTheOutbox(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		e := newEnv(t, s, time.Now)
		h := newHook(t)
		ctx := ctxT(t)
		if _, _, err := e.svc.Add(ctx, e.proj.ID, h.srv.URL, nil); err != nil {
			t.Fatal(err)
		}
		const n = 60
		for i := range n {
			e.settle(t, fmt.Sprint("j", i), fmt.Sprint("W", i%7), ledger.StatusConfirmed, time.Now())
		}
		var wg sync.WaitGroup
		for range 2 {
			d := e.dispatcher(time.Now, 5*time.Second)
			d.Batch = 8
			wg.Go(func() {
				if err := d.Drain(ctx, ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		seen := map[string]int{}
		for _, r := range h.requests() {
			seen[r.headers[webhook.HeaderID]]++
		}
		if len(seen) != n {
			t.Fatalf("%d events delivered of %d", len(seen), n)
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%s delivered %d times", id, c)
			}
		}
	})
}

// An instance that died holding deliveries (its lease never released)
// loses nothing: once the lease ends, another delivers them.
func TestDispatcherAfterAnInstanceDied(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		t0 := time.Date(2026, 5, 21, 10, 0, 0, 0, time.UTC)
		clk := clocktest.New(t0)
		e := newEnv(t, s, clk.Now)
		h := newHook(t)
		ctx := ctxT(t)
		if _, _, err := e.svc.Add(ctx, e.proj.ID, h.srv.URL, nil); err != nil {
			t.Fatal(err)
		}
		e.settle(t, "j1", "W1", ledger.StatusFailed, t0)
		d := e.dispatcher(clk.Now, 2*time.Second)
		if got, _ := s.LeaseWebhookDeliveries(ctx, "dead-instance", webhook.Share{Limit: 10, PerEndpoint: 2, PerProject: 8, Run: 10}, t0, t0.Add(d.Lease)); len(got) != 1 {
			t.Fatal("the dead instance leased nothing")
		}
		clk.Set(t0.Add(d.Lease - time.Millisecond))
		if n, _ := d.Pass(ctx); n != 0 || len(h.requests()) != 0 {
			t.Fatal("delivered under another's lease")
		}
		clk.Set(t0.Add(d.Lease))
		if n, err := d.Pass(ctx); n != 1 || err != nil || len(h.requests()) != 1 {
			t.Fatalf("after the lease: %d, %v, %d requests", n, err, len(h.requests()))
		}
		if !strings.Contains(string(h.requests()[0].body), `"code":"TRANSACTION_FAILED"`) {
			t.Errorf("body %s", h.requests()[0].body)
		}
	})
}

// A receiver that never answers costs its attempt's timeout and nothing
// else: the status changes go on while it hangs, and the other endpoint's
// event is delivered in the same pass.
func TestSlowReceiverSlowsNothingElse(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		e := newEnv(t, s, time.Now)
		slow, fast := newHook(t), newHook(t)
		slow.hold, slow.held = make(chan struct{}), make(chan struct{}, 1)
		ctx := ctxT(t)
		se, _, _ := e.svc.Add(ctx, e.proj.ID, slow.srv.URL, nil)
		if _, _, err := e.svc.Add(ctx, e.proj.ID, fast.srv.URL, nil); err != nil {
			t.Fatal(err)
		}
		e.settle(t, "j1", "W1", ledger.StatusConfirmed, time.Now())
		d := e.dispatcher(time.Now, 300*time.Millisecond)
		done := make(chan error)
		go func() {
			_, err := d.Pass(ctx)
			done <- err
		}()
		<-slow.held // the slow receiver holds its attempt
		// Meanwhile the tracker settles more, unhindered.
		e.settle(t, "j2", "W2", ledger.StatusExpired, time.Now())
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		close(slow.hold)
		list, _ := e.svc.Deliveries(ctx, e.proj.ID, se.ID, 10)
		var first webhook.Delivery
		for _, x := range list {
			if x.Signature == "sig-j1" {
				first = x
			}
		}
		if first.State != webhook.StatePending || first.Last.Error != "no answer within 300ms" || len(fast.requests()) < 1 {
			t.Fatalf("slow delivery %+v; fast got %d", first, len(fast.requests()))
		}
	})
}

// A redirect is an answer that failed, and a test event is tried once.
func TestDispatcherRedirectAndTest(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		e := newEnv(t, s, time.Now)
		inside := newHook(t)
		redirect := httptest.NewServer(http.RedirectHandler(inside.srv.URL+"/internal", http.StatusFound))
		t.Cleanup(redirect.Close)
		ctx := ctxT(t)
		ep, _, err := e.svc.Add(ctx, e.proj.ID, redirect.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.SendTest(ctx, e.proj.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		d := e.dispatcher(time.Now, 2*time.Second)
		if n, err := d.Pass(ctx); n != 1 || err != nil {
			t.Fatal(n, err)
		}
		list, _ := e.svc.Deliveries(ctx, e.proj.ID, ep.ID, 10)
		if len(list) != 1 || list[0].State != webhook.StateFailed || list[0].Last.Status != http.StatusFound ||
			!strings.Contains(list[0].Last.Error, "redirect to http://127.0.0.1") || len(inside.requests()) != 0 {
			t.Fatalf("delivery %+v; followed %d", list, len(inside.requests()))
		}
		got, _ := e.svc.Endpoint(ctx, e.proj.ID, ep.ID)
		if got.Failures != 0 {
			t.Errorf("a test's failure counted: %d", got.Failures)
		}
	})
}

// DNS rebinding: a name that resolved to a public address when the
// endpoint was added and to loopback when the event is sent is refused at
// dial time; the receiver behind it sees nothing, and the delivery says
// why.
func TestDNSRebindingRefusedAtDial(t *testing.T) {
	t.Parallel()
	s := storagetest.SQLite(t)
	ctx := ctxT(t)
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	inside := newHook(t)
	port := inside.srv.Listener.Addr().(*net.TCPAddr).Port
	// At add time "localhost" is public (the attacker's DNS answer).
	svc := service.NewService(s, s, service.Options{Box: newBox(t), Resolver: resolver{"localhost": {"93.184.216.34"}}, Now: time.Now})
	ep, _, err := svc.Add(ctx, p.ID, "https://localhost:"+strconv.Itoa(port)+"/hook", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := env{store: s, svc: svc, proj: p}
	e.settle(t, "j1", "W1", ledger.StatusConfirmed, time.Now())
	// At send time the system resolver says loopback: the dialer refuses it.
	d := service.NewDispatcher(s, receiver.New(receiver.Options{Timeout: 2 * time.Second}), svc, nil, slog.New(slog.DiscardHandler), time.Now)
	if _, err := d.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := svc.Deliveries(ctx, p.ID, ep.ID, 10)
	if err != nil || len(list) != 1 || list[0].State != webhook.StatePending || !strings.Contains(list[0].Last.Error, "private or reserved") {
		t.Fatalf("deliveries %+v, %v: want one refused at dial", list, err)
	}
	if n := len(inside.requests()); n != 0 {
		t.Fatalf("the loopback receiver got %d requests", n)
	}
}
