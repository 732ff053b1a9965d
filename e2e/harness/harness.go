// Package harness starts the local Solana validator for the e2e suite through
// testcontainers-go and hands tests a solana-go client and fixture helpers that set up
// wallets by sending real transactions.
//
// By default the validator is backend/localvalidator (JSON-RPC over LiteSVM), built into an
// image from a locally imported Debian base (see .ci/docker.sh); E2E_VALIDATOR_IMAGE
// runs any solana-test-validator image instead, with no code change.
//
// A test package uses it like this:
//
//	func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		v := harness.Shared(t)
//		w := v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
//		...
//	}
package harness

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/testcontainers/testcontainers-go"
)

// Validator is a running validator container and a client for it.
type Validator struct {
	// RPC talks JSON-RPC to the validator.
	RPC *rpc.Client
	// URL is the HTTP JSON-RPC endpoint, reachable from the host.
	URL string
	// WSURL is the PubSub (WebSocket) endpoint, reachable from the host.
	WSURL string
	// Image is the image the container runs.
	Image string
	// StartToHealthy is how long the container took from start to a healthy getHealth.
	StartToHealthy time.Duration

	container testcontainers.Container
}

var shared struct {
	once sync.Once
	v    *Validator
	err  error
	skip string
}

// Main prepares the environment for testcontainers, runs the tests and stops the
// shared validator. Call it from TestMain.
func Main(m *testing.M) int {
	SetTestcontainersEnv()
	code := m.Run()
	if shared.v != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := shared.v.Terminate(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "harness: terminate validator: %v\n", err)
		}
	}
	return code
}

// SetTestcontainersEnv sets what testcontainers-go needs on this kind of machine before
// its first call: no Ryuk reaper (its image cannot be pulled; Main terminates the
// container itself) and the host for mapped ports is loopback (without the override,
// inside a container it would dial the default gateway).
func SetTestcontainersEnv() {
	setDefault("TESTCONTAINERS_RYUK_DISABLED", "true")
	setDefault("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
}

func setDefault(key, value string) {
	if os.Getenv(key) == "" {
		os.Setenv(key, value)
	}
}

// Shared returns the package's validator, starting it on first use. Without Docker the
// test is skipped, or fails when CI=true.
func Shared(t testing.TB) *Validator {
	t.Helper()
	shared.once.Do(func() {
		SetTestcontainersEnv()
		if err := dockerAvailable(); err != nil {
			shared.skip = fmt.Sprintf("Docker is not available: %v", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		shared.v, shared.err = Start(ctx, os.Stderr)
	})
	if shared.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("e2e: %s (CI=true: the e2e suite must run; start dockerd with .ci/docker.sh)", shared.skip)
		}
		t.Skipf("e2e: %s; skipping (set CI=true to make this a failure)", shared.skip)
	}
	if shared.err != nil {
		t.Fatalf("e2e: start validator: %v", shared.err)
	}
	return shared.v
}

// Terminate stops and removes the container (the image is kept).
func (v *Validator) Terminate(ctx context.Context) error {
	return v.container.Terminate(ctx)
}
