package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/golden"
)

// goldenReports are whole reports compared byte for byte with
// internal/cli/testdata/golden/NAME.{txt,json}; `go test ./internal/cli -update`
// rewrites them after an intended change. Paths are relative to the
// repository root, as a user in a clone would type them.
var goldenReports = []struct {
	name string
	args []string
}{
	{"hrx-decode-fault", []string{"--manifests", "examples/kernels", "examples/decode-fault.kept"}},
	{"hrx-no-manifest", []string{"selftest/traces/complete.kept"}},
	{"hrx-kept-no-trace-line", []string{"selftest/traces/nontrace.kept"}},
	{"empty-file", []string{"selftest/traces/empty.log"}},
	{"ireeprof-smoke", []string{"format/ireeprof/testdata/smoke.ireeprof"}},
	{"ireeprof-cut", []string{"format/ireeprof/testdata/cut_mid_record.ireeprof"}},
	{"kineto-triton", []string{"format/kineto/testdata/hta__triton_example.json.gz"}},
	{"kineto-cpu-only", []string{"format/kineto/testdata/hta__cpu_only_rank-34.pt.trace.json.gz"}},
	{"probe-matmul", []string{"format/probereader/testdata/matmul.probe"}},
	{"probe-killed", []string{"format/probereader/testdata/killed.probe"}},
}

func TestGoldenReports(t *testing.T) {
	t.Chdir("../..")
	for _, g := range goldenReports {
		t.Run(g.name, func(t *testing.T) {
			for _, form := range []struct{ ext, flag string }{{"txt", ""}, {"json", "--json"}} {
				args := append([]string{"report"}, g.args...)
				if form.flag != "" {
					args = append(args, form.flag)
				}
				_, out, errOut := tally(args...)
				if errOut != "" {
					t.Fatalf("%v: got stderr %s, want none", args, errOut)
				}
				golden.Check(t, filepath.Join("internal/cli/testdata/golden", g.name+"."+form.ext), []byte(out))
			}
		})
	}
}

// The README's first screen gives the main command and pastes its output:
// both are checked against a real run, so the README cannot drift.
func TestReadmeOutput(t *testing.T) {
	t.Chdir("../..")
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		command  string
		block    []string
		section  string
		inBlock  bool
		captured bool
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line
		case strings.HasPrefix(line, "```"):
			if inBlock && section == "## What the first command prints" {
				captured = true
			}
			inBlock = !inBlock
		case inBlock && command == "" && strings.HasPrefix(line, "go run ./cmd/tally "):
			command = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(line, "go run ./cmd/tally "), "#", 2)[0])
		case inBlock && section == "## What the first command prints" && !captured:
			block = append(block, line)
		}
	}
	if command == "" || len(block) == 0 {
		t.Fatalf("README: got command %q and a %d-line block, want a 'go run ./cmd/tally …' command and the output block under '## What the first command prints'", command, len(block))
	}
	_, out, errOut := tally(strings.Fields(command)...)
	if errOut != "" {
		t.Fatalf("README command: got stderr %s, want none", errOut)
	}
	want := strings.Join(block, "\n") + "\n"
	if out != want {
		t.Fatalf("README's output block differs from `tally %s`: paste the real output\n%s", command, golden.Diff("README.md", "tally "+command, []byte(want), []byte(out)))
	}
}
