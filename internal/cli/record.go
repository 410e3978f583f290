package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tallyprof/tally/format/hrxserial"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/record"
	"github.com/tallyprof/tally/render"
	"github.com/tallyprof/tally/report"
)

func cmdRecord(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("record", `Usage: tally record [flags] -- CMD [ARGS...]

Runs CMD (e.g. a llama.cpp program with GGML_HRX_DEBUG_SERIAL_EXECUTION=1, or an NPU
engine with NPU_PROFILE=1), keeps its trace (every stderr line, and the stdout lines a
reader claims) with each line stamped on arrival, passes all other output through,
forwards SIGINT/SIGTERM to it, and at its end prints the report (to standard error, or
to -report FILE) and exits with CMD's status. A signal after CMD exited, while a process
it started still holds its output open, stops the reading (exit 128+N).

Flags:
`, stderr)
	kept := fs.String("o", "", "kept trace `FILE` (default tally-YYYYMMDD-HHMMSS.kept)")
	var manifests pathsFlag
	fs.Var(&manifests, "manifests", "kernel `manifest.json` or directory; repeatable")
	asJSON := fs.Bool("json", false, "write the report as JSON (tally.report/v1)")
	strict := fs.Bool("strict", false, "exit 1 when CMD succeeded but its trace is not complete")
	reportOut := fs.String("report", "", "write the report to `FILE` instead of standard error")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitcode.Error
	}
	if len(pos) == 0 {
		return usageError(fs, "give the command after --, e.g. tally record -o run.kept -- ./llama-cli -m model.gguf")
	}
	if *kept == "" {
		*kept = time.Now().Format("tally-20060102-150405.kept")
	}
	if err := outputsClash([]string{*kept, *reportOut}, nil); err != nil {
		return usageError(fs, "%v", err)
	}
	res, err := record.Run(record.Options{Command: pos, Kept: *kept, Stdout: stdout, Stderr: stderr, Stdin: os.Stdin})
	if err != nil {
		safetext.Fprintf(stderr, "tally record: %v\n", err)
		if errors.Is(err, record.ErrWrite) {
			fmt.Fprintln(stderr, "tally record: the command was stopped; no report is printed from a short trace.")
		}
		if res != nil && res.Abandoned {
			safetext.Fprintf(stderr, "tally record: %s had exited, but a process it started still held its output open; tally record stopped reading it, as nothing more could be kept (that process still runs)\n", pos[0])
		}
		return exitcode.Error
	}
	run := inputs.Paths(*kept).Read(inputs.Options{Format: res.Format(hrxserial.Name), Reader: readerOptions(manifests.multiFlag)})
	if err := run.Err(); err != nil {
		fmt.Fprintf(stderr, "tally record: reading back %s: %v\n", *kept, err)
		return exitcode.Error
	}
	c := run.Inputs[0].Capture
	res.CutGap(&c.Accounting, *kept)
	fmt.Fprintf(stderr, "tally record: %s ended with status %d; kept %s (%s) in %s\n",
		pos[0], res.ExitCode, units.Plural(res.Lines, "line", "lines"), units.Plural(res.TraceLines, "trace line", "trace lines"), *kept)
	if res.Unread != 0 {
		fmt.Fprintf(stderr, "tally record: stopped reading on %s: %s had exited, but a process it started still held its output open; what that process wrote after is not kept (interrupted_recording)\n",
			record.SignalName(res.Unread), pos[0])
	}
	if res.PassErr != nil {
		fmt.Fprintf(stderr, "tally record: passing the command's output through failed (%v): %s not shown (not trace lines; stderr lines are in the kept trace)\n", res.PassErr, units.Plural(res.Unshown+1, "line was", "lines were"))
	}
	if err := writeOutput(*reportOut, stderr, func(w io.Writer) error { return report.Write(w, run, *asJSON, render.TextOptions{}) }); err != nil {
		safetext.Fprintf(stderr, "tally record: %v\n", err)
		return exitcode.Error
	}
	if res.Unread != 0 {
		// The user stopped tally record: its status says so, as any
		// command's interrupted by a signal (the command's own is above).
		return 128 + int(res.Unread)
	}
	if res.ExitCode == 0 && *strict && !c.Accounting.Complete() {
		return exitcode.Failed
	}
	return res.ExitCode
}
