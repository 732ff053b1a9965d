package admin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// Device cookies (OWASP's, against lockout and floods): every sign-in gives
// the browser a cookie naming the account it signed in to, signed by the
// console:
//
//	base64url(issued (Unix seconds, 8 bytes) | id (16 random bytes) | HMAC-SHA256(key, issued | id | owner id) | owner id)
//
// A sign-in that carries a good one (its MAC checked in constant time, less
// than deviceTTL old) for the account it signs in to is a returning
// browser's: its attempts are counted per cookie rather than per address,
// and its password check runs in capacity of its own (owner.Device), so a
// flood from browsers without one never keeps the owner out. The cookie is
// no credential (the password is still checked); it is HttpOnly,
// SameSite=Strict, Secure with the session cookie, sent only to the
// sign-in form (Path=/admin/signin), replaced by a fresh one at each
// sign-in and refused once deviceTTL has passed since it was issued.
const (
	deviceCookie = "reclaim_device"
	devicePath   = "/admin/signin"
	deviceTTL    = 90 * 24 * time.Hour
	deviceIDLen  = 16
	// deviceFixedLen is a cookie's bytes before the owner id.
	deviceFixedLen = 8 + deviceIDLen + sha256.Size
	// maxDeviceOwnerID bounds the owner id a cookie may carry.
	maxDeviceOwnerID = 64
)

// deviceCookies issues and checks device cookies under one key.
type deviceCookies struct {
	key []byte
}

// newDeviceCookies derives the cookies' key from the forms' key, so that
// every instance with the same FormKey checks another's cookies and a form
// token's MAC is never a cookie's.
func newDeviceCookies(formKey []byte) deviceCookies {
	m := hmac.New(sha256.New, formKey)
	m.Write([]byte("reclaim console device cookies v1"))
	return deviceCookies{key: m.Sum(nil)}
}

// issue returns a fresh cookie value for ownerID, issued at now.
func (d deviceCookies) issue(ownerID string, now time.Time) string {
	b := make([]byte, deviceFixedLen, deviceFixedLen+len(ownerID))
	binary.BigEndian.PutUint64(b, uint64(now.Unix())) //nolint:gosec // G115: a time after 1970
	if _, err := rand.Read(b[8 : 8+deviceIDLen]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	copy(b[8+deviceIDLen:], d.mac(b[:8+deviceIDLen], ownerID))
	b = append(b, ownerID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// check returns the device value names, if this key signed it for its
// owner less than deviceTTL before now; the zero Device otherwise.
func (d deviceCookies) check(value string, now time.Time) owner.Device {
	// Go's base64 decoders skip CR and LF even when strict: a value with
	// them is not the one we issued, whatever it decodes to.
	if len(value) > base64.RawURLEncoding.EncodedLen(deviceFixedLen+maxDeviceOwnerID) || strings.ContainsAny(value, "\r\n") {
		return owner.Device{}
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(value)
	if err != nil || len(b) <= deviceFixedLen {
		return owner.Device{}
	}
	ownerID := string(b[deviceFixedLen:])
	if !hmac.Equal(b[8+deviceIDLen:deviceFixedLen], d.mac(b[:8+deviceIDLen], ownerID)) {
		return owner.Device{}
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b)), 0) //nolint:gosec // G115: signed by us, a time after 1970
	// A minute of clock skew between instances.
	if now.Before(issued.Add(-time.Minute)) || !now.Before(issued.Add(deviceTTL)) {
		return owner.Device{}
	}
	return owner.Device{OwnerID: ownerID, ID: base64.RawURLEncoding.EncodeToString(b[8 : 8+deviceIDLen])}
}

func (d deviceCookies) mac(issuedAndID []byte, ownerID string) []byte {
	m := hmac.New(sha256.New, d.key)
	m.Write(issuedAndID)
	m.Write([]byte(ownerID))
	return m.Sum(nil)
}

// device returns the returning browser the request's device cookie names,
// or the zero Device.
func (c *console) device(r *http.Request) owner.Device {
	ck, err := r.Cookie(deviceCookie)
	if err != nil {
		return owner.Device{}
	}
	return c.devices.check(ck.Value, c.Now())
}

// setDeviceCookie gives the browser a fresh device cookie for ownerID.
func (c *console) setDeviceCookie(w http.ResponseWriter, r *http.Request, ownerID string) {
	//nolint:gosec // G124: Secure on TLS or when configured (RECLAIM_SECURE_COOKIES), as the session cookie
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookie, Value: c.devices.issue(ownerID, c.Now()), Path: devicePath, MaxAge: int(deviceTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || c.SecureCookies,
	})
}
