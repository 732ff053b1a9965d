package mcp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
)

// ProtectedResourcePath is where /mcp's protected-resource metadata (RFC
// 9728) is served, and ProtectedResourcePath+Path the form with the
// resource's path the RFC also defines: agents (the MCP Inspector, the
// SDKs' clients) read it after a 401 to learn how to authenticate.
const ProtectedResourcePath = "/.well-known/oauth-protected-resource"

// resourceMetadata is /mcp's protected-resource metadata: the resource
// (/mcp's URL) and the authorization servers an operator put in front
// (none: the credentials are the API's own, an API key or a session token
// as a bearer, which no OAuth server issues).
type resourceMetadata struct {
	// resource is /mcp's public URL ("": the URL each request reached).
	resource string
	servers  []string
	// docs is the path of the agents' documentation on the API's host.
	docs string
}

// resourceURL is /mcp's URL as r reached this server: the configured one,
// or r's host, over https when r came over TLS or through a proxy that
// says so (X-Forwarded-Proto; a client lying there misleads only itself).
func (m resourceMetadata) resourceURL(r *http.Request) string {
	if m.resource != "" {
		return m.resource
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: r.Host, Path: Path}).String()
}

// metadataURL is where r's client reads the metadata of /mcp: the form
// with the resource's path (RFC 9728 section 3.1).
func (m resourceMetadata) metadataURL(r *http.Request) string {
	u, err := url.Parse(m.resourceURL(r))
	if err != nil {
		return ProtectedResourcePath + Path
	}
	u.Path = ProtectedResourcePath + u.Path
	return u.String()
}

// challenge is the WWW-Authenticate header of a 401 from /mcp: Bearer,
// pointing to the metadata (RFC 9728 section 5.1).
func (m resourceMetadata) challenge(r *http.Request) string {
	return `Bearer realm="reclaim", resource_metadata=` + quoteString(m.metadataURL(r))
}

// quoteString is v as an HTTP quoted-string.
func quoteString(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// serve answers GET and HEAD of the metadata, after the client address's
// bucket, with the REST error body for anything else; CORS lets any page
// read it, as the OpenAPI document (a public document).
func (m resourceMetadata) serve(g *gateway.AuthInterceptor) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if err := g.SpendAddress(r, h); err != nil {
			writeError(w, err)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			gateway.NewRESTError(http.StatusMethodNotAllowed, gateway.CodeForStatus(http.StatusMethodNotAllowed),
				r.Method+" "+r.URL.Path+" is not allowed: GET it", "").Write(w)
			return
		}
		// Strings and lists of strings: it marshals.
		body, _ := json.Marshal(oauthex.ProtectedResourceMetadata{
			Resource: m.resourceURL(r), AuthorizationServers: m.servers, BearerMethodsSupported: []string{"header"},
			ResourceName: "Reclaim MCP", ResourceDocumentation: strings.TrimSuffix(m.resourceURL(r), Path) + m.docs,
		})
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache")
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}
