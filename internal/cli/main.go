// Package cli is the tally command: it reports where accelerator kernel time
// went, per program and per kernel, and states everything the input did not
// show. It only wires flags to library calls; every feature is importable
// from the packages.
//
// Two programs run it. cmd/tally links what most commands need and starts
// in a few milliseconds; cmd/tally-full also links the engines that are
// slow to initialise (SQLite for the nsys and rocpd readers, the Parquet
// and pprof writers of tally export). tally hands an invocation that needs
// them to tally-full, with the same arguments (handover.go).
package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/tallyprof/tally/internal/cleanup"
	"github.com/tallyprof/tally/internal/exitcode"
)

const usage = `tally — per-program kernel tables from accelerator traces, with their accounting

Usage:
  tally report [flags] FILE       tables per program and kernel, then every gap
                                  (FILE... or DIR: ranks and runs, one section each, merged)
  tally inspect [flags] FILE      what the file holds: structure, counts, losses
  tally timeline [flags] IN... -o OUT  Perfetto or Chrome JSON timeline, accounting included
  tally record [flags] -- CMD...  run CMD, keep its trace (hrx, NPU engine), report it
  tally layers [flags] REF OURS   compare per-layer tensor dumps (.f32, .npy), name the step change
  tally diff [flags] A B          what a change did, per program and kernel, with statistics
                                  (A1 A2 -- B1 B2 for repeated runs)
  tally export --to F FILE... -o OUT  pprof, Kineto JSON, CSV/JSONL or a Parquet dataset, with the accounting
  tally selftest                  check this binary against embedded traces
  tally formats                   list the readers and what they read
  tally version                   module version, VCS revision and Go version (also --version, -v)
  tally completion SHELL          shell completion script for bash, zsh or fish

Run 'tally COMMAND -h' or 'tally help COMMAND' for a command's flags and examples.
tally hands nsys and rocpd (SQLite) inputs and tally export to tally-full, installed beside
it (go install ./cmd/tally-full); 'tally version' says what this program hands over.

Exit status:
  0  report written (complete; or incomplete without --strict)
  1  --strict and the capture has a gap; selftest failed
  2  usage or input error, or an empty capture (an input with no dispatch event at all)
  tally record exits with the command's own status (128+N if a signal N killed it),
  or 1 under --strict when the trace is incomplete and the command succeeded.
  Interrupted (SIGINT, SIGTERM, SIGHUP), tally removes the temporary files it was
  writing, leaves every earlier output as it was, and ends by the signal (130 for Ctrl-C).
`

// Main runs the tally command line args (without the program name) and
// returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr)
}

func run(args []string, stdout, stderr io.Writer) (code int) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitcode.Error
	}
	if helpRequested(args) {
		// Asked-for help goes to standard output and is a success, unless
		// it could not be written: the flag package's usage does not
		// check its writes, so the writer remembers the first failure.
		out, errOut := &checkedWriter{w: stdout}, stderr
		stdout, stderr = out, out
		defer func() { code = helpWritten(errOut, args[0], out.err) }()
	}
	handedOverNote(stderr)
	if args[0] != "record" {
		// Interrupted, a command removes the temporaries it was writing
		// (.OUT.tmpNNN beside OUT, copies in TMPDIR) and ends by the
		// signal; record forwards signals to its command instead.
		defer cleanup.Catch()()
	}
	switch args[0] {
	case "report":
		return cmdReport(args[1:], stdout, stderr)
	case "inspect":
		return cmdInspect(args[1:], stdout, stderr)
	case "timeline":
		return cmdTimeline(args[1:], stdout, stderr)
	case "record":
		return cmdRecord(args[1:], stdout, stderr)
	case "layers":
		return cmdLayers(args[1:], stdout, stderr)
	case "export":
		return cmdExport(args[1:], stdout, stderr)
	case "selftest":
		return cmdSelftest(args[1:], stdout, stderr)
	case "diff":
		return cmdDiff(args[1:], stdout, stderr)
	case "formats":
		return cmdFormats(args[1:], stdout, stderr)
	case "version", "--version", "-version", "-v":
		return cmdVersion(args[1:], stdout, stderr)
	case "completion":
		return cmdCompletion(args[1:], stdout, stderr)
	case "help":
		return cmdHelp(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		_, err := fmt.Fprint(stdout, usage)
		return helpWritten(stderr, "help", err)
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.Name)
	}
	fmt.Fprintf(stderr, "tally: unknown command %q: give one of %s; see: tally help\n", args[0], strings.Join(names, ", "))
	return exitcode.Error
}
