package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage"
)

func keysDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "keys") }

// loadPepper returns the API keys' hash key: configured, or generated once
// in the data directory.
func loadPepper(cfg config.Config) ([]byte, error) {
	if cfg.APIKeyPepper != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cfg.APIKeyPepper))
		if err != nil || len(b) < 32 {
			return nil, errors.New("RECLAIM_API_KEY_PEPPER: want the base64 of at least 32 bytes")
		}
		return b, nil
	}
	return signing.LoadOrCreateSecret(filepath.Join(keysDir(cfg), "apikey-pepper"), 32)
}

// storeFlags are the flags every management command takes.
func storeFlags(name string, cfg *config.Config) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory (RECLAIM_DATA_DIR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "postgres:// URL (DATABASE_URL)")
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return usageError{fs.Name() + ": " + err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fs.Name() + ": unexpected argument " + fs.Arg(0)}
	}
	return nil
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	if err := parse(storeFlags("migrate", &cfg), args); err != nil {
		return err
	}
	store, err := storage.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	// serve would finish counting the ledger in the rollups in the
	// background; migrate waits for it.
	if err := store.WaitForRollups(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

func projectCreate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("project create", &cfg)
	name := fs.String("name", "", "project name (required)")
	wallet := fs.String("donation-wallet", "", "wallet receiving donations")
	ownerEmail := fs.String("owner", "", "console owner (email) who gets the project")
	if err := parse(fs, args); err != nil {
		return err
	}
	// The project's own rules, checked before anything is opened.
	if project.ValidateName(strings.TrimSpace(*name)) != nil {
		return usageError{"project create: --name is required (at most 100 characters)"}
	}
	if err := project.ValidateDonationWallet(strings.TrimSpace(*wallet)); err != nil {
		return usageError{"project create: --donation-wallet: " + err.Error()}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	var p project.Project
	if *ownerEmail != "" {
		o, err := e.owners.OwnerByEmail(ctx, *ownerEmail)
		if errors.Is(err, owner.ErrNoAccount) {
			return fmt.Errorf("project create: --owner: no console owner %q (create one with reclaim owner create)", *ownerEmail)
		}
		if err != nil {
			return err
		}
		p, err = e.owners.CreateProject(ctx, o, *name, *wallet)
		if err != nil {
			return err
		}
	} else if p, err = e.projects.Create(ctx, *name, *wallet); err != nil {
		return err
	}
	fmt.Fprintln(stdout, p.ID)
	return nil
}

// projectShare gives a console owner a role in a project.
func projectShare(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("project share", &cfg)
	projectID := fs.String("project", "", "project id (required)")
	email := fs.String("email", "", "the console owner's email (required)")
	role := fs.String("role", string(owner.RoleViewer), "owner (manages keys and settings) or viewer (reads)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *projectID == "" || *email == "" {
		return usageError{"project share: --project and --email are required"}
	}
	if !owner.ValidRole(owner.Role(*role)) {
		return usageError{"project share: --role must be owner or viewer"}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	_, err = e.owners.Share(ctx, *projectID, *email, owner.Role(*role))
	invalid, isInvalid := fault.As(err, fault.KindInvalid)
	switch {
	case isInvalid:
		return usageError{"project share: --" + invalid.Param() + ": " + invalid.Error()}
	case errors.Is(err, owner.ErrNoAccount):
		return fmt.Errorf("project share: no console owner %q (create one with reclaim owner create)", *email)
	case errors.Is(err, owner.ErrConflict):
		return fmt.Errorf("project share: %s is already a member of %s", *email, *projectID)
	case errors.Is(err, project.ErrNotFound):
		return fmt.Errorf("project share: no project %q", *projectID)
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "%s is now %s of %s\n", *email, *role, *projectID)
	return nil
}

func apikeyCreate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("apikey create", &cfg)
	projectID := fs.String("project", "", "project id (required)")
	name := fs.String("name", "default", "a label for the key")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *projectID == "" {
		return usageError{"apikey create: --project is required"}
	}
	if err := project.ValidateName(strings.TrimSpace(*name)); err != nil {
		return usageError{"apikey create: --name: " + err.Error()}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	key, _, err := e.projects.CreateKey(ctx, *projectID, *name)
	if errors.Is(err, project.ErrNotFound) {
		return fmt.Errorf("apikey create: no project %q", *projectID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, key)
	return nil
}

func apikeyRevoke(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("apikey revoke", &cfg)
	key := fs.String("key", "", "the API key to revoke (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *key == "" {
		return usageError{"apikey revoke: --key is required"}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	k, err := e.projects.RevokeKey(ctx, *key)
	if errors.Is(err, project.ErrNotFound) {
		return errors.New("apikey revoke: no such key")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %s (%s...)\n", k.ID, k.Prefix)
	return nil
}
