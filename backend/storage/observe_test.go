package storage_test

import (
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func TestInFlightSummary(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		if n, oldest, err := s.InFlightSummary(ctx); err != nil || n != 0 || !oldest.IsZero() {
			t.Fatalf("empty ledger: %d %v %v", n, oldest, err)
		}
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		for i, jti := range []string{"a", "b", "c"} {
			e := claimEntry(p.ID, jti)
			e.CreatedAt = base.Add(time.Duration(i) * time.Minute)
			if err := s.ClaimTicket(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		for _, jti := range []string{"a", "b"} {
			if _, err := s.MarkSubmitted(ctx, jti); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.SetEntryStatus(ctx, "a", ledger.StatusExpired, "expired", base.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		n, oldest, err := s.InFlightSummary(ctx)
		if err != nil || n != 2 || !oldest.Equal(base.Add(time.Minute)) {
			t.Fatalf("in flight: %d, oldest %v, %v; want 2, %v", n, oldest, err, base.Add(time.Minute))
		}
	})
}

// Statements made within a span become spans, with placeholders where the
// values were; the others make none.
func TestTraceStatements(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	db, err := storage.Open(ctxT(t), "", t.TempDir(), storage.WithTracing(tp))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	s := storagetest.Rooms(db, storagetest.Options{})
	const secret = "correct horse battery staple"
	if _, err := s.CreateProject(ctxT(t), project.Project{Name: "untraced " + secret}); err != nil {
		t.Fatal(err)
	}
	if n := len(spans.GetSpans()); n != 0 {
		t.Fatalf("%d spans outside a traced operation", n)
	}
	ctx, parent := tp.Tracer("test").Start(ctxT(t), "request")
	if _, err := s.CreateProject(ctx, project.Project{Name: secret}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	got := spans.GetSpans()
	if len(got) < 2 {
		t.Fatalf("%d spans", len(got))
	}
	var statements []string
	for _, sp := range got[:len(got)-1] {
		if sp.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %s is not the request's child", sp.Name)
		}
		for _, a := range sp.Attributes {
			if strings.Contains(a.Value.String(), "horse") {
				t.Errorf("span %s: %s records a value: %q", sp.Name, a.Key, a.Value.String())
			}
			if a.Key == "db.statement" {
				statements = append(statements, a.Value.String())
			}
			if a.Key == "code.function" && !strings.Contains(a.Value.String(), "CreateProject") {
				t.Errorf("span %s: code.function %q, want the storage method", sp.Name, a.Value.String())
			}
		}
	}
	if !strings.Contains(strings.Join(statements, "\n"), `INSERT INTO "projects"`) {
		t.Fatalf("statements %q", statements)
	}
}
