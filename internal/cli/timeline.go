package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/timeline"
)

func cmdTimeline(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("timeline", `Usage: tally timeline [flags] IN... -o OUT.perfetto-trace|OUT.json

Writes every dispatch of the inputs as a timeline to open in Perfetto (ui.perfetto.dev):
Perfetto's native protobuf, or Chrome Trace Event JSON when OUT ends in .json (or --as chrome).
One track per rank, device and queue; unfinished dispatches drawn to the capture's end and
marked; every gap as instant events on an accounting track; the verdict in the metadata.
An input that cannot be read is a gap of the whole and does not stop the others.
See docs/timeline.md.

Flags:
`, stderr)
	var rf readerFlags
	rf.register(fs)
	out := fs.String("o", "", "write the timeline to `FILE` (required; - for standard output)")
	as := choice(fs, "as", "", "output `FORMAT`: perfetto or chrome (default: by the -o name, .json is chrome)", []string{"perfetto", "chrome"}, func(s string) error {
		_, err := timeline.ParseFormat(s)
		return err
	})
	strict := fs.Bool("strict", false, "exit 1 when anything is missing (any gap, failed input, or dispatch not drawn)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitcode.Error
	}
	if len(pos) == 0 || *out == "" {
		return usageError(fs, "give one or more inputs and -o OUT")
	}
	if err := outputsClash([]string{*out}, pos); err != nil {
		return usageError(fs, "%v", err)
	}
	ro := rf.options()
	if err := unlinkedInputs(pos, ro.Format); err != nil {
		return handover(append([]string{"timeline"}, args...), err, stderr)
	}
	opt := timeline.Options{Format: ro.Format, Reader: ro.Reader, As: timeline.FormatForPath(*out), Progress: ro.Progress, Out: *out}
	if *as != "" {
		opt.As, _ = timeline.ParseFormat(*as) // checked when parsed
		if named, ok := timelineByName(*out); ok && named != opt.As {
			return usageError(fs, "--as %s, and -o %s is named as the other format; name the file for what it holds (.json: chrome, .perfetto-trace: perfetto)", *as, *out)
		}
	}
	var sum *timeline.Summary
	err = writeOutput(*out, stdout, func(w io.Writer) error {
		var err error
		sum, err = timeline.Run(pos, w, opt)
		return err
	})
	if err != nil {
		safetext.Fprintf(stderr, "tally timeline: %v\n", err)
		return exitcode.Error
	}
	for _, err := range sum.Errors {
		safetext.Fprintf(stderr, "tally timeline: FAILED: %v\n", err)
		streamHint(stderr, "timeline", err)
	}
	for _, e := range sum.Empty {
		safetext.Fprintf(stderr, "tally timeline: NO DISPATCH RECORDED in %s\n", e)
	}
	fmt.Fprintf(stderr, "tally timeline: %s, %d unfinished, %s, %s; %s\n", units.Plural(int64(sum.Stats.Slices), "slice", "slices"), sum.Stats.Unfinished,
		units.Plural(int64(sum.Stats.Launches), "launch", "launches"), units.Plural(int64(sum.Stats.Tracks), "track", "tracks"), sum.Verdict)
	switch {
	case sum.Failed == sum.Inputs:
		return exitcode.Error // nothing read: every input failed, or none was found
	case len(sum.Empty) > 0:
		return exitcode.Error // as tally report and tally export: a capture without a dispatch event
	case *strict && !sum.Complete:
		return exitcode.Failed
	}
	return exitcode.OK
}

// timelineByName is the format a file name says, when it says one.
func timelineByName(path string) (timeline.Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return timeline.Chrome, true
	case ".perfetto-trace", ".pftrace":
		return timeline.Perfetto, true
	}
	return 0, false
}
