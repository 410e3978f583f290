package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/golden"
)

// TestCLIReference keeps docs/cli.md equal to what every command's -h
// prints; a new command's usage line is enough for it to appear.
// go test ./internal/cli -run TestCLIReference -update rewrites the file.
func TestCLIReference(t *testing.T) {
	var b strings.Builder
	b.WriteString("# tally command-line reference\n\n")
	b.WriteString("<!-- Generated from the code: go test ./internal/cli -run TestCLIReference -update. Do not edit. -->\n\n")
	b.WriteString("Every command, with what `tally COMMAND -h` prints. Flags may come before or after the file;\n")
	b.WriteString("`--flag` and `-flag` are the same; `--` ends the flags.\n\n")
	b.WriteString("```\n" + usage + "```\n")
	cmds := commands()
	if len(cmds) < 7 {
		t.Fatalf("the usage lists %d commands, want at least 7: %+v", len(cmds), cmds)
	}
	for _, c := range cmds {
		help, _ := commandHelp(c.Name)
		if !strings.Contains(help, "Usage: tally "+c.Name) {
			t.Errorf("tally %s -h: got\n%s\nwant \"Usage: tally %s\"", c.Name, help, c.Name)
		}
		b.WriteString("\n## " + c.Synopsis + "\n\n" + c.Summary + ".\n\n```\n" + help + "```\n")
	}
	golden.Check(t, "../../docs/cli.md", []byte(b.String()))
}

func TestHelpExitsZeroOnStdout(t *testing.T) {
	for _, args := range [][]string{{"report", "-h"}, {"inspect", "--help"}, {"version", "-help"}, {"report", "trace.json", "-h"}} {
		code, out, errOut := tally(args...)
		if code != 0 || !strings.Contains(out, "Usage: tally "+args[0]) || errOut != "" {
			t.Errorf("%q: got exit %d, stdout %q, stderr %q; want exit 0, the usage, no stderr", args, code, out, errOut)
		}
	}
	// -h after "--" belongs to the recorded command.
	if helpRequested([]string{"record", "--", "ls", "-h"}) || helpRequested([]string{"nonsense", "-h"}) {
		t.Error("-h after -- or for an unknown command: got a help request, want none")
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, name := range []string{"report", "inspect", "record", "version", "completion"} {
		if help, _ := commandHelp(name); !strings.Contains(help, "\nExamples:\n  ") {
			t.Errorf("tally %s -h: got no examples, want \"Examples:\":\n%s", name, help)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := tally("version")
	if code != 0 || !strings.HasPrefix(out, "tally ") || !strings.Contains(out, "module github.com/tallyprof/tally") {
		t.Fatalf("got exit %d:\n%s\nwant 0, \"tally \" and the module line", code, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/tallyprof/tally", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-30T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionText(bi, true)
	if !strings.HasPrefix(got, "tally v1.2.3\n") || !strings.Contains(got, "revision abc123 (2026-11-30T12:00:00Z), with uncommitted changes\n") {
		t.Fatalf("got:\n%s\nwant \"tally v1.2.3\" and the revision, its time and \"with uncommitted changes\"", got)
	}
	bi.Settings = nil
	if got := versionText(bi, true); !strings.Contains(got, "revision unknown") || !strings.Contains(got, "build inside the checkout: go build -buildvcs=true -o tally ./cmd/tally\n") {
		t.Fatalf("no VCS info: got %q, want \"revision unknown\" and how to build with it", got)
	}
	if code, _, _ := tally("version", "extra"); code != 2 {
		t.Fatalf("version extra: got exit %d, want 2", code)
	}
}

// TestVersionBuilt builds the binary inside the checkout, where go build
// stamps the VCS revision.
func TestVersionBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// go build stamps VCS settings only where .git is a directory, not in a
	// git worktree (where it is a file).
	if st, err := os.Stat("../../.git"); err != nil || !st.IsDir() {
		t.Skip("not a plain git checkout (a worktree or an export): go build stamps no revision here")
	}
	bin := filepath.Join(t.TempDir(), "tally")
	// -buildvcs=true overrides a GOFLAGS=-buildvcs=false of the environment.
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "../../cmd/tally").CombinedOutput(); err != nil {
		t.Skipf("cannot build with VCS stamping here (not a git checkout?): %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	if !strings.Contains(string(out), "revision "+strings.TrimSpace(string(rev))) {
		t.Fatalf("version: got\n%s\nwant it to name HEAD %s", out, rev)
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out := tallyOK(t, "completion", sh)
		for _, c := range commands() {
			if !strings.Contains(out, c.Name) {
				t.Errorf("%s completion: got no command %s, want every command", sh, c.Name)
			}
		}
		for _, want := range []string{"html", "progress", "never auto always", "kineto"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s completion lacks %q", sh, want)
			}
		}
	}
	if code, _, errOut := tally("completion", "tcsh"); code != 2 || !strings.Contains(errOut, "bash, zsh or fish") {
		t.Fatalf("tcsh: got exit %d %s, want 2 and \"bash, zsh or fish\"", code, errOut)
	}
	// Run the bash script where bash is installed.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the script")
	}
	_, script, _ := tally("completion", "bash")
	path := writeFile(t, t.TempDir(), "tally.bash", script)
	complete := func(words ...string) string {
		t.Helper()
		cmd := exec.Command(bash, "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _tally; echo "${COMPREPLY[*]}"`, "x", path)
		cmd.Args = append(cmd.Args, words...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: got error %v, want none\n%s", words, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("tally", "re"); got != "report record" {
		t.Errorf("tally re<TAB>: got %q, want \"report record\"", got)
	}
	if got := complete("tally", "report", "--ht"); got != "--html" {
		t.Errorf("tally report --ht<TAB>: got %q, want \"--html\"", got)
	}
	if got := complete("tally", "report", "--progress", "a"); got != "auto always" {
		t.Errorf("--progress a<TAB>: got %q, want \"auto always\"", got)
	}
	if got := complete("tally", "report", "--format", "k"); got != "kineto" {
		t.Errorf("--format k<TAB>: got %q, want \"kineto\"", got)
	}
	// Every flag of a known set of values completes them, not file names;
	// help completes the command names.
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"tally", "export", "--to", "p"}, "parquet pprof"},
		{[]string{"tally", "timeline", "--as", ""}, "perfetto chrome"},
		{[]string{"tally", "report", "--program-by", "annotation,"}, "annotation,device annotation,stream"},
		{[]string{"tally", "report", "--order", ""}, "time input"},
		{[]string{"tally", "diff", "--names", ""}, "short full"},
		{[]string{"tally", "report", "--accept", "truncated"}, "truncated_input"},
		{[]string{"tally", "he"}, "help"},
		{[]string{"tally", "help", "ti"}, "timeline"},
		{[]string{"tally", "help", "re"}, "report record"},
		{[]string{"tally", "completion", "f"}, "fish"},
	} {
		if got := complete(c.words...); got != c.want {
			t.Errorf("%s<TAB>: got %q, want %q", strings.Join(c.words, " "), got, c.want)
		}
	}
}

// The scripts offer the values of every flag that takes one of a set:
// each such flag says so (Choices), and each appears in every script.
func TestCompletionValues(t *testing.T) {
	spec := completionSpec()
	valued := map[string]bool{}
	for _, c := range spec {
		for _, f := range c.Flags {
			if f.Values != nil {
				valued[f.Name] = true
			}
		}
	}
	for _, name := range []string{"format", "program-by", "progress", "order", "names", "to", "as", "accept"} {
		if !valued[name] {
			t.Errorf("--%s: got no values to complete, want its set", name)
		}
	}
	_, fish, _ := tally("completion", "fish")
	containsAll(t, "fish script", fish, "-l to -d", "-x -a 'csv jsonl kineto parquet pprof'", "-l as -d", "-x -a 'perfetto chrome'",
		"'__fish_seen_subcommand_from help' -a 'report inspect timeline", "-a help -d")
}

// TestCompletionOtherShells loads the zsh and fish scripts in those shells
// where they are installed.
func TestCompletionOtherShells(t *testing.T) {
	dir := t.TempDir()
	if zsh, err := exec.LookPath("zsh"); err == nil {
		_, script, _ := tally("completion", "zsh")
		path := writeFile(t, dir, "tally.zsh", script)
		out, err := exec.Command(zsh, "-c", `autoload -U compinit && compinit -u -D && source "$1" && complete -p tally`, "x", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "-F _tally tally") {
			t.Errorf("zsh: got %v\n%s\nwant no error and \"-F _tally tally\"", err, out)
		}
	} else {
		t.Log("no zsh: its script was not loaded")
	}
	if fish, err := exec.LookPath("fish"); err == nil {
		_, script, _ := tally("completion", "fish")
		path := writeFile(t, dir, "tally.fish", script)
		out, err := exec.Command(fish, "-c", `source $argv[1]; complete -C "tally in"; complete -C "tally report --progress al"; complete -C "tally completion z"`, path).CombinedOutput()
		got := string(out)
		if err != nil || !strings.Contains(got, "inspect\twhat the file holds") || !strings.Contains(got, "always\t") || !strings.Contains(got, "zsh") {
			t.Errorf("fish: got %v\n%s\nwant no error and the inspect, always and zsh completions", err, got)
		}
	} else {
		t.Log("no fish: its script was not loaded")
	}
}

// TestHelpCommand: `tally help COMMAND` is `tally COMMAND -h`; an unknown
// command is a usage error that lists the known ones.
func TestHelpCommand(t *testing.T) {
	for _, name := range []string{"report", "timeline", "completion"} {
		code, out, errOut := tally("help", name)
		want, _ := commandHelp(name)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("help %s: exit %d, stderr %q, stdout equal to -h: %v", name, code, errOut, out == want)
		}
	}
	for _, args := range [][]string{{"help"}, {"help", "-h"}, {"help", "help"}} {
		if code, out, _ := tally(args...); code != 0 || out != usage {
			t.Errorf("%q: got exit %d (or other output), want 0 and the usage", args, code)
		}
	}
	for _, args := range [][]string{{"help", "nonsense"}, {"help", "report", "inspect"}} {
		code, out, errOut := tally(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "give one command: report, inspect, timeline,") {
			t.Errorf("%q: got exit %d, stdout %q, stderr %q; want 2, none, \"give one command: ...\"", args, code, out, errOut)
		}
	}
	if _, _, errOut := tally("help", "nonsense"); !strings.Contains(errOut, `unknown command "nonsense"`) {
		t.Errorf("unknown command: got %q, want it to name \"nonsense\"", errOut)
	}
}

// TestHelpToFailingStdout: help, the format list and the version written
// to a standard output that fails are an error said on stderr, not exit 0
// or a silent exit 2 (found by the second sweep: `tally report -h
// >/dev/full` exited 0, `tally formats >/dev/full` exited 2 saying nothing).
func TestHelpToFailingStdout(t *testing.T) {
	for _, args := range [][]string{{"report", "-h"}, {"inspect", "--help", "x"}, {"help", "report"}, {"help"}, {"-h"}, {"formats"}, {"version"}} {
		var errBuf bytes.Buffer
		code := run(args, failingWriter{}, &errBuf)
		if code != 2 || !strings.Contains(errBuf.String(), "writing to standard output: broken pipe") {
			t.Errorf("%q to a failing stdout: got exit %d, stderr %q; want 2 and \"writing to standard output: broken pipe\"", args, code, errBuf.String())
		}
	}
}
