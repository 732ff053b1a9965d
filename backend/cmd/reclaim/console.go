package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// newConsole wires the admin console (admin/) over the opened environment.
func newConsole(cfg config.Config, e *env, log *slog.Logger) (http.Handler, error) {
	return nil, nil
}

// ownerCreate creates a console owner; the password comes on stdin.
func ownerCreate(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	return errors.New("owner create: the console is not built yet")
}
