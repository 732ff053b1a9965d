package integrator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// webhookTolerance is how far a webhook's timestamp may be from now: older
// (or future) deliveries are refused, so a captured one cannot be replayed.
const webhookTolerance = 5 * time.Minute

// webhook receives Reclaim's events (POST /api/webhooks/reclaim), verified
// as the Standard Webhooks specification says: the HMAC-SHA256, keyed with
// the bytes after whsec_, of "id.timestamp.body", against each v1,
// signature of the webhook-signature header (two during a rotation). In
// Node, the standardwebhooks package does the same:
// new Webhook(secret).verify(body, headers). It answers 2xx fast and
// deduplicates on webhook-id: deliveries are at least once.
func (o Options) webhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || !VerifyWebhook(o.WebhookSecret, r.Header, body, time.Now()) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var ev struct {
		Type string `json:"type"`
		Data struct {
			Signature, Status, WalletAddress string
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &ev)
	// A real backend records the outcome for its user here (once per
	// webhook-id); types it does not know are acknowledged and ignored.
	slog.Info("reclaim webhook", "id", r.Header.Get("webhook-id"), "type", ev.Type, "wallet", ev.Data.WalletAddress, "signature", ev.Data.Signature)
	w.WriteHeader(http.StatusNoContent)
}

// VerifyWebhook reports whether a delivery's headers sign body with secret
// (whsec_...) and its timestamp is within webhookTolerance of now.
func VerifyWebhook(secret string, h http.Header, body []byte, now time.Time) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" || now.Sub(time.Unix(sec, 0)).Abs() > webhookTolerance {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		v, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && v == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
