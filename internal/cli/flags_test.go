package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A bad flag, a bad value or flags that cannot go together: one line on
// standard error naming the command's help, exit 2, nothing on standard
// output — never the whole help (that is -h's).
func TestUsageErrorsAreOneLine(t *testing.T) {
	kept := selfTrace + "complete.kept"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--nope", kept}, "flag provided but not defined: -nope"},
		{[]string{"report", "--top", "-1", kept}, `invalid value "-1" for flag -top: give a number of kernels, 0 (all) or more`},
		{[]string{"report", "--top", "x", kept}, `invalid value "x" for flag -top`},
		{[]string{"report", "--order", "size", kept}, `invalid value "size" for flag -order: give time or input`},
		{[]string{"report", "--program-by", "gpu", kept}, `invalid value "gpu" for flag -program-by`},
		{[]string{"report", "--unrecorded-wait", "-1ms", kept}, `invalid value "-1ms" for flag -unrecorded-wait`},
		{[]string{"report", "--unrecorded-wait", "soon", kept}, `invalid value "soon" for flag -unrecorded-wait: give a duration`},
		{[]string{"report", "--name-map", "allreduce", kept}, `invalid value "allreduce" for flag -name-map: give PROGRAM=FILE`},
		{[]string{"report", "--progress", "sometimes", kept}, `invalid value "sometimes" for flag -progress`},
		{[]string{"report", "--fail-if-affected", "101", kept}, "--fail-if-affected 101: give a percentage from 0 to 100"},
		{[]string{"report", "--accept", "nope", "--fail-if-affected", "1", kept}, "--accept nope: not a gap kind"},
		{[]string{"report", "--json", "--html", "-", kept}, "--json with --html -: the page takes standard output"},
		{[]string{"report", "--json", "--top", "3", kept}, "--top applies to the text report"},
		{[]string{"report", "--html", "-", "--top", "3", kept}, "--top applies to the text report, which --html - leaves out"},
		{[]string{"report", "--json", "--order", "input", kept}, "--order applies to the text report and the HTML page"},
		{[]string{"report", "--json", "--names", "full", kept}, "--names applies to the text report and the HTML page"},
		{[]string{"report", "--html", "-", "-o", "-", kept}, "--html - and -o - both write to standard output"},
		{[]string{"report"}, "give a trace file"},
		{[]string{"inspect", "--format", "nope", kept}, `invalid value "nope" for flag -format: no reader of that name`},
		{[]string{"diff", "--names", "full", "--json", kept, kept}, "--names applies to the text output"},
		{[]string{"diff", "--fail-if-slower", "-3", kept, kept}, "--fail-if-slower -3: give a percentage, 0 or more"},
		{[]string{"diff", "--json", "--csv", kept, kept}, "give --json or --csv, not both"},
		{[]string{"export", "--to", "svg", kept, "-o", "x"}, `invalid value "svg" for flag -to: give csv, jsonl, kineto, parquet or pprof`},
		{[]string{"export", "--check", "k.csv", "--to", "csv"}, "--check OUT checks an export already written: --to would be ignored"},
		{[]string{"export", "--check", "k.csv", kept}, "--check OUT checks an export already written: it reads no input"},
		{[]string{"timeline", "--as", "svg", kept, "-o", "t.json"}, `invalid value "svg" for flag -as`},
		{[]string{"timeline", "--as", "perfetto", kept, "-o", "t.json"}, "--as perfetto, and -o t.json is named as the other format"},
		{[]string{"timeline", "--as", "chrome", kept, "-o", "t.perfetto-trace"}, "--as chrome, and -o t.perfetto-trace is named as the other format"},
		{[]string{"inspect"}, "give exactly one file"},
		{[]string{"inspect", kept, kept}, "give exactly one file"},
		{[]string{"layers", "--hidden", "-3", "a", "b"}, `invalid value "-3" for flag -hidden`},
		{[]string{"layers", "a"}, "give REF and OURS"},
		{[]string{"layers", "a", "b", "c"}, "give REF and OURS"},
		{[]string{"selftest", "extra"}, "takes no arguments"},
		{[]string{"version", "extra"}, "takes no arguments"},
		{[]string{"formats", "extra"}, "takes no arguments"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh": give bash, zsh or fish`},
		{[]string{"completion"}, "give one shell: bash, zsh or fish"},
		{[]string{"completion", "bash", "zsh"}, "give one shell: bash, zsh or fish"},
	} {
		code, out, errOut := tally(c.args...)
		cmd := c.args[0]
		wantLine := "tally " + cmd + ": "
		if code != 2 || out != "" || !strings.HasPrefix(errOut, wantLine) || !strings.Contains(errOut, c.want) ||
			!strings.HasSuffix(errOut, "; see: tally help "+cmd+"\n") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("tally %s: got exit %d, stdout %q, stderr %q; want exit 2 and one line %q…%q…; see: tally help %s",
				strings.Join(c.args, " "), code, out, errOut, wantLine, c.want, cmd)
		}
	}
	// What goes together is no error: --order with --html FILE and --json.
	if code, _, errOut := tally("report", "--json", "--order", "input", "--html", t.TempDir()+"/r.html", kept); code != 0 {
		t.Errorf("--json --order input --html FILE: got exit %d %q, want 0 (the page takes --order)", code, errOut)
	}
	if code, _, errOut := tally("report", "--top", "0", kept); code != 0 {
		t.Errorf("--top 0: got exit %d %q, want 0", code, errOut)
	}
	// -h still prints the whole help, on standard output.
	if code, out, _ := tally("report", "-h"); code != 0 || !strings.Contains(out, "Usage: tally report") || !strings.Contains(out, "-top N") {
		t.Errorf("report -h: got exit %d, want 0 and the help:\n%s", code, out)
	}
	if code, _, errOut := tally("bogus"); code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `unknown command "bogus": give one of report, inspect,`) {
		t.Errorf("unknown command: got exit %d %q, want one line listing the commands", code, errOut)
	}
}

// --version, -version and -v are tally version.
func TestVersionFlag(t *testing.T) {
	_, want, _ := tally("version")
	for _, arg := range []string{"--version", "-version", "-v"} {
		if code, out, errOut := tally(arg); code != 0 || out != want || errOut != "" {
			t.Errorf("tally %s: got exit %d, %q (stderr %q); want exit 0 and %q", arg, code, out, errOut, want)
		}
	}
}

// A flag given as another flag's value is a usage error (the third sweep:
// `--html -o out.html trace.json` wrote the page to a file named -o, read
// out.html as an input and exited 0; `-o --json` wrote a file named
// --json). A value that only starts with "-" (a negative number, "-" for
// standard output, ./-o for a file named so) is a value.
func TestFlagAsAnotherFlagsValue(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // where a file named -o or --json lands if the guard breaks
	trace := writePlanted(t)
	for _, args := range [][]string{
		{"report", "--html", "-o", filepath.Join(dir, "x.html"), trace},
		{"report", "-o", "--json", trace},
		{"report", "--html=" + filepath.Join(dir, "p.html"), "-o", "-html", trace},
		{"timeline", trace, "-o", "--as=chrome"},
	} {
		code, out, errOut := tally(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "is a flag, not the value") {
			t.Errorf("%q: got exit %d, stdout %d bytes, stderr %q; want 2, none, \"is a flag, not the value\"", args, code, len(out), errOut)
		}
	}
	tallyOK(t, "report", "--fail-if-affected", "-1", trace)
	tallyOK(t, "report", "--html", filepath.Join(dir, "-o"), "-o", filepath.Join(dir, "r.txt"), trace)
}
