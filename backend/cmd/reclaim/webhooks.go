package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
)

// eventFlags collects repeated --event flags.
type eventFlags []string

func (e *eventFlags) String() string { return strings.Join(*e, ",") }

func (e *eventFlags) Set(v string) error {
	*e = append(*e, v)
	return nil
}

// webhooksCommand manages a project's webhook endpoints as its console
// Webhooks page does: add (prints the endpoint's id and its signing secret,
// shown once), list, remove, rotate-secret, and deliveries (an endpoint's
// latest 100).
func webhooksCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"webhooks: want add, list, remove, rotate-secret or deliveries\n" + usage}
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	verb := args[0]
	fs := storeFlags("webhooks "+verb, &cfg)
	projectID := fs.String("project", "", "project id (required)")
	var url, id *string
	var events eventFlags
	switch verb {
	case "add":
		url = fs.String("url", "", "the endpoint's https URL (required)")
		fs.Var(&events, "event", "an event type to receive (repeatable; none: every type but submission.landed, which is received only when named): "+strings.Join(webhook.Types, ", "))
		fs.BoolVar(&cfg.WebhookAllowInsecure, "allow-insecure", cfg.WebhookAllowInsecure, "allow http and private addresses (RECLAIM_WEBHOOK_ALLOW_INSECURE)")
	case "remove", "rotate-secret", "deliveries":
		id = fs.String("id", "", "endpoint id (required)")
	case "list":
	default:
		return usageError{"webhooks: unknown command " + verb + "\n" + usage}
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if err := required(fs, *projectID, url, id); err != nil {
		return err
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	switch verb {
	case "add":
		ep, secret, err := e.webhooks.Add(ctx, *projectID, *url, events)
		if err != nil {
			return fmt.Errorf("webhooks add: %w%s", err, insecureHint(cfg.WebhookAllowInsecure, *url))
		}
		fmt.Fprintf(stdout, "%s\n%s\n", ep.ID, secret)
	case "list":
		eps, err := e.webhooks.List(ctx, *projectID)
		if err != nil {
			return fmt.Errorf("webhooks list: %w", err)
		}
		printEndpoints(stdout, eps)
	case "remove":
		ep, err := e.webhooks.Remove(ctx, *projectID, *id)
		if err != nil {
			return fmt.Errorf("webhooks remove: %w", err)
		}
		fmt.Fprintln(stdout, ep.ID)
	case "deliveries":
		ds, err := e.webhooks.Deliveries(ctx, *projectID, *id, 100)
		if err != nil {
			return fmt.Errorf("webhooks deliveries: %w", err)
		}
		printDeliveries(stdout, ds)
	case "rotate-secret":
		_, secret, err := e.webhooks.RotateSecret(ctx, *projectID, *id)
		if err != nil {
			return fmt.Errorf("webhooks rotate-secret: %w", err)
		}
		fmt.Fprintln(stdout, secret)
	}
	return nil
}

// insecureHint says where the setting lives when a URL was refused only for
// being http or private: this command checks the URL itself, so it needs
// the setting as much as the server that delivers does.
func insecureHint(insecure bool, url string) string {
	if insecure {
		return ""
	}
	if _, err := webhook.CheckURL(url, true); err != nil {
		return ""
	}
	return "; reclaim webhooks add checks the URL itself: for a local receiver run it with --allow-insecure " +
		"(or RECLAIM_WEBHOOK_ALLOW_INSECURE=1), and the server that delivers needs the same: make run allows it " +
		"on its own (a loopback-only stack), reclaim serve needs RECLAIM_WEBHOOK_ALLOW_INSECURE=1"
}

// required refuses a command missing --project, or --url or --id where it
// takes one.
func required(fs *flag.FlagSet, projectID string, url, id *string) error {
	switch {
	case projectID == "":
		return usageError{fs.Name() + ": --project is required"}
	case url != nil && *url == "":
		return usageError{fs.Name() + ": --url is required"}
	case id != nil && *id == "":
		return usageError{fs.Name() + ": --id is required"}
	}
	return nil
}

// printEndpoints lists endpoints: id, URL without its query, events, state.
func printEndpoints(w io.Writer, eps []webhook.Endpoint) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tEVENTS\tSTATE")
	for _, ep := range eps {
		events := "all"
		if len(ep.Events) > 0 {
			events = strings.Join(ep.Events, ",")
		}
		state := "enabled"
		if ep.DisabledAt != nil {
			state = "disabled " + ep.DisabledAt.UTC().Format(time.RFC3339) + ": " + ep.DisabledReason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ep.ID, webhook.Redacted(ep.URL), events, state)
	}
	_ = tw.Flush()
}

// printDeliveries lists deliveries, newest first: id, event id, type,
// state, attempts, the last attempt's status and latency.
func printDeliveries(w io.Writer, ds []webhook.Delivery) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEVENT\tTYPE\tSTATE\tATTEMPTS\tLAST STATUS\tLATENCY\tERROR")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", d.ID, d.EventID, d.Type, d.State, d.Attempts, d.Last.Status, d.Last.Latency.Round(time.Millisecond), d.Last.Error)
	}
	_ = tw.Flush()
}
