package admin

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

var deviceNow = time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)

// A device cookie names its account and a random id of its own while it
// is younger than 90 days and signed by this key; anything else, or a
// cookie of another key, names nothing.
func TestDeviceCookies(t *testing.T) {
	t.Parallel()
	d := newDeviceCookies(bytes.Repeat([]byte{7}, 32))
	v := d.issue("own_alice", deviceNow)
	got := d.check(v, deviceNow)
	if got.OwnerID != "own_alice" || len(got.ID) != 22 {
		t.Fatalf("check(issued) = %+v", got)
	}
	if again := d.check(d.issue("own_alice", deviceNow), deviceNow); again.ID == got.ID {
		t.Error("two cookies share an id")
	}
	b, _ := base64.RawURLEncoding.DecodeString(v)
	swapped := slices.Concat(b[:deviceFixedLen], []byte("own_bobby"))
	for name, c := range map[string]struct {
		value string
		at    time.Time
	}{
		"89 days later":          {v, deviceNow.Add(89 * 24 * time.Hour)},
		"90 days later":          {v, deviceNow.Add(deviceTTL)},
		"issued in the future":   {v, deviceNow.Add(-2 * time.Minute)},
		"another key's":          {newDeviceCookies(bytes.Repeat([]byte{8}, 32)).issue("own_alice", deviceNow), deviceNow},
		"another account":        {base64.RawURLEncoding.EncodeToString(swapped), deviceNow},
		"a form token's key":     {formTokens{key: bytes.Repeat([]byte{7}, 32)}.issue("own_alice", deviceNow), deviceNow},
		"cut short":              {v[:len(v)-1], deviceNow},
		"no owner":               {v[:base64.RawURLEncoding.EncodedLen(deviceFixedLen)], deviceNow},
		"padded":                 {v + "=", deviceNow},
		"empty":                  {"", deviceNow},
		"an owner id too long":   {d.issue(string(bytes.Repeat([]byte{'x'}, maxDeviceOwnerID+1)), deviceNow), deviceNow},
		"an owner id at most 64": {d.issue(string(bytes.Repeat([]byte{'x'}, maxDeviceOwnerID)), deviceNow), deviceNow},
	} {
		want := name == "89 days later" || name == "an owner id at most 64"
		if got := d.check(c.value, c.at); (got != owner.Device{}) != want {
			t.Errorf("%s: check = %+v, want good %v", name, got, want)
		}
	}
}

// Whatever a browser sends as its device cookie, check answers without
// panicking, and names a device only for the one value this key signed
// (the fuzzer's others are random values or changes of it).
func FuzzDeviceCookieCheck(f *testing.F) {
	d := newDeviceCookies(bytes.Repeat([]byte{7}, 32))
	// The one good value, with a fixed id: the fuzzing processes share it.
	b := make([]byte, 8+deviceIDLen, deviceFixedLen)
	binary.BigEndian.PutUint64(b, uint64(deviceNow.Unix()))
	b = append(append(b, d.mac(b, "own_alice")...), "own_alice"...)
	issued := base64.RawURLEncoding.EncodeToString(b)
	if (d.check(issued, deviceNow) == owner.Device{}) {
		f.Fatal("the good value is refused")
	}
	f.Add(issued)
	f.Add("")
	f.Add(issued[:40])
	f.Add(issued + "A")
	f.Add("own_alice")
	f.Fuzz(func(t *testing.T, value string) {
		if got := d.check(value, deviceNow); (got != owner.Device{}) && value != issued {
			t.Fatalf("check(%q) = %+v: a value this key did not issue", value, got)
		}
	})
}
