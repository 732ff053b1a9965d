#!/usr/bin/env bash
# passes.sh counts what one REST request runs: how many times each function
# below is entered per request of a backend/server benchmark. It runs the
# benchmark at 5 and at 25 requests with count-mode coverage (std packages
# and dependencies included) and divides the difference by 20, so the
# setup's calls cancel out. The first run compiles the instrumented standard
# library (minutes).
#
#   scripts/passes.sh BenchmarkStatsRESTSession
#   scripts/passes.sh BenchmarkBuildREST500 'encoding/json.Unmarshal' ...
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:?benchmark name}"
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(
		'net/http.(*ServeMux).findHandler'                       # routing: ServeMux
		'github.com/reclaim-sol/reclaim/backend/server/gateway.(*requestCheck).checkREST' # routing: the front door
		'connectrpc.com/vanguard.(*routeTrie).match'              # routing: vanguard
		'github.com/reclaim-sol/reclaim/backend/server/gateway.checkJSON' # a body checked: two encoding/json passes
		'github.com/reclaim-sol/reclaim/backend/server/gateway.decodeJSON' # a body checked and decoded in one pass
		'google.golang.org/protobuf/encoding/protojson.UnmarshalOptions.unmarshal'
		'google.golang.org/protobuf/encoding/protojson.MarshalOptions.marshal'
		'encoding/json.(*Decoder).Decode' # also the token's claims and the fake cluster's
		'encoding/json.(*Encoder).Encode' # also the fake cluster's answers
		'github.com/reclaim-sol/reclaim/backend/server/gateway.(*jsonPlans).appendJSON'
		'github.com/reclaim-sol/reclaim/backend/pkg/signing.(*Keyring).Verify'
	)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pkgs=github.com/reclaim-sol/reclaim/backend/server,github.com/reclaim-sol/reclaim/backend/server/gateway,github.com/reclaim-sol/reclaim/backend/pkg/signing,connectrpc.com/vanguard,connectrpc.com/connect,google.golang.org/protobuf/encoding/protojson,encoding/json,net/http
for n in 5 25; do
	go test -count=1 -run '^$' -bench "^${bench}\$" -benchtime "${n}x" -cpu 1 \
		-covermode=count -coverpkg="$pkgs" -coverprofile "$work/$n.out" ./backend/server/ >/dev/null
done
mkdir -p "$work/src" && cat >"$work/src/main.go" <<'GO'
// count prints how many times functions ran per request between two
// count-mode coverage profiles of the same benchmark at two b.N values: the
// count of each function's first block.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type block struct {
	file           string
	line, col      int
	count          int64
}

func read(path string) map[string]block {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	out := map[string]block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "mode:") {
			continue
		}
		// file:l.c,l.c n count
		colon := strings.LastIndex(l, ":")
		file, rest := l[:colon], l[colon+1:]
		fields := strings.Fields(rest)
		start := strings.Split(strings.Split(fields[0], ",")[0], ".")
		line, _ := strconv.Atoi(start[0])
		col, _ := strconv.Atoi(start[1])
		n, _ := strconv.ParseInt(fields[2], 10, 64)
		key := file + ":" + fields[0]
		b := out[key]
		b.file, b.line, b.col = file, line, col
		b.count += n
		out[key] = b
	}
	return out
}

// entry finds the file and position of the opening brace of a function:
// pkg.Func, pkg.(*T).Method, pkg.T.Method, or pkg.Func.funcN (the Nth
// function literal in Func).
func entry(target string) (string, int, int) {
	slash := strings.LastIndex(target, "/")
	dot := strings.Index(target[slash+1:], ".") + slash + 1
	pkg, name := target[:dot], target[dot+1:]
	lit := 0
	if i := strings.LastIndex(name, ".func"); i >= 0 {
		lit, _ = strconv.Atoi(name[i+5:])
		name = name[:i]
	}
	recv, fn := "", name
	if i := strings.LastIndex(name, "."); i >= 0 {
		recv, fn = strings.Trim(name[:i], "()*"), name[i+1:]
	}
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		return "", 0, 0
	}
	d := strings.TrimSpace(string(dir))
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(d, "*.go"))
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Name.Name != fn || fd.Body == nil {
				continue
			}
			r := ""
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				t := fd.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				if ix, ok := t.(*ast.IndexExpr); ok {
					t = ix.X
				}
				if id, ok := t.(*ast.Ident); ok {
					r = id.Name
				}
			}
			if r != recv {
				continue
			}
			lbrace := fd.Body.Lbrace
			if lit > 0 {
				n := 0
				ast.Inspect(fd.Body, func(node ast.Node) bool {
					if fl, ok := node.(*ast.FuncLit); ok {
						n++
						if n == lit {
							lbrace = fl.Body.Lbrace
						}
					}
					return true
				})
			}
			p := fset.Position(lbrace)
			return pkg + "/" + filepath.Base(path), p.Line, p.Column
		}
	}
	return "", 0, 0
}

func main() {
	a := flag.String("a", "", "profile at na requests")
	na := flag.Int("na", 0, "")
	b := flag.String("b", "", "profile at nb requests")
	nb := flag.Int("nb", 0, "")
	flag.Parse()
	pa, pb := read(*a), read(*b)
	for _, target := range flag.Args() {
		file, line, col := entry(target)
		if file == "" {
			fmt.Printf("%-70s  (no such function)\n", target)
			continue
		}
		var best *block
		var bestKey string
		for k, blk := range pb {
			if blk.file != file || blk.line != line || blk.col < col {
				continue
			}
			if best == nil || blk.col < best.col {
				b := blk
				best, bestKey = &b, k
			}
		}
		if best == nil {
			fmt.Printf("%-70s  (no block)\n", target)
			continue
		}
		diff := best.count - pa[bestKey].count
		fmt.Printf("%-70s %6.2f\n", target, float64(diff)/float64(*nb-*na))
	}
}
GO
(cd "$work/src" && printf 'module passes\ngo 1.26\n' >go.mod && go build -o ../count .)
"$work/count" -a "$work/5.out" -na 5 -b "$work/25.out" -nb 25 "${targets[@]}"
