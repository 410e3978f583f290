package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/tallyprof/tally/analysis" // registers repeated_rank
	"github.com/tallyprof/tally/capture"
	_ "github.com/tallyprof/tally/collectives" // registers the collective kinds
	"github.com/tallyprof/tally/format/internal/fixture"
)

// kindsTable returns the kinds of docs/report-json.md's "### Gap kinds"
// table, with how many rows each has.
func kindsTable(t *testing.T) map[string]int {
	t.Helper()
	_, sec, ok := strings.Cut(string(fixture.Read(t, "../../docs/report-json.md")), "\n### Gap kinds\n")
	if !ok {
		t.Fatal(`docs/report-json.md: got no "### Gap kinds" section, want one`)
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	rows := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|").FindAllStringSubmatch(sec, -1) {
		rows[m[1]]++
	}
	return rows
}

// Every kind the code registers — sized (capture.RegisterKind) or a note
// (capture.RegisterNote) — has exactly one row in docs/report-json.md's
// kinds table: a JSON reader meets no kind the schema does not name (the
// swimlane reader's eleven were missing). TestEveryKindSizedOrNote holds the
// other direction.
func TestEveryKindInKindsTable(t *testing.T) {
	rows := kindsTable(t)
	for _, k := range append(capture.Kinds(), capture.Notes()...) {
		switch n := rows[string(k)]; {
		case n == 0:
			t.Errorf("kind %s: got no row in docs/report-json.md's kinds table, want one", k)
		case n > 1:
			t.Errorf("kind %s: got %d rows in docs/report-json.md's kinds table, want one", k, n)
		}
	}
}

// readerPages maps each reader package to the page that documents it.
var readerPages = map[string]string{
	"hrxserial":   "../../docs/kept-trace.md",
	"ireeprof":    "../../docs/formats/ireeprof.md",
	"kineto":      "../../docs/formats/kineto.md",
	"npuprof":     "../../docs/formats/npuprof.md",
	"nsys":        "../../docs/formats/nsys.md",
	"probereader": "../../docs/probe-format.md",
	"rocprof":     "../../docs/formats/rocprof.md",
	"swimlane":    "../../docs/formats/swimlane.md",
}

// Every kind a reader's code names — its own kinds, and the shared ones it
// records (capture.FailedProgram …) — is named, in backquotes, on the
// reader's page: the page lists the kinds it emits (docs/report-json.md).
// Kinds the model check or the run adds for every reader (invalid_event,
// long_name, unused_option) are not named in reader code and not required.
func TestReaderKindsOnTheirPage(t *testing.T) {
	shared := kindConsts(t, "../../capture", "Kind")
	for pkg, page := range readerPages {
		doc := string(fixture.Read(t, page))
		own := kindConsts(t, "../"+pkg, "capture.Kind")
		for _, k := range readerKinds(t, "../"+pkg, shared, own) {
			if !strings.Contains(doc, "`"+k+"`") {
				t.Errorf("reader %s records %s: got no `%s` on %s, want it there", pkg, k, k, page)
			}
		}
	}
}

// kindConsts returns the constants of type typ (as written) that the
// non-test files of dir declare, by name, with their string values.
func kindConsts(t *testing.T, dir, typ string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if v.Type == nil || exprString(v.Type) != typ || len(v.Values) != len(v.Names) {
					continue
				}
				for i, n := range v.Names {
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						out[n.Name] = s
					}
				}
			}
		}
	}
	if len(out) == 0 && typ == "Kind" {
		t.Fatalf("%s: got no Kind constants, want the shared kinds", dir)
	}
	return out
}

// readerKinds returns the kinds the reader in dir names: capture.X for a
// shared kind X, and every kind it declares itself.
func readerKinds(t *testing.T, dir string, shared, own map[string]string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, v := range own {
		seen[v] = true
	}
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "capture" {
					if v, ok := shared[sel.Sel.Name]; ok {
						seen[v] = true
					}
				}
			}
			return true
		})
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	return out
}

func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatalf("%s: got %v, want Go that parses", p, err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("%s: got no Go files, want the package's", dir)
	}
	return files
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return ""
}
