// Package e2e holds the end-to-end tests that run against a local Solana validator in
// a container (see e2e/harness).
package e2e

import (
	"os"
	"testing"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }
