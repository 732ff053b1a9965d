package project

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// MaxOrigins is the most browser origins one project may list.
const MaxOrigins = 50

// ValidateOrigin checks a browser origin as a person typed it and returns it
// as browsers send it in the Origin header: scheme://host[:port], http or
// https, lowercase, without the scheme's default port; one trailing slash is
// forgiven, any other path, a query, a fragment, user info or a wildcard is
// refused.
func ValidateOrigin(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	s = strings.TrimSuffix(s, "/")
	bad := func(why string) (string, error) {
		return "", fault.Invalid("origin", "%q is not an origin (%s): write scheme://host[:port], such as https://app.example or http://localhost:5173", raw, why)
	}
	if s == "" {
		return bad("empty")
	}
	if strings.Contains(s, "*") {
		return bad("wildcards are not allowed: list each origin")
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("it does not parse as a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return bad("the scheme must be http or https")
	case u.Opaque != "" || u.Host == "":
		return bad("it has no host")
	case u.User != nil:
		return bad("it has user info")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.Contains(s, "#"):
		return bad("an origin has no path, query or fragment")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return bad("it has no host")
	}
	if strings.Contains(host, ":") {
		if net.ParseIP(host) == nil {
			return bad("the host is not an address")
		}
		host = "[" + host + "]"
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad("the port must be from 1 to 65535")
		}
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		} else {
			port = strconv.Itoa(n)
		}
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// Origin is a browser origin a project allows to call the API with its
// session tokens (CORS and the WebSocket stream).
type Origin struct {
	ProjectID string
	// Origin is normalized by ValidateOrigin.
	Origin    string
	CreatedAt time.Time
}

// OriginStore keeps the origins of projects. AddOrigin gives ErrConflict
// for an origin the project lists already and ErrNotFound for an unknown
// project; RemoveOrigin gives ErrNotFound for an origin it does not list.
type OriginStore interface {
	AddOrigin(ctx context.Context, o Origin) error
	RemoveOrigin(ctx context.Context, projectID, origin string) error
	// ListOrigins returns a project's origins, oldest first.
	ListOrigins(ctx context.Context, projectID string) ([]Origin, error)
	// AllOrigins returns every project's origins.
	AllOrigins(ctx context.Context) ([]Origin, error)
}

// Origins returns the origins project projectID allows, oldest first.
func (s *Service) Origins(ctx context.Context, projectID string) ([]Origin, error) {
	return s.store.ListOrigins(ctx, projectID)
}

// AllOrigins returns the origins of every project, for the API's CORS
// layer, which refreshes its copy every few seconds.
func (s *Service) AllOrigins(ctx context.Context) ([]Origin, error) {
	return s.store.AllOrigins(ctx)
}

// AddOrigin adds origin (checked and normalized by ValidateOrigin) to the
// origins of project projectID and returns it as stored. A project lists at
// most MaxOrigins; one listed already gives ErrConflict.
func (s *Service) AddOrigin(ctx context.Context, projectID, origin string) (Origin, error) {
	norm, err := ValidateOrigin(origin)
	if err != nil {
		return Origin{}, err
	}
	have, err := s.store.ListOrigins(ctx, projectID)
	if err != nil {
		return Origin{}, err
	}
	if len(have) >= MaxOrigins {
		return Origin{}, fault.Invalid("origin", "a project lists at most %d origins: remove one first", MaxOrigins)
	}
	o := Origin{ProjectID: projectID, Origin: norm, CreatedAt: s.now().UTC()}
	if err := s.store.AddOrigin(ctx, o); err != nil {
		return Origin{}, err
	}
	return o, nil
}

// RemoveOrigin removes origin (normalized as ValidateOrigin does when it
// can be) from the origins of project projectID and returns it as it was
// stored; one it does not list gives ErrNotFound.
func (s *Service) RemoveOrigin(ctx context.Context, projectID, origin string) (string, error) {
	norm, err := ValidateOrigin(origin)
	if err != nil {
		norm = strings.TrimSpace(origin)
	}
	return norm, s.store.RemoveOrigin(ctx, projectID, norm)
}
