package storage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxRoomMethods is the most exported methods a storage type may have.
const maxRoomMethods = 50

// TestRoomsStaySmall reads the package's source as a reviewer would: no
// exported type has more than maxRoomMethods exported methods (one Store
// had 98), and none has a setter, a method that changes the type's
// settings rather than the database's rows (it takes no context and
// returns nothing: SetOutboxNotify, CacheStats, SetRankingBudget,
// SetRankingLimit, Trace were): every setting is an option of the room's
// constructor or of Open, so no room is ever configured differently from
// what production builds.
func TestRoomsStaySmall(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			recv := fd.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok || !id.IsExported() {
				continue
			}
			methods[id.Name]++
			if setter(fd) {
				t.Errorf("%s.%s sets after construction: make it an option of the constructor", id.Name, fd.Name.Name)
			}
		}
	}
	if len(methods) == 0 {
		t.Fatal("no exported methods found: the test reads the wrong directory")
	}
	for typ, n := range methods {
		if n > maxRoomMethods {
			t.Errorf("%s has %d exported methods, at most %d: split it along its consumers' ports", typ, n, maxRoomMethods)
		}
	}
}

// setter reports whether fd takes parameters, none of them a context, and
// returns nothing.
func setter(fd *ast.FuncDecl) bool {
	params := fd.Type.Params.List
	if len(params) == 0 || fd.Type.Results != nil {
		return false
	}
	sel, ok := params[0].Type.(*ast.SelectorExpr)
	return !ok || sel.Sel.Name != "Context"
}
