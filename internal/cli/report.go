package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/readers"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/render"
	"github.com/tallyprof/tally/render/htmlreport"
	"github.com/tallyprof/tally/report"
)

// readerFlags are the flags every command that reads a trace shares.
type readerFlags struct {
	format    string
	manifests pathsFlag
	programBy string
	wait      time.Duration
	nameMaps  multiFlag
	progress  progressFlag
	spill     int64 // --spill-limit: bytes, 0 none
	maxDur    time.Duration
}

func (rf *readerFlags) register(fs *flag.FlagSet) {
	var names []string
	for _, f := range format.Formats() {
		names = append(names, f.Name)
	}
	rf.format = ""
	fs.Var(&choiceFlag{choices: names, check: func(s string) error {
		if _, ok := format.Lookup(s); !ok {
			return fmt.Errorf("no reader of that name: give %s (tally formats lists them)", orList(names))
		}
		rf.format = s
		return nil
	}}, "format", "reader `NAME` to use instead of detecting it from the content (see 'tally formats')")
	fs.Var(&rf.manifests, "manifests", "hrx kernel `manifest.json` or a directory searched for them; repeat for each kernel directory of the build"+readBy(format.OptManifests, ""))
	rf.programBy = format.ByAuto
	fs.Var(&choiceFlag{value: format.ByAuto, choices: format.ProgramByValues, check: func(s string) error {
		_, err := format.ParseProgramBy(s)
		rf.programBy = s
		return err
	}}, "program-by", "group dispatches into programs: `auto` (the reader's programs, one per device when the capture ran on several), annotation (the reader's programs: NVTX ranges, Kineto annotations, command buffers…), gpu-annotation (Kineto: GPU annotations only), device, stream, none, or annotation,device / annotation,stream")
	fs.Func("unrecorded-wait", "Kineto: report unrecorded_device_work when a stream with launched work sits idle, with no recorded device work running, longer than `DURATION` (0: 1ms)"+readBy(format.OptUnrecordedWait, " and, where the output has one, the time breakdown (of dispatches with a launch call)"), func(s string) error {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Errorf("give a duration such as 500us, 1ms or 2s")
		case d < 0:
			return fmt.Errorf("give a duration of 0 (the default, 1ms) or more")
		}
		rf.wait = d
		return nil
	})
	fs.Func("name-map", "swimlane: name program `PROGRAM=FILE`'s kernels from FILE, a level-2 name_map.json you vouch for (stated as user-supplied; maps found in dispatch dirs are never used); repeat per program"+readBy(format.OptNameMap, ""), func(s string) error {
		prog, file, ok := strings.Cut(s, "=")
		if !ok || prog == "" || file == "" {
			return fmt.Errorf("give PROGRAM=FILE")
		}
		if err := (&pathsFlag{}).Set(file); err != nil {
			return err // checked here: only swimlane inputs read it
		}
		rf.nameMaps = append(rf.nameMaps, s)
		return nil
	})
	fs.Func("max-duration", "the longest single dispatch taken as measured on a ns clock, `DURATION` (default 1h); a longer one is an invalid_event, listed and kept out of the tables. Raise it for kernels that really run longer: those past the hour are then listed in a raised_ceiling note", func(s string) error {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Errorf("give a duration such as 90m or 4h")
		case d <= 0:
			return fmt.Errorf("give a duration above 0 (the default is 1h)")
		}
		rf.maxDur = d
		return nil
	})
	rf.progress.register(fs)
	fs.Func("spill-limit", "most `SIZE` a reader may write to TMPDIR of its own working data (the Kineto dispatch log spills about 73 bytes per device event past 8 MiB), e.g. 2GiB; unlimited by default. Copies of gzip or piped input are bounded by TALLY_SPOOL_LIMIT instead"+readBy(format.OptSpillLimit, " and, where the output has one, the time breakdown"), func(s string) error {
		n, err := format.ParseSize(s)
		switch {
		case err != nil:
			return err
		case n == 0:
			return fmt.Errorf("give a size above 0, or unlimited")
		case n < 0:
			n = 0 // unlimited
		}
		rf.spill = n
		return nil
	})
}

// readBy ends a reader flag's help: the readers that list it in
// Format.Uses (and also: what else uses it), and that a run where nothing
// used it says so.
func readBy(o format.Option, also string) string {
	return "; read by the " + orList(format.Users(o)) + " reader" + also + ": given and used for no input, it is stated in a note (unused_option)"
}

func (rf *readerFlags) options() inputs.Options {
	o := inputs.Options{Format: rf.format, Reader: readerOptions(rf.manifests.multiFlag)}
	o.Reader.ProgramBy = rf.programBy
	o.Reader.UnrecordedWait = rf.wait
	o.Reader.NameMaps = rf.nameMaps
	o.Reader.SpillLimit = rf.spill
	o.Reader.MaxDuration = rf.maxDur
	o.Watch = rf.progress.watch
	o.Progress = rf.progress.set()
	return o
}

func readerOptions(manifests []string) format.Options {
	return format.Options{Manifests: manifests}
}

// writeOutput writes to path (checked, atomic) or to stdout.
func writeOutput(path string, stdout io.Writer, fill func(io.Writer) error) error {
	if path == "" || path == "-" {
		if err := fill(stdout); err != nil {
			return fmt.Errorf("writing the report to standard output: %w", err)
		}
		return nil
	}
	return checkedfile.Write(path, fill)
}

func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", "Usage: tally report [flags] FILE|DIR...\n\nReads FILE (format detected from its content), prints one kernel table per program and,\nunder the tables, everything the capture did not show. Several files or a directory\n(ranks, runs) are read in parallel: one section per input, then merged tables per program.\nWith --by op, also a table of the host ops that launched the dispatches (Kineto), with\nFLOPs, bytes and the roofline where shapes were recorded (docs/ops.md).\n\nFlags:\n", stderr)
	var rf readerFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "write the versioned JSON report (schema tally.report/v1, see docs/report-json.md)")
	strict := fs.Bool("strict", false, "exit 1 when the capture is not complete (any gap)")
	out := fs.String("o", "", "write the report to `FILE` instead of standard output")
	top := 0
	fs.Func("top", "show the `N` costliest kernels per program and sum the rest in one line (0: all)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("give a number of kernels, 0 (all) or more")
		}
		top = n
		return nil
	})
	order := choice(fs, "order", "time", "text report: print programs by device `time`, costliest first, or in input order (input)", []string{"time", "input"}, nil)
	names := choice(fs, "names", "short", "text report: kernel names `short` (template arguments and parameters left out, as nsys shortName; cut to fit 120 columns) or full (whole, as the input wrote them)", []string{"short", "full"}, nil)
	html := fs.String("html", "", "also write the report as one self-contained HTML page to `FILE` (charts, sortable tables, timeline; one section per input when several); - writes the page to standard output instead of the text report (which then goes only to -o FILE)")
	failAffected := fs.Float64("fail-if-affected", -1, "exit 1 when the gaps touch more than `PCT` percent of device time (missing or not fully attributed), or when a gap's size is unknown — unless its kind is accepted with --accept (a CI gate that, unlike --strict, lives with gaps of known small size)")
	accept := &multiChoice{choices: gapKinds, check: func(s string) error { _, err := report.ParseAccept([]string{s}); return err }}
	fs.Var(accept, "accept", "with --fail-if-affected: leave gap `KIND` out of the check (e.g. truncated_input for traces trimmed after recording); repeat or separate with commas")
	launchLatency := fs.Duration("launch-latency", 0, "time breakdown: the longest wait of a queued dispatch, once the host's part is taken out, called launch_latency (0: 30µs, HTA's consecutive-kernel delay); see docs/breakdown.md")
	shortKernel := fs.Duration("short-kernel", 0, "launch statistics: dispatches shorter than `DURATION` count as short kernels (0: 10µs)")
	breakdown := fs.Bool("breakdown", true, "the time breakdown per device (busy by class, idle by cause) and the launch statistics, in the text, JSON and HTML reports; --breakdown=false leaves them out, and their cost (docs/breakdown.md)")
	launchStats := fs.Bool("launch-stats", false, "text report: a table of launch statistics per kernel (launch-to-start delay mean, p50, p99, max; short kernels) under each program's kernel table")
	var of opFlags
	of.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitcode.Error
	}
	gate, err := reportGate(*strict, *failAffected, accept.multiFlag)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	if len(pos) == 0 {
		return usageError(fs, "give a trace file, several, or a directory of them")
	}
	topt, err := textOptions(top, *order, *names)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	if err := reportConflicts(fs, *asJSON, *out, *html); err != nil {
		return usageError(fs, "%v", err)
	}
	if err := outputsClash([]string{*out, *html}, pos); err != nil {
		return usageError(fs, "%v", err)
	}
	if *launchLatency < 0 || *shortKernel < 0 {
		return usageError(fs, "--launch-latency and --short-kernel take a duration of 0 or more (e.g. 30us)")
	}
	topt.LaunchStats = *launchStats
	ops, err := of.options()
	if err != nil {
		return usageError(fs, "%v", err)
	}
	rep := reportOutputs{text: *out, html: *html, asJSON: *asJSON, topt: topt, command: append([]string{"tally", "report"}, args...)}
	e := inputs.Expand(pos, rf.format)
	e.PassOver(*out, *html)
	if err := e.Unlinked(rf.format); err != nil {
		return handover(append([]string{"report"}, args...), err, stderr)
	}
	opt := rf.options()
	opt.Ops = ops
	if *breakdown {
		opt.Breakdown = &analysis.BreakdownOptions{LaunchLatency: launchLatency.Nanoseconds(), ShortKernel: shortKernel.Nanoseconds()}
	}
	var tls []*htmlreport.Timeline
	if *html != "" {
		// One timeline per input: inputs are read in parallel.
		tls = make([]*htmlreport.Timeline, len(e.Paths))
	}
	col := collectives.NewCollector()
	opt.Sink = func(i int, _ string) capture.Sink {
		if tls == nil {
			return col.Sink(i)
		}
		tls[i] = htmlreport.NewTimeline()
		return capture.Tee{tls[i], col.Sink(i)}
	}
	run := e.Read(opt)
	if err := run.Err(); err != nil {
		safetext.Fprintf(stderr, "tally report: %v\n", err)
		streamHint(stderr, "report", err)
		return exitcode.Error
	}
	x := report.Extras{Collectives: collectives.Analyze(run, col)}
	err = rep.write(stdout, func(w io.Writer) error {
		return htmlreport.Write(w, run, htmlreport.Options{Command: rep.command, Timelines: tls, InputOrder: topt.InputOrder, FullNames: topt.FullNames,
			Collectives: x.Collectives})
	}, func(w io.Writer, asJSON bool, topt render.TextOptions) error {
		return report.WriteWith(w, run, asJSON, topt, x)
	})
	if err != nil {
		safetext.Fprintf(stderr, "tally report: %v\n", err)
		return exitcode.Error
	}
	code, why := report.ExitCode(run, gate)
	return gateExit(stderr, code, why)
}

// textOptions builds the text report's options from --top, --order and
// --names.
func textOptions(top int, order, names string) (render.TextOptions, error) {
	o := render.TextOptions{Top: top}
	switch order {
	case "time":
	case "input":
		o.InputOrder = true
	default:
		return o, fmt.Errorf("--order %q: give time (costliest program first) or input (as read)", order)
	}
	switch names {
	case "short":
	case "full":
		o.FullNames = true
	default:
		return o, fmt.Errorf("--names %q: give short (as nsys shortName, cut to fit) or full (whole)", names)
	}
	return o, nil
}

// reportConflicts refuses flags that would be dropped without a word:
// what the outputs asked for cannot show.
func reportConflicts(fs *flag.FlagSet, asJSON bool, out, html string) error {
	textOut := html != "-" || out != "" && out != "-" // the text or JSON report is written somewhere
	switch {
	case html == "-" && out == "-":
		return fmt.Errorf("--html - and -o - both write to standard output; give one of them a file")
	case asJSON && !textOut:
		return fmt.Errorf("--json with --html -: the page takes standard output and the JSON report would be dropped; give -o FILE for the JSON")
	}
	for _, name := range []string{"top", "order", "names"} {
		if !given(fs, name) {
			continue
		}
		switch {
		case name == "top" && asJSON:
			return fmt.Errorf("--top applies to the text report; the JSON report lists every kernel")
		case name == "top" && !textOut:
			return fmt.Errorf("--top applies to the text report, which --html - leaves out; give -o FILE for it")
		case asJSON && html == "":
			return fmt.Errorf("--%s applies to the text report and the HTML page; the JSON report has every program and full names", name)
		}
	}
	return nil
}

// gapKinds are the gap kinds --accept takes (notes need no accepting).
func gapKinds() []string {
	var out []string
	for _, k := range capture.Kinds() {
		if !k.IsNote() {
			out = append(out, string(k))
		}
	}
	return out
}

// reportGate builds the exit gate from --strict, --fail-if-affected and
// --accept.
func reportGate(strict bool, failPct float64, accept []string) (report.Gate, error) {
	g := report.Gate{Strict: strict, MaxAffected: -1}
	if failPct >= 0 {
		if failPct > 100 {
			return g, fmt.Errorf("--fail-if-affected %g: give a percentage from 0 to 100", failPct)
		}
		g.MaxAffected = failPct / 100
	} else if failPct != -1 {
		return g, fmt.Errorf("--fail-if-affected %g: give a percentage from 0 to 100", failPct)
	}
	if len(accept) > 0 && g.MaxAffected < 0 {
		return g, fmt.Errorf("--accept needs --fail-if-affected: --strict fails on any gap, accepted or not")
	}
	var err error
	g.Accept, err = report.ParseAccept(accept)
	return g, err
}

// gateExit prints why the affected check failed, if it did, and returns
// the exit code.
func gateExit(stderr io.Writer, code int, why []string) int {
	for _, w := range why {
		fmt.Fprintf(stderr, "tally report: --fail-if-affected: %s\n", w)
	}
	return code
}

// reportOutputs are where `tally report` writes: the text or JSON report
// (-o, default standard output) and the HTML page (--html, - for standard
// output, which then takes the place of the text report unless -o names a
// file).
type reportOutputs struct {
	text, html string
	asJSON     bool
	topt       render.TextOptions
	command    []string
}

// write writes the page (when asked for) and then the report; every write
// is checked.
func (o reportOutputs) write(stdout io.Writer, page func(io.Writer) error, text func(io.Writer, bool, render.TextOptions) error) error {
	if o.html != "" {
		if err := writeOutput(o.html, stdout, page); err != nil {
			return err
		}
		if o.html == "-" && (o.text == "" || o.text == "-") {
			return nil
		}
	}
	return writeOutput(o.text, stdout, func(w io.Writer) error { return text(w, o.asJSON, o.topt) })
}

func cmdInspect(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("inspect", "Usage: tally inspect [flags] FILE\n\nDescribes what FILE holds: its format, size, records, sessions, clocks, and what is missing.\n\nFlags:\n", stderr)
	var rf readerFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "write JSON (schema tally.inspect/v1, see docs/inspect-json.md)")
	strict := fs.Bool("strict", false, "exit 1 when the capture is not complete (any gap)")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	pos, code, ok := parseArgs(fs, args, 1, "give exactly one file")
	if !ok {
		return code
	}
	if err := outputsClash([]string{*out}, pos); err != nil {
		return usageError(fs, "%v", err)
	}
	// Read through the tables so that the gaps are sized (what each touches
	// is known only against the tables' device time). The one path is read
	// as given: a directory is a run directory or an error, never walked.
	e := inputs.Paths(pos[0])
	if err := e.Unlinked(rf.format); err != nil {
		return handover(append([]string{"inspect"}, args...), err, stderr)
	}
	run := e.Read(rf.options())
	if err := run.Err(); err != nil {
		safetext.Fprintf(stderr, "tally inspect: %v\n", err)
		streamHint(stderr, "inspect", err)
		return exitcode.Error
	}
	c := run.Inputs[0].Capture
	err := writeOutput(*out, stdout, func(w io.Writer) error {
		if *asJSON {
			return render.InspectJSON(w, c)
		}
		return render.InspectText(w, c)
	})
	if err != nil {
		safetext.Fprintf(stderr, "tally inspect: %v\n", err)
		return exitcode.Error
	}
	if *strict && !c.Accounting.Complete() {
		return exitcode.Failed
	}
	return exitcode.OK
}

func cmdFormats(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("formats", "Usage: tally formats\n\nLists the readers: the names --format takes, and what each reads.\n", stderr)
	if code, ok := parseNoArgs(fs, args); !ok {
		return code
	}
	for _, f := range format.Formats() {
		if _, err := fmt.Fprintf(stdout, "%-12s %s\n", f.Name, f.Description); err != nil {
			return helpWritten(stderr, "formats", err)
		}
	}
	return exitcode.OK
}
