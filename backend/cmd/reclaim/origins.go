package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// projectOrigin adds (or with --remove, removes) a browser origin of a
// project, as its console Settings page does, and prints it as stored.
func projectOrigin(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("project origin", &cfg)
	projectID := fs.String("project", "", "project id (required)")
	origin := fs.String("origin", "", "browser origin, scheme://host[:port] (required)")
	remove := fs.Bool("remove", false, "remove the origin instead of adding it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *projectID == "" || *origin == "" {
		return usageError{"project origin: --project and --origin are required"}
	}
	if !*remove {
		if _, err := project.ValidateOrigin(*origin); err != nil {
			return usageError{"project origin: --origin: " + err.Error()}
		}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	if *remove {
		norm, err := e.projects.RemoveOrigin(ctx, *projectID, *origin)
		if errors.Is(err, project.ErrNotFound) {
			return fmt.Errorf("project origin: project %s does not list %s", *projectID, *origin)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, norm)
		return nil
	}
	o, err := e.projects.AddOrigin(ctx, *projectID, *origin)
	switch {
	case errors.Is(err, project.ErrNotFound):
		return fmt.Errorf("project origin: no project %s", *projectID)
	case errors.Is(err, project.ErrConflict):
		return fmt.Errorf("project origin: project %s lists %s already", *projectID, *origin)
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, o.Origin)
	return nil
}
