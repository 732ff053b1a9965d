package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// openAPIPath serves the OpenAPI document of the REST API.
const openAPIPath = "/v1/openapi.json"

// Requirement returns the credentials an operation accepts, by Connect
// procedure (/reclaim.v1.Service/Method): the OpenAPI document's security
// comes from it (backend/cmd/openapifix).
func Requirement(procedure string) (auth.Requirement, bool) { return gateway.Requirement(procedure) }

//go:embed docs/index.html docs/rapidoc-min.js
var docsFiles embed.FS

// asset is a file served with its ETag, gzipped for clients that accept it.
type asset struct {
	contentType string
	body        []byte
	etag        string
	once        sync.Once
	gz          []byte
}

func newAsset(contentType string, body []byte) *asset {
	sum := sha256.Sum256(body)
	return &asset{contentType: contentType, body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

func (a *asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache") // revalidated: the ETag changes with each release
	h.Set("ETag", a.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		a.once.Do(func() {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(a.body)
			_ = zw.Close()
			a.gz = buf.Bytes()
		})
		body = a.gz
		h.Set("Content-Encoding", "gzip")
	}
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// docsCSP lets the reference page load only this server's script, styles
// it sets itself, and the document (it has no "try" buttons).
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// addDocs serves the OpenAPI document and the API reference page built on
// it (RapiDoc, vendored in docs/: no request leaves this server).
func addDocs(mux *http.ServeMux) {
	mux.Handle("GET "+openAPIPath, newAsset("application/json", openapi.Document))
	page, _ := fs.ReadFile(docsFiles, "docs/index.html")
	script, _ := fs.ReadFile(docsFiles, "docs/rapidoc-min.js")
	index := newAsset("text/html; charset=utf-8", page)
	mux.Handle("GET /docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", docsCSP)
		w.Header().Set("Referrer-Policy", "no-referrer")
		index.ServeHTTP(w, r)
	}))
	mux.Handle("GET /docs/{$}", http.RedirectHandler("/docs", http.StatusMovedPermanently))
	mux.Handle("GET /docs/rapidoc-min.js", newAsset("text/javascript; charset=utf-8", script))
}
