package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// defaultGrace is how long after `reclaim keys rotate` the old key retires:
// the time to restart every instance with the new key. Until then the old
// key's tokens are accepted as before; its last expire a lifetime later.
const defaultGrace = 10 * time.Minute

// longestLife is the longest life of any token: a retired key is forgotten
// once its retirement is this (and the clock skew) in the past.
var longestLife = max(auth.MaxSessionTTL, ticket.MaxTTL)

// keysRotate is `reclaim keys rotate`: with --prepare, the first step of a
// rotation (a next key, accepted, not signing); without, the second (the
// next key, or a new one, signs; the signer retires after --grace). Keys
// in the data directory are rotated in place; keys given in the environment
// (RECLAIM_SIGNING_KEY) are printed as the settings to give every instance.
func keysRotate(args []string, getenv func(string) string, stdout io.Writer, now time.Time) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("keys rotate", flag.ContinueOnError)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory (RECLAIM_DATA_DIR)")
	prepare := fs.Bool("prepare", false, "only make the next key, which instances accept once restarted")
	grace := fs.Duration("grace", defaultGrace, "the old key retires this long from now: restart every instance within it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *grace < 0 {
		return usageError{"keys rotate: --grace must not be negative"}
	}
	retireAt, forgetBefore := now.Add(*grace), now.Add(-longestLife-signing.MaxClockSkew)
	if cfg.SigningKey == "" {
		return rotateDataDir(keysDir(cfg), *prepare, retireAt, forgetBefore, stdout)
	}
	return rotateSettings(cfg.Keys(), *prepare, retireAt, forgetBefore, stdout)
}

func rotateDataDir(dir string, prepare bool, retireAt, forgetBefore time.Time, stdout io.Writer) error {
	if prepare {
		id, err := signing.Prepare(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "next signing key %s is ready in %s: restart every instance, then run reclaim keys rotate\n", id, dir)
		return nil
	}
	rot, err := signing.Rotate(dir, retireAt, forgetBefore)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signing key %s signs once the instances restart; %s retires at %s: restart every instance before then\n",
		rot.Signer, rot.Retired.KeyID(), rot.Retired.RetiredAt.Format(time.RFC3339))
	return nil
}

// rotateSettings prints the settings of the rotation's step in the format
// of an environment file: the comments say what to do with them.
func rotateSettings(s signing.Settings, prepare bool, retireAt, forgetBefore time.Time, stdout io.Writer) error {
	if prepare {
		next, id, err := s.Prepare()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "# Step 1 of 2: add this setting to every instance, keeping %s as it is,\n", signing.SignerSetting)
		fmt.Fprintf(stdout, "# and restart them; then run reclaim keys rotate with it set. Next key: %s\n", id)
		fmt.Fprintf(stdout, "%s=%s\n", signing.NextSetting, next.Next)
		return nil
	}
	after, rot, err := s.Rotate(retireAt, forgetBefore)
	if err != nil {
		return err
	}
	if s.Next == "" {
		fmt.Fprintf(stdout, "# No %s was prepared: instances still on the old settings refuse the new\n", signing.NextSetting)
		fmt.Fprintln(stdout, "# key's tokens until they restart (with several instances, run --prepare first).")
	}
	fmt.Fprintf(stdout, "# Give every instance these settings and restart them all before %s,\n", rot.Retired.RetiredAt.Format(time.RFC3339))
	fmt.Fprintf(stdout, "# when key %s retires; key %s signs.\n", rot.Retired.KeyID(), rot.Signer)
	fmt.Fprintf(stdout, "%s=%s\n%s=\n%s=%s\n", signing.SignerSetting, after.Signer, signing.NextSetting, signing.RetiredSetting, after.Retired)
	return nil
}
