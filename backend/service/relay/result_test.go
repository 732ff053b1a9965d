package relay_test

import (
	"reflect"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestResultHoldsNoError: a Result is the answer a client gets for one
// entry; a ledger that failed is Submit's error (ErrStore), never a value
// carried inside a Result for someone to remember to look at.
func TestResultHoldsNoError(t *testing.T) {
	t.Parallel()
	errType := reflect.TypeFor[error]()
	rt := reflect.TypeFor[relay.Result]()
	for i := range rt.NumField() {
		if f := rt.Field(i); f.Type.Implements(errType) || f.Type == errType {
			t.Errorf("Result.%s is an error (%s)", f.Name, f.Type)
		}
	}
}
