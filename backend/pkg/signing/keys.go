package signing

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The keys directory holds, when the environment does not give them:
//
//	signer.ed25519    the key that signs (a base64 seed), generated on first use
//	next.ed25519      the next signer, accepted but not signing yet (a seed)
//	retired/KID.pub   a retired key: "PUBLIC@RETIRED" (base64 public key, RFC 3339 time)
//
// A seed in retired/*.ed25519, as keys were retired before they recorded
// when, counts as retired when its file was last modified.
const (
	signerFile = "signer.ed25519"
	nextFile   = "next.ed25519"
	retiredDir = "retired"
)

// The settings that give keys in the environment (backend/config reads them).
const (
	SignerSetting  = "RECLAIM_SIGNING_KEY"
	NextSetting    = "RECLAIM_NEXT_SIGNING_KEY"
	RetiredSetting = "RECLAIM_RETIRED_SIGNING_KEYS"
)

// Settings are the keys given in the environment. The signer, when given,
// replaces the keys directory's; the next and retired keys add to its.
type Settings struct {
	// Signer is the base64 Ed25519 seed that signs (RECLAIM_SIGNING_KEY).
	Signer string
	// Next is the base64 seed of the key that signs after the next
	// rotation, accepted meanwhile (RECLAIM_NEXT_SIGNING_KEY).
	Next string
	// Retired lists retired keys, comma-separated, each PUBLIC@RETIRED
	// (RECLAIM_RETIRED_SIGNING_KEYS; see ParseRetired).
	Retired string
}

// LoadKeyring returns the keyring of a keys directory and the settings: the
// signer is s.Signer or, without it, dir/signer.ed25519, generated on first
// use (concurrent first starts agree on one key); the next and retired keys
// of both are accepted.
func LoadKeyring(dir string, s Settings) (*Keyring, error) {
	var signer ed25519.PrivateKey
	if s.Signer != "" {
		seed, err := parseSeed(SignerSetting, s.Signer)
		if err != nil {
			return nil, err
		}
		signer = ed25519.NewKeyFromSeed(seed)
	} else {
		seed, err := LoadOrCreateSecret(filepath.Join(dir, signerFile), ed25519.SeedSize)
		if err != nil {
			return nil, err
		}
		signer = ed25519.NewKeyFromSeed(seed)
	}
	accepted, err := ParseRetired(s.Retired)
	if err != nil {
		return nil, err
	}
	if s.Next != "" {
		seed, err := parseSeed(NextSetting, s.Next)
		if err != nil {
			return nil, err
		}
		accepted = append(accepted, Accepted{Public: publicOf(seed)})
	}
	fromDir, err := loadAccepted(dir)
	if err != nil {
		return nil, err
	}
	return NewKeyring(signer, append(accepted, fromDir...)...), nil
}

// loadAccepted reads the next and retired keys of a keys directory.
func loadAccepted(dir string) ([]Accepted, error) {
	var out []Accepted
	seed, err := readSecret(filepath.Join(dir, nextFile), ed25519.SeedSize)
	switch {
	case err == nil:
		out = append(out, Accepted{Public: publicOf(seed)})
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, retiredDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read retired keys: %w", err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, retiredDir, e.Name())
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".pub"):
			raw, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			a, err := parseRetiredEntry(strings.TrimSpace(string(raw)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, a)
		case strings.HasSuffix(e.Name(), ".ed25519"):
			seed, err := readSecret(path, ed25519.SeedSize)
			if err != nil {
				return nil, err
			}
			info, err := e.Info()
			if err != nil {
				return nil, err
			}
			out = append(out, Accepted{Public: publicOf(seed), RetiredAt: info.ModTime()})
		}
	}
	return out, nil
}

// ParseRetired reads a list of retired keys (RECLAIM_RETIRED_SIGNING_KEYS):
// entries separated by commas, each the standard base64 of an Ed25519
// public key, "@", and the RFC 3339 time the key stopped signing.
func ParseRetired(list string) ([]Accepted, error) {
	var out []Accepted
	for i, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		a, err := parseRetiredEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("%s, entry %d: %w", RetiredSetting, i+1, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// parseRetiredEntry reads PUBLIC@RETIRED. Its errors never quote the
// entry: a seed put there by mistake is a secret.
func parseRetiredEntry(entry string) (Accepted, error) {
	pub, at, ok := strings.Cut(entry, "@")
	if !ok {
		return Accepted{}, errors.New("want PUBLIC_KEY@RETIRED_AT (the base64 of an Ed25519 public key, @, an RFC 3339 time)")
	}
	b, err := base64.StdEncoding.DecodeString(pub)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return Accepted{}, errors.New("want the base64 of a 32-byte Ed25519 public key before @")
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return Accepted{}, errors.New("want an RFC 3339 time after @, like 2026-05-01T12:00:00Z")
	}
	return Accepted{Public: ed25519.PublicKey(b), RetiredAt: t}, nil
}

// String returns a retired key as an entry of RECLAIM_RETIRED_SIGNING_KEYS.
func (a Accepted) String() string {
	return base64.StdEncoding.EncodeToString(a.Public) + "@" + a.RetiredAt.UTC().Format(time.RFC3339)
}

func parseSeed(setting, v string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: want the base64 of a 32-byte Ed25519 seed", setting)
	}
	return b, nil
}

func publicOf(seed []byte) ed25519.PublicKey {
	pub, _ := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	return pub
}

// LoadOrCreateSecret reads a base64 secret of n bytes from path, creating it
// (mode 0600) with random bytes if it does not exist. When two processes
// create it at once, both end up with the one that was linked first.
func LoadOrCreateSecret(path string, n int) ([]byte, error) {
	b, err := readSecret(path, n)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	fresh := make([]byte, n)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	tmp, err := writeTemp(filepath.Dir(path), base64.StdEncoding.EncodeToString(fresh)+"\n")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("install secret %s: %w", path, err)
	}
	return readSecret(path, n)
}

// writeTemp writes content to a new file (mode 0600) in dir and returns its
// path, for a link or rename to install.
func writeTemp(dir, content string) (string, error) {
	tmp, err := os.CreateTemp(dir, ".secret-*")
	if err != nil {
		return "", fmt.Errorf("create secret: %w", err)
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write secret: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

func readSecret(path string, n int) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(b) != n {
		return nil, fmt.Errorf("%s: want the base64 of %d bytes", path, n)
	}
	return b, nil
}
