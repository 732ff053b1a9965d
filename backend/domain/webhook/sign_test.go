package webhook

import (
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks specification's own example (its libraries' test
// vector): this secret, id, timestamp and body sign to this signature.
const (
	specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTS     = 1614265330
	specBody   = `{"test": 2432232314}`
	specSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesTheSpecification(t *testing.T) {
	t.Parallel()
	h, err := Sign(specID, time.Unix(specTS, 0), []byte(specBody), specSecret)
	if err != nil {
		t.Fatal(err)
	}
	if h[HeaderSignature] != specSig || h[HeaderID] != specID || h[HeaderTimestamp] != "1614265330" {
		t.Fatalf("headers %v, want signature %s", h, specSig)
	}
}

func TestSignWithARotatedSecret(t *testing.T) {
	t.Parallel()
	at := time.Unix(specTS, 0)
	next := NewSecret()
	h, err := Sign(specID, at, []byte(specBody), next, specSecret)
	if err != nil {
		t.Fatal(err)
	}
	sigs := strings.Split(h[HeaderSignature], " ")
	if len(sigs) != 2 || sigs[1] != specSig || !strings.HasPrefix(sigs[0], "v1,") {
		t.Fatalf("signatures %q: want the new one, then the old", sigs)
	}
	for _, s := range []string{next, specSecret} {
		if !Verify(s, h, []byte(specBody), at, 5*time.Minute) {
			t.Errorf("a receiver with %s… refuses the delivery", s[:10])
		}
	}
	if Verify(NewSecret(), h, []byte(specBody), at, 5*time.Minute) {
		t.Error("a third secret verifies")
	}
	if Verify(specSecret, h, []byte(specBody+" "), at, 5*time.Minute) {
		t.Error("a changed body verifies")
	}
	if Verify(specSecret, h, []byte(specBody), at.Add(6*time.Minute), 5*time.Minute) {
		t.Error("a replay six minutes later verifies")
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	if !strings.HasPrefix(s, SecretPrefix) || s == NewSecret() {
		t.Fatalf("NewSecret = %q", s)
	}
	if k, err := secretKey(s); err != nil || len(k) != secretBytes {
		t.Fatalf("key of %q: %d bytes, %v", s, len(k), err)
	}
	for _, bad := range []string{"", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_!!!!", "whsec_c2hvcnQ="} {
		if _, err := Sign("id", time.Unix(0, 0), nil, bad); err == nil {
			t.Errorf("secret %q signs", bad)
		}
	}
	if _, err := Sign("id", time.Unix(0, 0), nil); err == nil {
		t.Error("no secret signs")
	}
}
