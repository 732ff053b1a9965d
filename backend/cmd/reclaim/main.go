// Command reclaim is the Reclaim service: the API server and the commands
// that manage its projects, API keys and console owners.
//
//	reclaim serve                      run the API server (the default)
//	reclaim dev                        the whole local stack (make run): the local validator, the demo, the server
//	reclaim migrate                    apply database migrations
//	reclaim project create --name N [--donation-wallet ADDR] [--owner EMAIL]
//	reclaim project share --project ID --email EMAIL [--role owner|viewer]
//	reclaim project origin --project ID --origin URL [--remove]
//	reclaim apikey create --project ID [--name N]
//	reclaim apikey revoke --key KEY
//	reclaim owner create --email E     (password on stdin)
//	reclaim keys rotate [--prepare] [--grace D]
//	reclaim demo                       a demo wallet, project and key on the local validator
//
// The management commands and the admin console go through the same domain
// services (project.Service, owner.Service), so they keep the same rules.
//
// Configuration comes from the environment (see backend/config); `serve`
// also takes every setting as a flag.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop() // before os.Exit, which runs no deferred calls
	if err != nil {
		// An error may quote a URL setting (a database or Redis URL that does
		// not parse): its scheme and host alone.
		fmt.Fprintln(os.Stderr, "reclaim:", redact.Error(err))
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `usage:
  reclaim serve [flags]                 run the API server
  reclaim dev [flags]                   the whole local stack (make run): unless SOLANA_RPC_URL is set, the
                                        local validator on VALIDATOR_PORT, the demo (data/demo.json), the server
  reclaim migrate                       apply database migrations
  reclaim project create --name N [--donation-wallet ADDR] [--owner EMAIL]
  reclaim project share --project ID --email EMAIL [--role owner|viewer]
  reclaim project origin --project ID --origin URL [--remove]   (a browser origin allowed to use its sessions)
  reclaim project limits --project ID [--rps N --burst N | --default]   shows, sets or resets its quota
  reclaim webhooks add --project ID --url URL [--event TYPE ...]   prints the endpoint's id and its secret
  reclaim webhooks list --project ID
  reclaim webhooks remove --project ID --id ID
  reclaim webhooks rotate-secret --project ID --id ID   the old secret signs too for 24 h
  reclaim webhooks deliveries --project ID --id ID      its latest 100 deliveries
  reclaim apikey create --project ID [--name N]
  reclaim apikey revoke --key KEY
  reclaim owner create --email E        (password on stdin)
  reclaim keys rotate --prepare         a next signing key, accepted once the instances restart
  reclaim keys rotate [--grace 10m]     the next (or a new) key signs; the old one retires after the grace
  reclaim demo [--origin URL]           on the local validator: a wallet with reclaimable items,
                                        a project, an API key; writes demo.json to the data dir`

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "dev":
		return dev(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stdout)
	case "project":
		if len(args) > 1 && args[1] == "create" {
			return projectCreate(ctx, args[2:], getenv, stdout)
		}
		if len(args) > 1 && args[1] == "share" {
			return projectShare(ctx, args[2:], getenv, stdout)
		}
		if len(args) > 1 && args[1] == "origin" {
			return projectOrigin(ctx, args[2:], getenv, stdout)
		}
		if len(args) > 1 && args[1] == "limits" {
			return projectLimits(ctx, args[2:], getenv, stdout)
		}
	case "apikey":
		if len(args) > 1 && args[1] == "create" {
			return apikeyCreate(ctx, args[2:], getenv, stdout)
		}
		if len(args) > 1 && args[1] == "revoke" {
			return apikeyRevoke(ctx, args[2:], getenv, stdout)
		}
	case "owner":
		if len(args) > 1 && args[1] == "create" {
			return ownerCreate(ctx, args[2:], getenv, stdin, stdout)
		}
	case "keys":
		if len(args) > 1 && args[1] == "rotate" {
			return keysRotate(args[2:], getenv, stdout, time.Now())
		}
	case "webhooks":
		return webhooksCommand(ctx, args[1:], getenv, stdout)
	case "demo":
		return demo(ctx, args[1:], getenv, stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usageError{"unknown command " + fmt.Sprint(args) + "\n" + usage}
}
