package integrator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
)

// The sample backend takes a delivery Reclaim signed (with either secret
// during a rotation), and refuses a changed body, another secret, a stale
// timestamp and a missing signature.
func TestWebhookRoute(t *testing.T) {
	t.Parallel()
	secret, old := webhook.NewSecret(), webhook.NewSecret()
	h := New(Options{WebhookSecret: secret})
	body := `{"type":"submission.confirmed","timestamp":"2026-11-26T16:26:20.011Z","data":{"signature":"5h","status":"confirmed"}}`
	now := time.Now()
	signed := func(at time.Time, secrets ...string) http.Header {
		hs, err := webhook.Sign("msg_1", at, []byte(body), secrets...)
		if err != nil {
			t.Fatal(err)
		}
		out := http.Header{}
		for k, v := range hs {
			out.Set(k, v)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		header http.Header
		body   string
		want   int
	}{
		{"signed", signed(now, secret), body, http.StatusNoContent},
		{"signed with both during a rotation", signed(now, old, secret), body, http.StatusNoContent},
		{"a changed body", signed(now, secret), strings.Replace(body, "5h", "6h", 1), http.StatusUnauthorized},
		{"another secret", signed(now, old), body, http.StatusUnauthorized},
		{"ten minutes old", signed(now.Add(-10*time.Minute), secret), body, http.StatusUnauthorized},
		{"unsigned", http.Header{}, body, http.StatusUnauthorized},
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/webhooks/reclaim", strings.NewReader(c.body))
		req.Header = c.header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: %d, want %d", c.name, rec.Code, c.want)
		}
	}
}
