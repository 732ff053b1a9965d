package signing

import (
	"bytes"
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

// A rotation happens in two steps, so that instances that restart one by
// one never refuse each other's tokens:
//
//  1. Prepare: a next key exists; every instance started after it accepts
//     its tokens, none signs with it.
//  2. Rotate: the next key signs; the old signer is retired at a time no
//     earlier than when the last instance stops signing with it (its tokens
//     issued before then stay good for their lifetime, later ones are
//     refused).
//
// A single instance may skip step 1: Rotate makes a next key if none was
// prepared.

// Rotation is what Rotate did.
type Rotation struct {
	// Signer is the id of the key that signs from now on.
	Signer string
	// Retired is the former signer and its retirement time.
	Retired Accepted
	// Forgotten counts the retired keys dropped because every token they
	// signed had expired.
	Forgotten int
}

// Prepare makes the keys directory's next key, unless it has one, and
// returns its id.
func Prepare(dir string) (string, error) {
	seed, err := LoadOrCreateSecret(filepath.Join(dir, nextFile), ed25519.SeedSize)
	if err != nil {
		return "", err
	}
	return KeyID(publicOf(seed)), nil
}

// Rotate makes the keys directory's next key (a new one if none was
// prepared) its signer and retires the signer at retireAt. Retired keys
// that retired before forgetBefore are deleted. Running instances go on
// with the keys they loaded until they restart.
func Rotate(dir string, retireAt, forgetBefore time.Time) (Rotation, error) {
	signerPath, nextPath := filepath.Join(dir, signerFile), filepath.Join(dir, nextFile)
	old, err := readSecret(signerPath, ed25519.SeedSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Rotation{}, fmt.Errorf("no signing key in %s to rotate (with %s set, rotate that setting instead)", dir, SignerSetting)
	}
	if err != nil {
		return Rotation{}, err
	}
	next, err := readSecret(nextPath, ed25519.SeedSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		next = nil
	case err != nil:
		return Rotation{}, err
	case bytes.Equal(next, old):
		return Rotation{}, fmt.Errorf("%s is the signing key already; delete it and rotate again", nextPath)
	}
	rot := Rotation{Retired: Accepted{Public: publicOf(old), RetiredAt: wholeSecond(retireAt)}}
	// The retirement is recorded first: until the switch below the key is
	// still the signer, whose own entry wins over a retired one.
	if rot.Forgotten, err = forgetRetired(dir, forgetBefore); err != nil {
		return Rotation{}, err
	}
	if err := writeRetired(dir, rot.Retired); err != nil {
		return Rotation{}, err
	}
	if next == nil {
		if next, err = freshSeed(); err != nil {
			return Rotation{}, err
		}
		tmp, err := writeTemp(dir, base64.StdEncoding.EncodeToString(next)+"\n")
		if err != nil {
			return Rotation{}, err
		}
		nextPath = tmp
	}
	// One rename replaces the signer and removes the next key together.
	if err := os.Rename(nextPath, signerPath); err != nil {
		os.Remove(nextPath)
		return Rotation{}, fmt.Errorf("install the new signing key: %w", err)
	}
	rot.Signer = KeyID(publicOf(next))
	return rot, nil
}

func writeRetired(dir string, a Accepted) error {
	rdir := filepath.Join(dir, retiredDir)
	if err := os.MkdirAll(rdir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", rdir, err)
	}
	tmp, err := writeTemp(rdir, a.String()+"\n")
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(rdir, a.KeyID()+".pub")); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record the retired key: %w", err)
	}
	return nil
}

// forgetRetired deletes the retired/*.pub entries retired before before.
func forgetRetired(dir string, before time.Time) (int, error) {
	rdir := filepath.Join(dir, retiredDir)
	entries, err := os.ReadDir(rdir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".pub") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(rdir, e.Name()))
		if err != nil {
			return n, err
		}
		a, err := parseRetiredEntry(strings.TrimSpace(string(raw)))
		if err != nil || !a.RetiredAt.Before(before) {
			continue // a bad entry is LoadKeyring's to report
		}
		if err := os.Remove(filepath.Join(rdir, e.Name())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Prepare returns s with a new next key (RECLAIM_NEXT_SIGNING_KEY) and its
// id. s must give the signer, and no next key yet.
func (s Settings) Prepare() (Settings, string, error) {
	if s.Signer == "" {
		return s, "", fmt.Errorf("%s is not set: the keys are in the data directory", SignerSetting)
	}
	if s.Next != "" {
		return s, "", fmt.Errorf("%s is set already: a next key is prepared; rotate to it", NextSetting)
	}
	seed, err := freshSeed()
	if err != nil {
		return s, "", err
	}
	s.Next = base64.StdEncoding.EncodeToString(seed)
	return s, KeyID(publicOf(seed)), nil
}

// Rotate returns the settings after a rotation: the next key (a new one
// if s has none) signs, the signer is retired at retireAt, and the retired
// keys that retired before forgetBefore are dropped.
func (s Settings) Rotate(retireAt, forgetBefore time.Time) (Settings, Rotation, error) {
	if s.Signer == "" {
		return s, Rotation{}, fmt.Errorf("%s is not set: the keys are in the data directory", SignerSetting)
	}
	old, err := parseSeed(SignerSetting, s.Signer)
	if err != nil {
		return s, Rotation{}, err
	}
	retired, err := ParseRetired(s.Retired)
	if err != nil {
		return s, Rotation{}, err
	}
	var next []byte
	if s.Next == "" {
		next, err = freshSeed()
	} else {
		next, err = parseSeed(NextSetting, s.Next)
	}
	if err != nil {
		return s, Rotation{}, err
	}
	if bytes.Equal(next, old) {
		return s, Rotation{}, fmt.Errorf("%s equals %s: the rotation to it was done; clear %s", NextSetting, SignerSetting, NextSetting)
	}
	rot := Rotation{Signer: KeyID(publicOf(next)), Retired: Accepted{Public: publicOf(old), RetiredAt: wholeSecond(retireAt)}}
	var kept []string
	for _, a := range retired {
		if a.KeyID() == rot.Retired.KeyID() {
			continue // retired again: the new entry replaces it
		}
		if a.RetiredAt.Before(forgetBefore) {
			rot.Forgotten++
			continue
		}
		kept = append(kept, a.String())
	}
	return Settings{
		Signer:  base64.StdEncoding.EncodeToString(next),
		Retired: strings.Join(append(kept, rot.Retired.String()), ","),
	}, rot, nil
}

// wholeSecond rounds a retirement time up to the second, as it is written
// and as tokens' iat are: a token issued in the second a key retires is
// accepted rather than refused early.
func wholeSecond(t time.Time) time.Time {
	if w := t.UTC().Truncate(time.Second); !w.Equal(t) {
		return w.Add(time.Second)
	}
	return t.UTC()
}

func freshSeed() ([]byte, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	return seed, nil
}
