package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tallyprof/tally/internal/gen/nsysgen"
)

// programs are tally and tally-full as built from cmd/, once per test run,
// in one directory (as go install puts them), with an nsys export and a
// Kineto trace to give them.
var programs = struct {
	once              sync.Once
	dir, err          string
	light, full, nsys string
}{}

func builtPrograms(t *testing.T) (light, full, nsys string) {
	t.Helper()
	programs.once.Do(func() {
		dir, err := os.MkdirTemp("", "tally-handover-*")
		if err != nil {
			programs.err = err.Error()
			return
		}
		programs.dir = dir
		for _, p := range []string{"tally", "tally-full"} {
			if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(dir, "bin", p), "../../cmd/"+p).CombinedOutput(); err != nil {
				programs.err = "building " + p + ": " + err.Error() + "\n" + string(out)
				return
			}
		}
		programs.light, programs.full = filepath.Join(dir, "bin", "tally"), filepath.Join(dir, "bin", "tally-full")
		programs.nsys = filepath.Join(dir, "run.sqlite")
		if err := nsysgen.Write(programs.nsys, 300); err != nil {
			programs.err = err.Error()
		}
	})
	if programs.err != "" {
		t.Fatal(programs.err)
	}
	return programs.light, programs.full, programs.nsys
}

// runProgram runs bin with args and env (added to a PATH-less
// environment: only what the test gives is found), and returns its
// standard output, standard error and exit status.
func runProgram(t *testing.T, bin string, env []string, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=/nonexistent", "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s %v: got error %v, want none", bin, args, err)
	}
	return o.String(), e.String(), code
}

// TestHandover: tally hands what needs an engine it leaves out — an nsys
// SQLite input (as a file, in a directory, under --format), tally export —
// to the tally-full beside it, whose output, errors and exit status are
// the command's; everything else it runs itself.
func TestHandover(t *testing.T) {
	light, full, nsys := builtPrograms(t)
	dir := t.TempDir()
	writeFile(t, dir, "rank0.sqlite", readFile(t, nsys))
	kineto := writeFile(t, dir, "rank1.json.gz", readFile(t, "../../format/kineto/testdata/hta__cuda_event_sync.json.gz"))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"report", []string{"report", nsys}},
		{"report json", []string{"report", "--json", nsys}},
		{"inspect", []string{"inspect", nsys}},
		{"forced format", []string{"report", "--format", "nsys", nsys}},
		{"directory", []string{"report", dir}},
		{"diff", []string{"diff", kineto, nsys}},
		{"export", []string{"export", "--to", "pprof", nsys, "-o", "-"}},
		{"timeline", []string{"timeline", nsys, "-o", "-", "--as", "chrome"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantErr, wantCode := runProgram(t, full, nil, nil, c.args...)
			out, errOut, code := runProgram(t, light, nil, nil, c.args...)
			if code != wantCode || out != wantOut || errOut != wantErr {
				t.Errorf("tally %v: got exit %d, %d bytes out, stderr %q; want tally-full's exit %d, %d bytes out, stderr %q",
					c.args, code, len(out), errOut, wantCode, len(wantOut), wantErr)
			}
			if wantCode == 2 || len(wantOut) == 0 {
				t.Errorf("tally-full %v: exit %d, %d bytes out (stderr %q): the case reads nothing", c.args, wantCode, len(wantOut), wantErr)
			}
			// Without tally-full, each is refused with what to do.
			_, errOut, code = runProgram(t, light, []string{"TALLY_FULL=" + filepath.Join(dir, "absent")}, nil, c.args...)
			if code != 2 || !strings.Contains(errOut, "go install github.com/tallyprof/tally/cmd/tally-full@latest") {
				t.Errorf("tally %v without tally-full: got exit %d, stderr %q; want exit 2 and how to install it", c.args, code, errOut)
			}
		})
	}
	t.Run("not handed over", func(t *testing.T) {
		// Found nowhere, tally-full is not needed for a Kineto trace.
		lone := writeFile(t, t.TempDir(), "tally", readFile(t, light))
		if err := os.Chmod(lone, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, _, _ := runProgram(t, lone, nil, nil, "version"); !strings.Contains(out, "handed to tally-full: the nsys reader (SQLite), the rocpd reader (SQLite), tally export\n") {
			t.Errorf("tally version: got\n%s\nwant it to say what it hands to tally-full", out)
		}
		if out, _, _ := runProgram(t, full, nil, nil, "version"); !strings.Contains(out, "engines: every one linked") {
			t.Errorf("tally-full version: got\n%s\nwant \"engines: every one linked\"", out)
		}
		for _, args := range [][]string{{"report", kineto}, {"version"}, {"formats"}, {"export", "-h"}} {
			if _, errOut, code := runProgram(t, lone, nil, nil, args...); code != 0 {
				t.Errorf("tally %v without tally-full: got exit %d (%s), want 0", args, code, errOut)
			}
		}
		// Standard input is not looked at before it is read: its read
		// says what to do, and --format hands it over unread.
		_, errOut, code := runProgram(t, lone, nil, []byte(readFile(t, nsys)), "report", "-")
		if code != 2 || !strings.Contains(errOut, "does not link") || !strings.Contains(errOut, "give --format nsys") {
			t.Errorf("nsys on standard input: got exit %d, stderr %q; want exit 2 naming the SQLite engine and --format", code, errOut)
		}
		_, errOut, _ = runProgram(t, lone, nil, []byte(readFile(t, nsys)), "timeline", kineto, "-", "-o", filepath.Join(t.TempDir(), "t.json"))
		if !strings.Contains(errOut, "FAILED") || !strings.Contains(errOut, "give --format nsys") {
			t.Errorf("timeline with nsys on standard input: stderr %q; want the failed input and what to do", errOut)
		}
		want, _, _ := runProgram(t, full, nil, nil, "report", nsys)
		out, errOut, code := runProgram(t, light, nil, []byte(readFile(t, nsys)), "report", "--format", "nsys", "-")
		if code != 0 || out != strings.ReplaceAll(want, nsys, "standard input") {
			t.Errorf("nsys on standard input with --format nsys: got exit %d (%s), output:\n%s\nwant tally-full's:\n%s", code, errOut, out, want)
		}
	})
	t.Run("never back", func(t *testing.T) {
		// A tally-full without the engine would hand back: it stops.
		_, errOut, code := runProgram(t, light, []string{handedOverEnv + "=x"}, nil, "report", nsys)
		if code != 2 || !strings.Contains(errOut, "does not link") {
			t.Errorf("handed over already: got exit %d, stderr %q; want exit 2 and the reason", code, errOut)
		}
	})
	t.Run("other build", func(t *testing.T) {
		_, errOut, _ := runProgram(t, full, []string{handedOverEnv + "=v0.0.1 0000"}, nil, "version")
		if !strings.Contains(errOut, "another build") {
			t.Errorf("tally-full handed over by another build: stderr %q, want a note", errOut)
		}
		if _, errOut, _ = runProgram(t, full, nil, nil, "version"); errOut != "" {
			t.Errorf("tally-full run directly: stderr %q, want none", errOut)
		}
	})
}
