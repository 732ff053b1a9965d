package e2e

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// decided submits tk through the balancer until the answer decides it
// (submitted or duplicate), retrying what an instance's death leaves
// undecided: a request that failed on the way, a 5xx, IN_FLIGHT. It counts
// the undecided answers in retries.
func (d *deployment) decided(ctx context.Context, tk ticket, retries *atomic.Int32) (submitResult, error) {
	for {
		a, r, err := d.submit(ctx, tk)
		switch {
		case ctx.Err() != nil:
			return r, ctx.Err()
		case err == nil && a.status == 200 && (r.Status == "submitted" || r.Status == "duplicate"):
			return r, nil
		case err == nil && a.status == 200 && (r.Error == nil || r.Error.Code != "IN_FLIGHT"):
			return r, nil // a refusal: the caller fails on it
		}
		retries.Add(1)
		// Undecided: back off briefly and ask again (a poll of the API, as a
		// client would, not a wait for the test's own sake).
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// killedMidFlow has 20 submits under way in both instances (the validator
// paused for the moment, so that each is inside its sendTransaction), kills
// the first instance with SIGKILL, and restarts it. Every transaction ends
// confirmed, counted once: HAProxy retries what the dead instance dropped on
// the other; a claim the dead instance held is sent again by a client's
// retry once SendGrace has passed or by a tracker that adopts it then, or
// settled by a tracker from the cluster's record; and what its tracker had
// leased is followed again once the lease ends.
func (d *deployment) killedMidFlow(t *testing.T) {
	tks := d.tickets(t, 20)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	validator := d.tp.container("validator", 1)
	d.tp.docker("pause", validator)
	results := make([]submitResult, len(tks))
	errs := make([]error, len(tks))
	var retries atomic.Int32
	var wg sync.WaitGroup
	for i, tk := range tks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = d.decided(ctx, tk, &retries)
		}()
	}
	inside := d.sessions(len(tks))
	victim := d.tp.container("reclaim", 1)
	d.tp.docker("kill", "--signal", "KILL", victim)
	killed := time.Now()
	d.tp.docker("unpause", validator)
	d.tp.waitInstances(1)
	d.tp.docker("start", victim)
	d.tp.waitInstances(2)
	t.Logf("killed %s with SIGKILL with %v submits inside the instances; back in rotation after %s",
		victim, inside, time.Since(killed).Round(time.Millisecond))
	wg.Wait()
	statuses := map[string]int{}
	for i, r := range results {
		if errs[i] != nil || r.Signature == nil || *r.Signature != tks[i].sig {
			t.Fatalf("ticket %d: %+v %v, want its signature %s", i, r, errs[i], tks[i].sig)
		}
		statuses[r.Status]++
	}
	t.Logf("20 tickets decided %s after the kill: %v, after %d undecided answers", time.Since(killed).Round(time.Millisecond), statuses, retries.Load())
	d.counted(t, tks)
}

// sessions waits until the balancer has n requests inside the instances,
// and returns them by instance.
func (d *deployment) sessions(n int) map[string]int {
	d.tp.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		servers, err := d.tp.servers()
		if err != nil {
			d.tp.t.Fatal(err)
		}
		by, total := map[string]int{}, 0
		for _, s := range servers {
			if c, _ := strconv.Atoi(s["scur"]); c > 0 {
				by[s["svname"]] = c
				total += c
			}
		}
		if total >= n {
			return by
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.tp.t.Fatalf("fewer than %d requests reached the instances", n)
	return nil
}

// rateLimit floods one API key through the balancer: both instances answer
// 429 from the one bucket they share in Redis, and what they let through
// together is what one bucket allows; another key is unaffected.
func (d *deployment) rateLimit(t *testing.T) {
	const rps, burst, requests, workers = 20, 40, 150, 10
	// A project of its own, given a small quota by the operator's CLI;
	// each instance applies it within RECLAIM_SESSION_CHECK_INTERVAL.
	projectID := d.tp.cli("project", "create", "--name", "flooded")
	d.tp.cli("project", "limits", "--project", projectID, "--rps", "20", "--burst", "40")
	flood := d.tp.cli("apikey", "create", "--project", projectID)
	second := d.tp.cli("apikey", "create", "--project", projectID)
	other := d.tp.cli("apikey", "create", "--project", d.s.projectID)
	d.untilBothLimit(t, [2]string{"X-Api-Key", second}, strconv.Itoa(burst), 30*time.Second)
	var next atomic.Int32
	var mu sync.Mutex
	codes := map[string]map[int]int{} // instance -> status -> count
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= requests {
				key := flood
				if n := next.Load(); n%2 == 0 {
					key = second // two keys of one project: one quota
				}
				a, err := d.tp.do(t.Context(), "GET", "/v1/stats", [2]string{"X-Api-Key", key}, nil)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if codes[a.instance] == nil {
					codes[a.instance] = map[int]int{}
				}
				codes[a.instance][a.status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	allowed, limited := 0, 0
	for inst, byCode := range codes {
		if byCode[429] == 0 {
			t.Fatalf("instance %s refused nothing: %v", inst, codes)
		}
		allowed += byCode[200]
		limited += byCode[429]
	}
	// One bucket for the project's two keys on two instances: its burst
	// and what refilled meanwhile (one each instance might add at a refill
	// boundary). Two buckets would let through twice the burst.
	if most := burst + int(rps*elapsed.Seconds()) + 2; len(codes) != 2 || allowed > most || allowed+limited != requests {
		t.Fatalf("%d requests in %s: %v; want both instances and at most %d allowed", requests, elapsed, codes, most)
	}
	for range 10 {
		if a, err := d.tp.do(t.Context(), "GET", "/v1/stats", [2]string{"X-Api-Key", other}, nil); err != nil || a.status != 200 {
			t.Fatalf("another project's key: %d %v", a.status, err)
		}
	}
	t.Logf("flood of %d requests in %s: %d allowed, %d refused with 429 (%v); another project unaffected", requests, elapsed.Round(time.Millisecond), allowed, limited, codes)
}

// untilBothLimit polls GET /v1/stats with header through the balancer
// until both instances answered with X-RateLimit-Limit limit (a quota set
// by the CLI, which each instance reads within its refresh), for at most
// deadline: an outside process's change, so polled.
func (d *deployment) untilBothLimit(t *testing.T, header [2]string, limit string, deadline time.Duration) {
	t.Helper()
	seen := map[string]bool{}
	end := time.Now().Add(deadline)
	for len(seen) < 2 {
		if time.Now().After(end) {
			t.Fatalf("not both instances applied the quota within %s: %v", deadline, seen)
		}
		a, err := d.tp.do(t.Context(), "GET", "/v1/stats", header, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.limit == limit {
			seen[a.instance] = true
		}
	}
}

// untilBoth sends GET /v1/stats with header through the balancer until
// both instances answered want, for at most deadline. It returns when each
// instance first did (the answer's arrival), and when the last request
// that either answered otherwise was sent.
func (d *deployment) untilBoth(t *testing.T, header [2]string, want int, deadline time.Duration) (map[string]time.Time, time.Time) {
	t.Helper()
	first := map[string]time.Time{}
	var lastOther time.Time
	end := time.Now().Add(deadline)
	for len(first) < 2 {
		if time.Now().After(end) {
			t.Fatalf("not both instances answered %d within %s: %v", want, deadline, first)
		}
		sent := time.Now()
		a, err := d.tp.do(t.Context(), "GET", "/v1/stats", header, nil)
		switch {
		case err != nil:
			t.Fatal(err)
		case a.status != want:
			lastOther = sent
		case first[a.instance].IsZero():
			first[a.instance] = time.Now()
		}
	}
	return first, lastOther
}

// revokedKey revokes an API key on one instance: both refuse it at once, and
// the sessions it made within 2 seconds.
func (d *deployment) revokedKey(t *testing.T) {
	key := d.tp.cli("apikey", "create", "--project", d.s.projectID)
	with := *d.s
	with.apiKey = key
	token := with.session(d.owner.PublicKey())
	d.untilBoth(t, [2]string{"X-Api-Key", key}, 200, 10*time.Second)
	d.untilBoth(t, bearerOf(token), 200, 10*time.Second)

	d.tp.cli("apikey", "revoke", "--key", key)
	revoked := time.Now()
	refused, _ := d.untilBoth(t, [2]string{"X-Api-Key", key}, 401, time.Second)
	for inst, at := range refused {
		t.Logf("instance %s refused the revoked key %s after the revocation", inst, at.Sub(revoked).Round(time.Millisecond))
	}
	refused, lastOK := d.untilBoth(t, bearerOf(token), 401, 3*time.Second)
	for inst, at := range refused {
		t.Logf("instance %s refused the revoked key's session %s after the revocation", inst, at.Sub(revoked).Round(time.Millisecond))
	}
	// The revocation was committed before revoked; a request sent this
	// long after it was still served.
	if worked := lastOK.Sub(revoked); worked > 2*time.Second {
		t.Fatalf("the revoked key's session was still served for a request sent %s after the revocation", worked)
	}
	for range 4 {
		if a, err := d.tp.do(t.Context(), "GET", "/v1/stats", bearerOf(token), nil); err != nil || a.status != 401 {
			t.Fatalf("after refusal: %d %v", a.status, err)
		}
	}
}

// trackerCalls runs one, two and three instances, each time with four
// transactions in flight (finalizing takes about 13 seconds on the
// validator), and reads from every instance's /metrics the calls their
// trackers made to the cluster over a window: the same rate whatever the
// number of instances, as one pass per interval runs across them.
func (d *deployment) trackerCalls(t *testing.T) {
	const window = 8 * time.Second
	rates := map[int]float64{}
	for _, n := range []int{2, 3, 1} {
		d.tp.scale(n)
		tks := d.tickets(t, 4)
		for _, tk := range tks {
			if _, r, err := d.submit(t.Context(), tk); err != nil || r.Status != "submitted" {
				t.Fatalf("submit: %+v %v", r, err)
			}
		}
		metrics := d.tp.metricsURLs(n)
		before := d.tp.metric(metrics, "reclaim_jsonrpc_call_duration_seconds_count", `caller="tracker"`)
		start := time.Now()
		// A measurement window, not a wait on anything: the rate is what
		// the trackers call over it.
		<-time.After(window)
		after := d.tp.metric(metrics, "reclaim_jsonrpc_call_duration_seconds_count", `caller="tracker"`)
		rates[n] = (after - before) / time.Since(start).Seconds()
		d.counted(t, tks)
	}
	for _, n := range []int{1, 2, 3} {
		t.Logf("%d instance(s): the trackers called the cluster %.2f times a second", n, rates[n])
		if rates[1] == 0 || rates[n] > 1.5*rates[1] || rates[n] < rates[1]/1.5 {
			t.Fatalf("tracker calls a second by instance count %v: want the same for each", rates)
		}
	}
}

// clientsApart: behind the balancer each client is itself, not the
// balancer. This machine (through the published port) floods API requests
// without a valid key until its address's bucket refuses them, and keeps
// flooding while a second client, in the validator's container on the
// topology's network, sends a few: the second is answered 401 (its own
// bucket) while the first is still refused with 429. Were the instances to
// take the balancer's address for every client, the second would share the
// emptied bucket.
func (d *deployment) clientsApart(t *testing.T) {
	// The other steps poll from this host as fast as they can, so the
	// topology started with the address buckets out of the way; this step
	// is about them: the instances are recreated with small ones.
	d.tp.env = append(d.tp.env, "RECLAIM_RATE_LIMIT_IP_RPS=1", "RECLAIM_RATE_LIMIT_IP_BURST=20")
	d.tp.must("up", "-d", "--no-build", "--scale", "reclaim=2")
	d.tp.waitInstances(2)
	guess := [2]string{"X-Api-Key", "ak_live_guess"}
	ctx, stop := context.WithCancel(t.Context())
	limited := make(chan struct{})
	var once sync.Once
	var refused atomic.Int32 // the first client's 429s
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				a, err := d.tp.do(ctx, "GET", "/v1/stats", guess, nil)
				if err != nil {
					continue // the flood ends with ctx
				}
				if a.status == 429 {
					refused.Add(1)
					once.Do(func() { close(limited) })
				}
			}
		}()
	}
	select {
	case <-limited:
	case <-time.After(time.Minute):
		stop()
		wg.Wait()
		t.Fatal("a minute of requests without a valid key from this machine, none refused with 429")
	}
	const script = `(async () => {
	const codes = [];
	for (let i = 0; i < 5; i++) {
		const r = await fetch("http://lb:8080/v1/stats", {headers: {"X-Api-Key": "ak_live_guess"}});
		codes.push(r.status);
	}
	console.log(codes.join(" "));
})().catch((e) => { console.error(e); process.exit(1); });`
	before := refused.Load()
	second := d.tp.must("exec", "-T", "validator", "node", "-e", script)
	during := refused.Load() - before
	stop()
	wg.Wait()
	if second != "401 401 401 401 401" {
		t.Errorf("a second client behind the balancer, while the first is refused: %q, want 401 each time (a bucket of its own)", second)
	}
	if during == 0 {
		t.Error("the first client was not refused while the second asked")
	}
	t.Logf("first client (this machine) refused %d times with 429 while the second (the validator's container) was answered %s", during, second)
}
