package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/localvalidator"
)

// The container's ports are the ones the validator's image starts it on,
// and ValidatorDir is its folder.
func TestValidatorAsTheImageStartsIt(t *testing.T) {
	t.Parallel()
	if want := strconv.Itoa(localvalidator.RPCPort) + "/tcp"; rpcPort != want {
		t.Errorf("rpcPort %s, want %s", rpcPort, want)
	}
	if want := strconv.Itoa(localvalidator.PubSubPort) + "/tcp"; wsPort != want {
		t.Errorf("wsPort %s, want %s", wsPort, want)
	}
	if _, err := os.Stat(filepath.Join(ValidatorDir(), "Dockerfile")); err != nil {
		t.Errorf("ValidatorDir: %v", err)
	}
}
