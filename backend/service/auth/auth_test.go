package auth_test

import (
	"testing"

	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// Every session minted from a key spends the key's bucket.
func TestRateKeyIsTheAPIKeys(t *testing.T) {
	t.Parallel()
	key := auth.Principal{Kind: auth.KindAPIKey, APIKeyID: "key_1"}
	for _, sess := range []string{"jti1", "jti2"} {
		s := auth.Principal{Kind: auth.KindSession, APIKeyID: "key_1", SessionID: sess}
		if s.RateKey() != key.RateKey() || s.RateKey() != "key:key_1" {
			t.Fatalf("session %s: %q, key %q", sess, s.RateKey(), key.RateKey())
		}
	}
}
