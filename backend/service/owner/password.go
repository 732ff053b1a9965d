package owner

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Passwords hashes owner passwords with argon2id. The parameters travel in
// each hash (a PHC string), so raising them later keeps old hashes valid.
type Passwords struct {
	Time      uint32
	MemoryKiB uint32
	Threads   uint8
}

// DefaultPasswords are OWASP's argon2id parameters (19 MiB, 2 passes):
// about 30 ms per sign-in on one core of this machine.
var DefaultPasswords = Passwords{Time: 2, MemoryKiB: 19 * 1024, Threads: 1}

// Password length limits: long enough to resist guessing, short enough that
// hashing stays cheap.
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// ValidatePassword returns an invalid fault for the owner when pw is
// unacceptable.
func ValidatePassword(pw string) error {
	switch n := len([]rune(pw)); {
	case n < MinPasswordLen:
		return fault.Invalid("password", "use a password of at least %d characters", MinPasswordLen)
	case len(pw) > MaxPasswordLen:
		return fault.Invalid("password", "use a password of at most %d bytes", MaxPasswordLen)
	}
	return nil
}

// Hash returns the PHC string of password under a fresh salt. It costs
// MemoryKiB of memory while it runs: Service runs it in its password budget.
func (p Passwords) Hash(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return p.phc(salt, argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, 32)), nil
}

// dummy returns a hash under p's parameters that no password matches (its
// sum is random): checking a password against it costs what checking one
// against a real hash does, for the emails that have no account.
func (p Passwords) dummy() string {
	b := make([]byte, 48)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return p.phc(b[:16], b[16:])
}

func (p Passwords) phc(salt, sum []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(sum))
}

var errBadHash = errors.New("malformed password hash")

// CheckPassword reports whether password matches the PHC string hash, in
// constant time. It costs the hash's memory parameter while it runs:
// Service runs it in its password budget.
func CheckPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var p Passwords
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want))) //nolint:gosec // G115: the stored hash's length, 32 bytes as hashPassword writes it
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
