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
)

// signerFile and retiredDir live under the keys directory. Rotation: move
// signer.ed25519 into retired/ and restart; tokens signed by the old key keep
// verifying until they expire.
const (
	signerFile = "signer.ed25519"
	retiredDir = "retired"
)

// LoadKeyring returns the keyring of a data directory. If seed (base64 of a
// 32-byte Ed25519 seed) is given, it signs; otherwise the key in
// dir/signer.ed25519 does, generated on first use. Concurrent first starts
// agree on one key.
func LoadKeyring(dir, seed string) (*Keyring, error) {
	var signer ed25519.PrivateKey
	if seed != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(seed))
		if err != nil || len(b) != ed25519.SeedSize {
			return nil, errors.New("RECLAIM_SIGNING_KEY: want the base64 of a 32-byte Ed25519 seed")
		}
		signer = ed25519.NewKeyFromSeed(b)
	} else {
		b, err := LoadOrCreateSecret(filepath.Join(dir, signerFile), ed25519.SeedSize)
		if err != nil {
			return nil, err
		}
		signer = ed25519.NewKeyFromSeed(b)
	}
	var retired []ed25519.PublicKey
	entries, err := os.ReadDir(filepath.Join(dir, retiredDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read retired keys: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".ed25519") {
			continue
		}
		b, err := readSecret(filepath.Join(dir, retiredDir, e.Name()), ed25519.SeedSize)
		if err != nil {
			return nil, err
		}
		pub, _ := ed25519.NewKeyFromSeed(b).Public().(ed25519.PublicKey)
		retired = append(retired, pub)
	}
	return NewKeyring(signer, retired...), nil
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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-*")
	if err != nil {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(base64.StdEncoding.EncodeToString(fresh) + "\n"); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("install secret %s: %w", path, err)
	}
	return readSecret(path, n)
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
