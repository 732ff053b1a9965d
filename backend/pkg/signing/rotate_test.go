package signing_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// grace is how long after the rotation command the old key retires: the
// instances restart within it.
const grace = 10 * time.Minute

// forgetBefore is what `reclaim keys rotate` passes: retired keys whose
// last tokens have expired are dropped.
var forgetBefore = now.Add(-time.Hour - signing.MaxClockSkew)

// seedFile reads a seed the keys directory holds, as an attacker who copied
// the file would.
func seedFile(t *testing.T, path string) ed25519.PrivateKey {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// issuedAt returns claims issued at a time for a life.
func issuedAt(at time.Time, life time.Duration) claims {
	return claims{Sub: "w", Iat: at.Unix(), Exp: at.Add(life).Unix()}
}

// The audit's attack: a signing key that leaks after its rotation signs a
// token with exp 50 years out. It must be refused, while the key's genuine
// tokens live out their lifetime.
func assertRetired(t *testing.T, k *signing.Keyring, leaked ed25519.PrivateKey, retiredAt time.Time, genuine string) {
	t.Helper()
	k = k.WithClock(func() time.Time { return retiredAt.Add(time.Minute) })
	attacker := signing.NewKeyring(leaked)
	fiftyYears := 50 * 365 * 24 * time.Hour
	for name, c := range map[string]claims{
		"after rotation, 50 years":  issuedAt(retiredAt.Add(time.Second), fiftyYears),
		"after rotation, a minute":  issuedAt(retiredAt.Add(time.Second), time.Minute),
		"backdated, 50 years":       issuedAt(retiredAt.Add(-time.Minute), fiftyYears),
		"far future, an hour":       issuedAt(retiredAt.AddDate(10, 0, 0), time.Hour),
		"as it retired, a minute":   issuedAt(retiredAt, time.Minute),
		"backdated beyond its life": issuedAt(retiredAt.Add(-time.Minute), time.Hour+time.Second),
	} {
		if verifies(k, sign(t, attacker, aType, c)) {
			t.Errorf("%s: a token the retired key signed was accepted", name)
		}
	}
	if !verifies(k, genuine) {
		t.Error("a token the key issued before it retired was refused")
	}
}

func TestRotateDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := load(t, dir, signing.Settings{})
	leaked := seedFile(t, filepath.Join(dir, "signer.ed25519"))
	genuine := sign(t, old, aType, issuedAt(now.Add(-5*time.Minute), time.Hour))

	// Step 1: the next key is accepted by every instance (re)started, and
	// signs nowhere yet.
	nextID, err := signing.Prepare(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := signing.Prepare(dir); err != nil || again != nextID {
		t.Fatalf("Prepare again: %s %v, want the same key %s", again, err, nextID)
	}
	prepared := load(t, dir, signing.Settings{})
	if prepared.SignerID() != old.SignerID() {
		t.Fatal("after Prepare the old key must still sign")
	}
	next := signing.NewKeyring(seedFile(t, filepath.Join(dir, "next.ed25519")))
	if !verifies(prepared, sign(t, next, aType, fresh(time.Minute))) {
		t.Fatal("after Prepare the next key's tokens must verify")
	}

	// Step 2: the next key signs, the old one retires once every instance
	// has restarted.
	rot, err := signing.Rotate(dir, now.Add(grace), forgetBefore)
	if err != nil {
		t.Fatal(err)
	}
	rotated := load(t, dir, signing.Settings{})
	if rot.Signer != nextID || rotated.SignerID() != nextID || rot.Retired.KeyID() != old.SignerID() || !rot.Retired.RetiredAt.Equal(now.Add(grace)) {
		t.Fatalf("rotation %+v, signer %s; want %s signing, %s retired at %s", rot, rotated.SignerID(), nextID, old.SignerID(), now.Add(grace))
	}
	if _, err := os.Stat(filepath.Join(dir, "next.ed25519")); !os.IsNotExist(err) {
		t.Fatalf("next.ed25519 after the rotation: %v", err)
	}
	// An instance not yet restarted (still at step 1) and a restarted one
	// accept each other's tokens.
	if !verifies(prepared, sign(t, rotated, aType, fresh(time.Minute))) || !verifies(rotated, sign(t, prepared, aType, fresh(time.Minute))) {
		t.Fatal("instances on either side of the rotation must accept each other's tokens")
	}
	assertRetired(t, rotated, leaked, now.Add(grace), genuine)
	// Only the retired key's public half stays on disk.
	assertNoSeed(t, dir, leaked)
}

func TestRotateDataDirUnprepared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := signing.Rotate(dir, now, forgetBefore); err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("rotating nothing: %v", err)
	}
	old := load(t, dir, signing.Settings{})
	leaked := seedFile(t, filepath.Join(dir, "signer.ed25519"))
	genuine := sign(t, old, aType, issuedAt(now.Add(-time.Minute), time.Minute*5))
	// A key that retired long ago is forgotten by the next rotation.
	if _, err := signing.Rotate(dir, now.Add(-2*time.Hour), forgetBefore); err != nil {
		t.Fatal(err)
	}
	first := load(t, dir, signing.Settings{})
	rot, err := signing.Rotate(dir, now, forgetBefore)
	if err != nil {
		t.Fatal(err)
	}
	k := load(t, dir, signing.Settings{})
	if rot.Forgotten != 1 || rot.Retired.KeyID() != first.SignerID() || k.SignerID() == first.SignerID() || k.SignerID() == old.SignerID() {
		t.Fatalf("rotation %+v", rot)
	}
	if verifies(k, genuine) {
		t.Fatal("a forgotten key still verifies")
	}
	if verifies(k, sign(t, signing.NewKeyring(leaked), aType, fresh(time.Minute))) {
		t.Fatal("a key retired two hours ago signed a token that was accepted")
	}
}

func assertNoSeed(t *testing.T, dir string, key ed25519.PrivateKey) {
	t.Helper()
	secret := base64.StdEncoding.EncodeToString(key.Seed())
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the retired key's seed", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// With the keys in the environment, the rotation is the same two steps on
// the settings, which the operator gives every instance.
func TestRotateSettings(t *testing.T) {
	t.Parallel()
	seed := base64.StdEncoding.EncodeToString(make([]byte, 32))
	start := signing.Settings{Signer: seed}
	if _, _, err := (signing.Settings{}).Prepare(); err == nil {
		t.Fatal("Prepare without a signer must fail: the keys are in the data dir")
	}
	old := load(t, t.TempDir(), start)
	leaked := ed25519.NewKeyFromSeed(make([]byte, 32))
	genuine := sign(t, old, aType, issuedAt(now.Add(-5*time.Minute), time.Hour))

	prepared, nextID, err := start.Prepare()
	if err != nil || prepared.Signer != seed || prepared.Next == "" {
		t.Fatalf("Prepare: %+v %v", prepared, err)
	}
	if _, _, err := prepared.Prepare(); err == nil {
		t.Fatal("Prepare twice must fail")
	}
	step1 := load(t, t.TempDir(), prepared)

	// A retired key long past its tokens' life is dropped, a recent one kept.
	stale := signing.Accepted{Public: pub(newKey(t)), RetiredAt: now.Add(-3 * time.Hour)}
	recent := signing.Accepted{Public: pub(newKey(t)), RetiredAt: now.Add(-30 * time.Minute)}
	prepared.Retired = stale.String() + "," + recent.String()
	after, rot, err := prepared.Rotate(now.Add(grace), forgetBefore)
	if err != nil {
		t.Fatal(err)
	}
	if after.Signer != prepared.Next || after.Next != "" || rot.Signer != nextID || rot.Forgotten != 1 ||
		after.Retired != recent.String()+","+base64.StdEncoding.EncodeToString(pub(leaked))+"@"+now.Add(grace).Format(time.RFC3339) {
		t.Fatalf("after the rotation %+v (%+v)", after, rot)
	}
	if _, _, err := (signing.Settings{Signer: after.Signer, Next: after.Signer}).Rotate(now, forgetBefore); err == nil {
		t.Fatal("rotating to the signer itself must fail")
	}
	step2 := load(t, t.TempDir(), after)
	if step2.SignerID() != nextID {
		t.Fatalf("signer %s, want %s", step2.SignerID(), nextID)
	}
	if !verifies(step1, sign(t, step2, aType, fresh(time.Minute))) || !verifies(step2, sign(t, step1, aType, fresh(time.Minute))) {
		t.Fatal("instances on either side of the rotation must accept each other's tokens")
	}
	assertRetired(t, step2, leaked, now.Add(grace), genuine)
}
