package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
)

// tally leaves out the engines that are slow to initialise (format.Engine:
// SQLite; the export package with Parquet and pprof): linked, they cost
// every command, `tally version` included, some 20 ms of CPU before main.
// An invocation that needs one is handed, before it reads or writes
// anything, to tally-full — the same command line with every engine
// linked — which replaces this process (same arguments, standard streams,
// exit status and signals).

// fullName is tally-full's executable name.
const fullName = "tally-full"

// Environment: TALLY_FULL names the tally-full to run (otherwise the one
// beside this executable, then on PATH); handedOverEnv is set in
// tally-full's environment to the build of the tally that handed over, so
// that tally-full never hands back and says when the two builds differ.
const (
	fullEnv       = "TALLY_FULL"
	handedOverEnv = "TALLY_HANDED_OVER"
)

// errExportElsewhere is why tally export is handed over.
var errExportElsewhere = errors.New("tally export writes with the export package (Parquet, pprof, Kineto JSON, CSV), which only tally-full links")

// handover runs tally-full with args (the command line after the program
// name) in place of this process; it returns only when that cannot be
// done, after saying why and what to do.
func handover(args []string, why error, stderr io.Writer) int {
	if os.Getenv(handedOverEnv) != "" {
		// tally-full lacks what it was given this for: say so, never loop.
		fmt.Fprintf(stderr, "tally: %v\n", why)
		return exitcode.Error
	}
	path, err := findFull()
	if err != nil {
		fmt.Fprintf(stderr, "tally: %v\ntally: %s, tally's build with every engine, runs it; %v. Install it beside tally:\n  go install github.com/tallyprof/tally/cmd/%s@latest\n(or go install ./cmd/tally-full in a checkout), or set %s to its path\n", why, fullName, err, fullName, fullEnv)
		return exitcode.Error
	}
	env := append(os.Environ(), handedOverEnv+"="+buildKey())
	if err := execFull(path, args, env); err != nil {
		fmt.Fprintf(stderr, "tally: %v\ntally: running %s: %v\n", why, path, err)
		return exitcode.Error
	}
	return exitcode.OK // not reached where execFull replaces the process
}

// findFull is the tally-full to run: TALLY_FULL, else the one beside this
// executable (links resolved: go install puts both in one directory),
// else the first on PATH.
func findFull() (string, error) {
	if p := os.Getenv(fullEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", fullEnv, p, err)
		}
		return p, nil
	}
	var beside string
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside = filepath.Join(filepath.Dir(self), fullName+exeSuffix)
			if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
				return beside, nil
			}
		}
	}
	p, err := exec.LookPath(fullName)
	if err != nil {
		if beside != "" {
			return "", fmt.Errorf("it is neither at %s nor on PATH", beside)
		}
		return "", fmt.Errorf("it is not on PATH")
	}
	return p, nil
}

// buildKey names this build: module version and VCS revision.
func buildKey() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	key := bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			key += " " + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			key += "+modified"
		}
	}
	return key
}

// unlinkedInputs is why the inputs paths name (read with reader forced,
// or the one detected) need tally-full, or nil: for a command whose
// library expands its arguments itself (timeline, diff). Where every
// engine is linked it looks at nothing.
func unlinkedInputs(paths []string, forced string) error {
	if !format.AnyUnlinked() {
		return nil
	}
	return inputs.Expand(paths, forced).Unlinked(forced)
}

// streamHint says what to do when err is a stream's read that needs
// tally-full: tally could not hand it over, as standard input (or a pipe)
// is not looked at before it is read.
func streamHint(stderr io.Writer, command string, err error) {
	var ne *format.NoEngineError
	if errors.As(err, &ne) {
		fmt.Fprintf(stderr, "tally %s: a stream is read once, so tally cannot hand it over: give --format %s (tally then hands the command to %s before reading), or run %s itself\n", command, ne.Reader, fullName, fullName)
	}
}

// handedOverNote says, in tally-full, when the tally that handed the
// command over is another build: their outputs may differ.
func handedOverNote(stderr io.Writer) {
	from := os.Getenv(handedOverEnv)
	if from == "" {
		return
	}
	if self := buildKey(); from != self {
		fmt.Fprintf(stderr, "tally: note: tally (%s) handed this command to %s, another build (%s); install both from one version\n", from, fullName, self)
	}
}
