package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// newConsole wires the admin console (admin/) over the opened environment;
// RECLAIM_CLUSTER picks the block explorer's cluster, RECLAIM_EXPLORER_URL
// another explorer, RECLAIM_SECURE_COOKIES (or the listen address) its
// cookies' Secure flag and HSTS, RECLAIM_TRUSTED_PROXIES whom it asks for a
// client's address.
func newConsole(cfg config.Config, e *env, log *slog.Logger) (http.Handler, error) {
	return newConsoleFor(cfg, e, log, cfg.Cluster)
}

func newConsoleFor(cfg config.Config, e *env, log *slog.Logger, cluster string) (http.Handler, error) {
	explorer, err := admin.NewExplorer(cluster, cfg.ExplorerURL, cfg.SolanaRPCURL)
	if err != nil {
		return nil, err
	}
	o := e.owners
	return admin.New(admin.Deps{
		Accounts: o, FormTokens: o, Sessions: o, Projects: o, Settings: o, Keys: e.projects, KeyChanges: o,
		Members: o, MemberChanges: o, Origins: e.projects, OriginChanges: o, Audit: o, Webhooks: e.webhooks, WebhookChanges: o, Ledger: ledger.NewService(e.rooms.rankings), History: e.rooms.rankings,
		Quotas:        consoleQuotas{cfg: cfg, e: e},
		Explorer:      explorer,
		AllowSignup:   cfg.AllowSignup,
		SecureCookies: cfg.SecureCookiesOn(cfg.Addr),
		FormKey:       e.formKey,
		ClientIP:      clientip.New(cfg.TrustedProxies),
		Now:           time.Now,
		Log:           log,
		DBTimeout:     cfg.DBTimeout,
	}), nil
}

// ownerCreate creates a console owner; the password comes on stdin (its
// first line), never on the command line where ps would show it.
func ownerCreate(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("owner create", &cfg)
	email := fs.String("email", "", "the owner's email (required); the password is read from stdin")
	if err := parse(fs, args); err != nil {
		return err
	}
	*email = strings.TrimSpace(*email)
	if err := owner.ValidateEmail(*email); err != nil {
		return usageError{"owner create: --email: " + err.Error()}
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("owner create: read password: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	if err := owner.ValidatePassword(password); err != nil {
		return usageError{"owner create: password on stdin: " + err.Error()}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	o, err := e.owners.CreateOwner(ctx, *email, password)
	if errors.Is(err, owner.ErrConflict) {
		return fmt.Errorf("owner create: an owner with email %s exists already", *email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, o.ID)
	return nil
}
