package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// devPorts are where `reclaim dev` puts what it starts, decided before
// anything starts.
type devPorts struct {
	// validator and pubsub are the local validator's JSON-RPC and PubSub
	// ports.
	validator, pubsub int
	// metricsAddr is RECLAIM_METRICS_ADDR for the service: the operator's
	// own when set, else a free loopback port ("127.0.0.1:0").
	metricsAddr string
	// notes are said in the printed block: a usual port that was taken
	// and where its part runs instead.
	notes []string
}

// devPort is one port the stack will listen on, and the variable that
// moves it.
type devPort struct {
	addr     string // host:port
	variable string
}

// claimDevPorts decides the stack's ports and checks them before anything
// starts: a port set by a variable (or the API's, whose default the
// printed URLs and the sample app rely on) must be free and not another
// part's, and one error names every taken port with the variable that
// moves it. The validator on its usual ports (8899, PubSub 8900) and the
// metrics listener move to free loopback ports when those are taken and
// no variable fixes them; a note says so.
func claimDevPorts(ctx context.Context, apiAddr string, ds devSettings, metricsSet bool, metricsAddr string) (devPorts, error) {
	p := devPorts{validator: ds.validatorPort, pubsub: ds.pubsubPort, metricsAddr: metricsAddr}
	if !metricsSet {
		p.metricsAddr = "127.0.0.1:0"
	}
	if !ds.validatorSet && (!portFree(ctx, loopback(p.validator)) || !ds.pubsubSet && !portFree(ctx, loopback(p.pubsub))) {
		usual := fmt.Sprintf("%d and %d", p.validator, p.pubsub)
		if ds.pubsubSet {
			usual = strconv.Itoa(p.validator)
		}
		n := 2
		if ds.pubsubSet {
			n = 1
		}
		ports, err := freePorts(ctx, n)
		if err != nil {
			return p, err
		}
		p.validator = ports[0]
		if !ds.pubsubSet {
			p.pubsub = ports[1]
		}
		p.notes = append(p.notes, fmt.Sprintf("the validator's usual ports %s are taken: it runs on %d, PubSub %d (VALIDATOR_PORT and VALIDATOR_PUBSUB_PORT fix them)", usual, p.validator, p.pubsub))
	}
	validatorVar, pubsubVar := "VALIDATOR_PORT", "VALIDATOR_PUBSUB_PORT"
	if !ds.validatorSet {
		validatorVar = "VALIDATOR_PORT, unset: 8899"
	}
	if !ds.pubsubSet {
		pubsubVar = "VALIDATOR_PUBSUB_PORT, unset: VALIDATOR_PORT+1"
	}
	ports := []devPort{
		{apiAddr, "RECLAIM_ADDR"},
		{loopback(p.validator), validatorVar},
		{loopback(p.pubsub), pubsubVar},
		{ds.sampleAddr, "SAMPLE_APP_PORT"},
	}
	if p.metricsAddr != "" && p.metricsAddr != "127.0.0.1:0" {
		ports = append(ports, devPort{p.metricsAddr, "RECLAIM_METRICS_ADDR"})
	}
	if err := distinctPorts(ports); err != nil {
		return p, err
	}
	// The sample app's port is make example's: an earlier make example may
	// rightly hold it, so it is kept apart and, when taken, only noted.
	var taken []string
	for _, dp := range ports {
		if dp.variable != "SAMPLE_APP_PORT" && !portFree(ctx, dp.addr) {
			taken = append(taken, fmt.Sprintf("%s (%s)", dp.addr, dp.variable))
		}
	}
	if !portFree(ctx, ds.sampleAddr) {
		p.notes = append(p.notes, fmt.Sprintf("the sample app's %s is taken now: fine if an earlier make example holds it, else SAMPLE_APP_PORT moves it", ds.sampleAddr))
	}
	if len(taken) > 0 {
		return p, fmt.Errorf("make run (reclaim dev): another program listens on %s; stop it, or set the variable named to a free port (nothing was started)", strings.Join(taken, ", "))
	}
	return p, nil
}

// distinctPorts refuses two parts of the stack on one port.
func distinctPorts(ports []devPort) error {
	seen := map[string]string{}
	for _, dp := range ports {
		_, port, err := net.SplitHostPort(dp.addr)
		if err != nil || port == "0" {
			continue
		}
		if other, ok := seen[port]; ok {
			return fmt.Errorf("make run (reclaim dev): port %s is both %s and %s: set one of them to another port", port, other, dp.variable)
		}
		seen[port] = dp.variable
	}
	return nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// portFree reports whether addr can be listened on now.
func portFree(ctx context.Context, addr string) bool {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "0" {
		return true
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// freePorts returns n distinct free loopback ports: each is held until all
// are chosen, so none comes twice.
func freePorts(ctx context.Context, n int) ([]int, error) {
	var ports []int
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			_ = ln.Close()
		}
	}()
	for range n {
		ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		held = append(held, ln)
		_, port, err := net.SplitHostPort(ln.Addr().String())
		if err != nil {
			return nil, err
		}
		number, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		ports = append(ports, number)
	}
	return ports, nil
}
