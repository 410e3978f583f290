package export

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/render"
)

// pprof sample values, in SampleType order.
const (
	ppDispatches = iota
	ppGPUTime
	ppUnfinished
	ppValues
)

// ppKey is one distinct (stack, labels): every dispatch with the same key
// adds to one Sample, so the profile grows with kernels, not dispatches.
type ppKey struct {
	input   int
	rank    string
	program capture.ProgramID
	kernel  capture.KernelID
	queue   capture.QueueID
	list    string
	status  string
	// name replaces the kernel's name (unfinished dispatches known only
	// by a gap item's names); program is then -1 and progName is used.
	name, progName string
}

// profileWriter is --to pprof: a gzipped profile.proto whose samples are
// (kernel ← program ← rank/device) stacks with dispatch counts and device
// time, labelled with queue, list, device, rank, source and status, and
// whose comments carry every input's accounting (go tool pprof -comments).
// Each input sums into its own maps (read in parallel); the keys hold the
// input's index, so merging them is a union.
type profileWriter struct {
	readErr
	opt      Options
	perInput []map[ppKey]*[ppValues]int64
	windows  []map[capture.ProgramID]*span
}

func openPProf(opt Options, n int) *profileWriter {
	return &profileWriter{opt: opt, perInput: make([]map[ppKey]*[ppValues]int64, n), windows: make([]map[capture.ProgramID]*span, n)}
}

func (pw *profileWriter) abort() {}

func (pw *profileWriter) sink(in *input) capture.Sink {
	win := map[capture.ProgramID]*span{}
	samples := map[ppKey]*[ppValues]int64{}
	pw.windows[in.Index], pw.perInput[in.Index] = win, samples
	return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
		in.Written.count(c, d)
		k := ppKey{input: in.Index, rank: in.rankOf(c, d.Queue), program: d.Program, kernel: d.Kernel, queue: d.Queue, list: d.List}
		if k.list == "" && int(d.Kernel) >= 0 && int(d.Kernel) < len(c.Kernels) {
			k.list = c.Kernels[d.Kernel].List
		}
		// The program's clock is stated only after the input is read:
		// times are summed now and dropped at the end when it is not ns.
		var t int64
		switch {
		case d.Aggregate != nil:
			k.status = "aggregated"
			if d.Aggregate.DeviceValid {
				t = d.Aggregate.Device
			} else {
				k.status = "aggregated-untimed"
			}
		case !d.Device.Valid:
			k.status = "untimed"
		default:
			t = d.Device.End - d.Device.Begin
			k.status = linkStatus(d.Link)
			w := win[d.Program]
			if w == nil {
				w = newSpan()
				win[d.Program] = w
			}
			w.add(d.Device.Begin, d.Device.End)
		}
		v := samples[k]
		if v == nil {
			v = new([ppValues]int64)
			samples[k] = v
		}
		v[ppDispatches] = capture.SatAdd(v[ppDispatches], d.Count())
		v[ppGPUTime] = capture.SatAdd(v[ppGPUTime], t)
	})
}

func (pw *profileWriter) write(ins []*input, run *analysis.Run) error {
	samples := map[ppKey]*[ppValues]int64{}
	for _, m := range pw.perInput {
		maps.Copy(samples, m)
	}
	for _, in := range ins {
		addUnfinished(in, samples)
	}
	p := buildProfile(ins, samples, pw.windows)
	for _, sk := range run.Skipped {
		p.Comments = append(p.Comments, fmt.Sprintf("skipped file (not read): %s: %s", sk.Path, sk.Reason))
	}
	for _, r := range wholeGapRows(run) {
		label := "GAP"
		if r.Note {
			label = "note"
		}
		p.Comments = append(p.Comments, fmt.Sprintf("run: %s %s (%d): %s — %s", label, r.Kind, r.Count, r.Summary, r.First))
	}
	for i, c := range p.Comments {
		// go tool pprof -comments prints them to a terminal: a path's or a
		// name's control characters are escaped, as the text report does.
		p.Comments[i] = safetext.Escape(c)
	}
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("building the profile: %w", err)
	}
	return writeSingle(pw.opt, func(w io.Writer) error { return p.Write(w) })
}

func linkStatus(l capture.Link) string {
	switch l {
	case capture.LinkNoLaunch:
		return "no-launch"
	case capture.LinkGraph:
		return "graph"
	}
	return "complete"
}

// addUnfinished adds the dispatches that were launched and never finished:
// one dispatch and one unfinished each, and no time (it is unknown, so it
// is not added as a short duration). Those a gap counts beyond its listed
// items are one sample under the frame "(unfinished, not listed)".
func addUnfinished(in *input, samples map[ppKey]*[ppValues]int64) {
	c := in.Capture
	for _, g := range c.Accounting.Gaps {
		if g.Kind != capture.UnfinishedDispatch {
			continue
		}
		add := func(program, kernel string, n int64) {
			k := ppKey{input: in.Index, rank: in.inputRank(c), program: -1, kernel: -1, queue: capture.NoQueue, progName: program, name: kernel, status: "unfinished"}
			v := samples[k]
			if v == nil {
				v = new([ppValues]int64)
				samples[k] = v
			}
			v[ppDispatches] = capture.SatAdd(v[ppDispatches], n)
			v[ppUnfinished] = capture.SatAdd(v[ppUnfinished], n)
		}
		for _, it := range g.Items {
			prog := it.Program
			if prog == "" {
				prog = g.Program
			}
			kern := it.Kernel
			if kern == "" {
				kern = "(unfinished, kernel not named)"
			}
			add(prog, kern, 1)
		}
		if rest := g.Count - int64(len(g.Items)); rest > 0 {
			add(g.Program, "(unfinished, not listed)", rest)
		}
	}
}

func buildProfile(ins []*input, samples map[ppKey]*[ppValues]int64, windows []map[capture.ProgramID]*span) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "dispatches", Unit: "count"},
			{Type: "gpu_time", Unit: "nanoseconds"},
			{Type: "unfinished", Unit: "count"},
		},
		DefaultSampleType: "gpu_time",
		DocURL:            "https://github.com/tallyprof/tally/blob/main/docs/export.md",
	}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l := locs[name]; l != nil {
			return l
		}
		// SystemName stays empty: pprof's demangler would otherwise cut
		// template arguments and merge distinct kernels (docs/export.md).
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	keys := make([]ppKey, 0, len(samples))
	for k := range samples {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return ppLess(keys[i], keys[j]) })
	for _, k := range keys {
		v := samples[k]
		c := ins[k.input].Capture
		kernel, program, device, queue := k.name, k.progName, "", ""
		if int(k.kernel) >= 0 && int(k.kernel) < len(c.Kernels) {
			kernel = c.Kernels[k.kernel].Name
		}
		if int(k.program) >= 0 && int(k.program) < len(c.Programs) {
			program = c.Programs[k.program].Name
		}
		if k.queue >= 0 && int(k.queue) < len(c.Queues) {
			device, queue = c.Queues[k.queue].Device, c.Queues[k.queue].Name
		}
		// Protobuf strings are UTF-8 (a decoder may refuse one that is
		// not); an input's names may hold any bytes.
		kernel, program, device, queue, rank := validUTF8(kernel), validUTF8(program), validUTF8(device), validUTF8(queue), validUTF8(k.rank)
		status, t := k.status, v[ppGPUTime]
		if k.program >= 0 && t != 0 && c.ProgramClock(k.program).Unit != "ns" {
			status, t = "ticks", 0 // device ticks: no ns time to add
		}
		top := "rank " + rank
		if device != "" {
			top += " · " + device
		}
		prog := "program " + program
		if program == "" {
			prog = "(no program)"
		}
		s := &profile.Sample{
			Location: []*profile.Location{loc(kernel), loc(prog), loc(top)},
			Value:    []int64{v[ppDispatches], t, v[ppUnfinished]},
			Label:    map[string][]string{"rank": {rank}, "status": {status}, "source": {c.Source.Format}},
		}
		for name, val := range map[string]string{"device": device, "queue": queue, "list": validUTF8(k.list)} {
			if val != "" {
				s.Label[name] = []string{val}
			}
		}
		p.Sample = append(p.Sample, s)
	}
	// One window over every input: pprof has one time range per profile;
	// the start is a time only when every clock is the Unix epoch.
	lo, hi, epoch := int64(math.MaxInt64), int64(math.MinInt64), true
	for i, ws := range windows {
		c := ins[i].Capture
		for p, w := range ws {
			if clock := c.ProgramClock(p); clock.Unit == "ns" {
				lo, hi = min(lo, w.lo), max(hi, w.hi)
				epoch = epoch && clock.Domain == "unix-epoch"
			}
		}
	}
	if lo <= hi {
		p.DurationNanos = hi - lo
		if epoch {
			p.TimeNanos = lo
		}
	}
	p.Comments = ppComments(ins)
	return p
}

func ppLess(a, b ppKey) bool {
	if a.input != b.input {
		return a.input < b.input
	}
	if a.program != b.program {
		return a.program < b.program
	}
	if a.kernel != b.kernel {
		return a.kernel < b.kernel
	}
	if a.queue != b.queue {
		return a.queue < b.queue
	}
	for _, x := range [][2]string{{a.rank, b.rank}, {a.list, b.list}, {a.status, b.status}, {a.progName, b.progName}, {a.name, b.name}} {
		if x[0] != x[1] {
			return x[0] < x[1]
		}
	}
	return false
}

// ppComments is every input's accounting as profile comments, one fact a
// line (go tool pprof -comments prints them).
func ppComments(ins []*input) []string {
	out := []string{"tally export: gpu_time is device time in ns; dispatches counts every dispatch, aggregated records by their count; unfinished dispatches count 1 dispatch, 1 unfinished and no time (status=unfinished)"}
	for _, in := range ins {
		c := in.Capture
		complete := render.ShortVerdict(c)
		out = append(out, fmt.Sprintf("input %d: %s (%s, %d bytes), rank %s (from %s): %s", in.Index, in.Path, c.Source.Format, c.Source.Bytes, in.inputRank(c), in.rankFrom(), complete))
		out = append(out, fmt.Sprintf("input %d clock: %s [%s, %s]", in.Index, c.Clock.Description, c.Clock.Domain, c.Clock.Unit))
		if s := readSummary(c); s != "" {
			out = append(out, fmt.Sprintf("input %d read: %s", in.Index, s))
		}
		for _, g := range gapRows(in) {
			switch g.Record {
			case "skip":
				line := fmt.Sprintf("input %d skipped: %d %s: %s", in.Index, g.Count, g.Unit, g.Kind)
				if g.First != "" {
					line += " (first at " + g.First + ")"
				}
				out = append(out, line)
			case "gap", "export":
				label := "GAP"
				switch {
				case g.Record == "export":
					// What the export did, not a gap of the capture: told
					// apart from the capture's gaps and notes.
					label = "export"
				case g.Note:
					label = "note"
				}
				scope := ""
				if g.Program != "" {
					scope = " in program " + g.Program
				}
				out = append(out, fmt.Sprintf("input %d %s %s (%d)%s: %s", in.Index, label, g.Kind, g.Count, scope, g.Summary))
			}
		}
	}
	return out
}

// writeSingle writes a one-file output: to standard output for "-", else
// checked and atomic.
func writeSingle(opt Options, fill func(io.Writer) error) error {
	if opt.Out == "-" {
		w := opt.Stdout
		if w == nil {
			w = os.Stdout
		}
		bw := bufio.NewWriter(w)
		if err := fill(bw); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		return nil
	}
	return checkedfile.Write(opt.Out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}
