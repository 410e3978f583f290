package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tallyprof/tally/internal/exitcode"
)

// examples are printed under a command's flags by -h. A command without an
// entry prints none; add one when adding a command.
var examples = map[string]string{
	"report": `  tally report trace.json                      tables and gaps as text
  tally report --manifests build/kernels run.kept   name hrx kernels from their manifests
  tally report --json -o report.json trace.json.gz  the versioned JSON report, written atomically
  tally report --html report.html trace.json   also a self-contained page to open in a browser
  tally report --html - trace.json > r.html    the page on standard output (the text report only with -o FILE)
  tally report --html run.html run/            one page for every rank: the whole, the merged tables, each rank
  tally report --top 10 --strict trace.json    10 costliest kernels per program; exit 1 if anything is missing
  tally report run/                            every rank*/….pt.trace.json.gz in run/, in parallel, then merged
  tally report output_dir                      a pypto L3 run directory (swimlane records)
`,
	"timeline": `  tally timeline trace.json -o trace.perfetto-trace   open in ui.perfetto.dev
  tally timeline run/ -o run.json                     Chrome JSON, one group per rank
  tally timeline --strict a.kept b.kept -o ab.perfetto-trace   exit 1 if anything is missing
`,
	"inspect": `  tally inspect trace.json                     format, sessions, clocks, record counts, losses
  tally inspect --json profile.ireeprof        the same as JSON (tally.inspect/v1)
`,
	"record": `  GGML_HRX_DEBUG_SERIAL_EXECUTION=1 tally record -o run.kept -- ./llama-cli -m model.gguf -p hi
  tally record --manifests build/kernels --report report.txt -- ./app
`,
	"layers": `  tally layers reference/ dump/                 layer_<l>.npy / layer_<l>.f32 paired by layer number
  tally layers --hidden 4096 --log run.kept ref/ dump/   H for bare dumps; check the engine's [L] lines
  tally layers --map 'blocks.{l}.npy=layer_{l}.f32' --json --strict ref/ dump/
`,
	"export": `  tally export --to pprof trace.json -o kernels.pb.gz   then: go tool pprof -symbolize=none -top kernels.pb.gz
  tally export --to parquet r0.json r1.json -o run/     a dataset for DuckDB, Spark or Trino (docs/export.md)
  tally export --to csv --per-kernel run.kept -o k.csv  one row per kernel; k.csv.gaps.csv beside it
  tally export --to kineto profile.ireeprof -o t.json   for HTA and TraceLens
  tally export --check k.csv                            k.csv and k.csv.gaps.csv are from one export?
`,
	"selftest": `  tally selftest
`,
	"formats": `  tally formats
`,
	"version": `  tally version
`,
	"completion": `  source <(tally completion bash)     bash: in ~/.bashrc
  source <(tally completion zsh)      zsh: in ~/.zshrc, after compinit
  tally completion fish > ~/.config/fish/completions/tally.fish
`,
}

func writeExamples(w io.Writer, name string) {
	if ex, ok := examples[name]; ok {
		io.WriteString(w, "\nExamples:\n"+ex)
	}
}

// lastFlagSet is the flag set the last newFlagSet call made: running a
// command with -h leaves its flags here, which is how the reference and
// the completion scripts learn every command's flags from the code.
var (
	flagSetMu   sync.Mutex
	lastFlagSet *flag.FlagSet
)

func noteFlagSet(fs *flag.FlagSet) {
	flagSetMu.Lock()
	lastFlagSet = fs
	flagSetMu.Unlock()
}

// helpRequested reports whether args are a known command asked for -h,
// -help or --help (before any "--", after which arguments are CMD's own).
func helpRequested(args []string) bool {
	asked := false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		asked = asked || a == "-h" || a == "-help" || a == "--help"
	}
	// Checked second: commands parses the usage with a regexp, which a
	// run that asks for no help (every other run) should not pay for.
	return asked && slices.ContainsFunc(commands(), func(c command) bool { return c.Name == args[0] })
}

// command is one line of the top-level usage.
type command struct {
	Name, Synopsis, Summary string
}

// usageLine is compiled when help is asked for, not at every start.
var usageLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^  (tally ([a-z][a-z0-9-]*)(?: \S+)*?)\s{2,}(\S.*)$`)
})

// commands lists the commands the top-level usage names, in its order; a
// new command's usage line is all it takes to be listed.
func commands() []command {
	var out []command
	for _, line := range strings.Split(usage, "\n") {
		if m := usageLine().FindStringSubmatch(line); m != nil {
			out = append(out, command{Name: m[2], Synopsis: m[1], Summary: m[3]})
		}
	}
	return out
}

// commandHelp runs `tally NAME -h` and returns what it printed and the
// flags it registered (nil for a command without flags).
func commandHelp(name string) (string, []*flag.Flag) {
	flagSetMu.Lock()
	lastFlagSet = nil
	flagSetMu.Unlock()
	var out strings.Builder
	run([]string{name, "-h"}, &out, &out)
	flagSetMu.Lock()
	fs := lastFlagSet
	flagSetMu.Unlock()
	var flags []*flag.Flag
	if fs != nil && fs.Name() == name {
		fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	}
	return out.String(), flags
}

// cmdHelp is `tally help [COMMAND]`: the top-level usage, or COMMAND's own
// help exactly as `tally COMMAND -h` prints it, on standard output.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		_, err := fmt.Fprint(stdout, usage)
		return helpWritten(stderr, "help", err)
	}
	if len(args) == 1 {
		for _, c := range commands() {
			if c.Name == args[0] {
				out := &checkedWriter{w: stdout}
				run([]string{c.Name, "-h"}, out, out)
				return helpWritten(stderr, "help", out.err)
			}
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.Name)
	}
	if len(args) == 1 {
		fmt.Fprintf(stderr, "tally help: unknown command %q\n", args[0])
	}
	fmt.Fprintf(stderr, "tally help: give one command: %s\n", strings.Join(names, ", "))
	return exitcode.Error
}

// checkedWriter remembers the first write error, for output written by
// code that does not check its writes (the flag package's usage).
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}

// helpWritten is the exit status of command cmd that wrote help or a
// listing to standard output with error err: a failed write is said on
// stderr and is an error, never a silent success.
func helpWritten(stderr io.Writer, cmd string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "tally %s: writing to standard output: %v\n", cmd, err)
		return exitcode.Error
	}
	return exitcode.OK
}
