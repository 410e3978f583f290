package npuprof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/intset"
	"github.com/tallyprof/tally/internal/units"
)

// StallSummary is the empty_capture wording for a log that shows launches
// but holds no profiler row: the windowed profiler prints only when a window
// completes, so a run that stalled in prefill printed nothing.
const StallSummary = "no profiler window completed (fewer than W launches, or the run stalled before the first window); the absence of rows is not an absence of launches"

// window is the per-family profiler's window, as the engine's pull request
// describes it [PR].
const window = 100

func (s *state) finish() *capture.Capture {
	s.closeWindow()
	s.c.Source = capture.Source{Path: s.name, Format: Name, Bytes: s.bytes}
	s.finishInput()
	// A log cut at a window boundary reads like a whole one: only a kept
	// trace's end record can tell (kept.End: a no_end_marker note without).
	s.end.RawSummary = "an engine log has no end marker: a log cut at a line boundary reads like a complete one — above all a cut right after a window's rows, since the profiler prints only whole windows (a cut inside a window's rows is inconsistent_trace). Record with 'tally record': its kept traces end with an end record that says how the engine ended"
	s.end.Account(&s.c.Accounting, s.where, s.lineNo)
	s.finishPrograms()
	s.finishGaps()
	s.finishClock()
	s.inventory()
	return s.c
}

func (s *state) finishInput() {
	in := s.c.Accounting.InputFor("lines")
	in.Read = s.lineNo
	in.Used = s.used
	first := ""
	if len(s.firstMalformed) > 0 {
		first = s.where(s.firstMalformed[0])
	}
	// Untagged lines are the engine's other output: they never held a
	// profiler figure. A tagged line that does not parse, or was cut, may
	// have: it is lost, with the gap that counts it.
	in.Ignore("not an NPU engine line", s.foreign, "")
	in.Ignore("blank", s.blank, "")
	in.Ignore("comment", s.comments, "")
	in.Ignore("line longer than 1 MiB (not an engine line)", s.longLines, "")
	in.Ignore("partial last line (not an engine line)", s.partialOther, s.where(s.lineNo))
	b := s.c.Accounting.InputFor("bytes")
	b.Read, b.Used = s.bytes, s.bytes
	format.MalformedLines(&s.c.Accounting, s.malformed, s.firstMalformed,
		"lines tagged like engine lines ([prof], [L]) that do not parse (wrong field count, bad number): what they report is not in the tables or the inventory")
	if s.malformed > 0 {
		in.Lose(s.c.Accounting.Gap(capture.SkippedInput, ""), "malformed engine line", s.malformed, first)
	}
	if s.partial > 0 {
		in.Lose(s.c.Accounting.Gap(capture.TruncatedInput, ""), "partial last line", s.partial, s.where(s.lineNo))
	}
	if s.invalidLines > 0 {
		in.Lose(s.invalid, "impossible times (negative, or longer than the ceiling per launch)", s.invalidLines, s.where(s.firstInvalid))
	}
}

func (s *state) finishPrograms() {
	for _, r := range s.runs {
		p := &s.c.Programs[r.prog]
		p.Instances = 1
		p.Notes = append(p.Notes,
			fmt.Sprintf("NPU_PROFILE means are cumulative over the process: each of the %s is the difference of two lines (m_k·n_k − m_{k−1}·n_{k−1}); precision is limited by the printed decimal: a window mean is uncertain by up to ±%.3f ms, the run total by ±%s ms", units.Plural(r.windows, "window", "windows"), r.worst, msString(halfUlp2(r.places)/2*r.n)),
			fmt.Sprintf("device column = wait (kernel launched → finished), launch column = quant+launch; %d calls seen (n), the up to 49 calls after the last printed line are not; only the single-row GEMM path is measured", r.n))
		if r.clamped > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%d window differences fell below zero by rounding: 0 was counted and the next window absorbed the difference", r.clamped))
		}
	}
	for _, f := range s.famOrder {
		p := &s.c.Programs[f.prog]
		p.Instances = f.windows
		p.Notes = append(p.Notes,
			fmt.Sprintf("per-family profiler rows [PR]: sums over %s of per-launch means × launches; device column = wait, launch column = launch; min/max per launch are unknown", units.Plural(f.windows, "window", "windows")),
			fmt.Sprintf("host-side totals: pack %s ms, launch %s ms, wait %s ms, readback %s ms; row totals %s ms",
				msString(f.sums[0]), msString(f.sums[1]), msString(f.sums[2]), msString(f.sums[3]), msString(f.sums[4])))
	}
}

func (s *state) finishGaps() {
	if s.rows > 0 && s.afterRow > 0 {
		g := s.c.Accounting.Gap(OpenWindow, "")
		g.Summary = fmt.Sprintf("the log goes on after the last profiler row: a window was open when it ended, and its launches (fewer than %d, number unknown) are in no row", window)
		where := s.where(s.afterFirst)
		if s.lineNo > s.afterFirst {
			where += fmt.Sprintf("-%d", s.lineNo)
		}
		g.Add(capture.Item{What: fmt.Sprintf("%s after the last row (line %d)", units.Plural(s.afterRow, "engine line", "engine lines"), s.lastRow), Where: where})
	}
	if len(s.runs) > 0 || s.rows > 0 {
		return
	}
	g := s.c.Accounting.Gap(capture.EmptyCapture, "")
	if s.activity > 0 {
		g.Summary = StallSummary + fmt.Sprintf(" (W = %d launches of either family, the engine's window; %d engine lines show the run's progress)", window, s.activity)
		g.Add(capture.Item{What: "no [prof] row; the run made progress", Where: s.name})
		return
	}
	g.Summary = fmt.Sprintf("%s an NPU engine line ([prof] npu_gemm, [prof] pre|dec rows, [L] layer lines). Was NPU_PROFILE (or the per-family profiler, or NPU_INFER_DUMP_LAYERS) set, and was stderr kept?", units.Plural(s.lineNo, "line read; it is not", "lines read, none is"))
	g.Add(capture.Item{What: "no engine line", Where: s.name})
}

func (s *state) finishClock() {
	if len(s.runs) == 0 && s.rows == 0 {
		s.c.Clock = capture.Clock{Domain: "none", Description: "none: the log holds no profiler line, so there are no times"}
		return
	}
	s.c.Clock = capture.Clock{Domain: "host-steady-clock", Unit: "ns", Timed: true,
		Description: "engine host steady_clock, printed as means in ms (NPU_PROFILE one decimal, per-family rows 2-3) and read exactly as ns; every record is an aggregate (count and sums): per-launch times, min and max are unknown"}
}

// inventory describes the log for `tally inspect`.
func (s *state) inventory() {
	s.c.CommentsAt = len(s.c.Inventory)
	if len(s.runs) > 0 {
		s.c.Comment("NPU_PROFILE", fmt.Sprintf("%s in %s: cumulative means, differenced per window", units.Plural(s.gemmLines, "[prof] npu_gemm line", "[prof] npu_gemm lines"), units.Plural(int64(len(s.runs)), "run", "runs")))
	}
	if s.rows > 0 {
		s.c.Comment("per-family rows", fmt.Sprintf("%s in %s ([PR] format)", units.Plural(s.rows, "row", "rows"), units.Plural(s.windows, "window", "windows")))
	}

	if len(s.runs) > 0 {
		sec := capture.Section{Title: "NPU_PROFILE runs ([prof] npu_gemm, cumulative means)"}
		for i, r := range s.runs {
			key := fmt.Sprintf("run %d", i+1)
			var ws []int64
			for w := range r.widths {
				ws = append(ws, w)
			}
			sort.Slice(ws, func(a, b int) bool { return ws[a] < ws[b] })
			wstr := "none printed"
			if len(ws) > 0 {
				wstr = strings.Trim(fmt.Sprint(ws), "[]")
			}
			sec.Add(key, fmt.Sprintf("lines %d-%d, %d lines, %d calls (n), widths N %s", r.first, r.last, r.lines, r.n, wstr))
			sec.Add(key+" cumulative means at the end", fmt.Sprintf("pack %s, quant+launch %s, wait %s, readback %s ms",
				meanString(r.cum[0], r.n), meanString(r.cum[1], r.n), meanString(r.cum[2], r.n), meanString(r.cum[3], r.n)))
			shown := strings.Join(r.windowsShown, "; ")
			if more := r.windows - int64(len(r.windowsShown)); more > 0 {
				shown += fmt.Sprintf("; … and %d more", more)
			}
			sec.Add(key+" window means", shown)
		}
		s.c.Inventory = append(s.c.Inventory, sec)
	}

	if s.rows > 0 {
		sec := capture.Section{Title: "per-family profiler rows ([prof] pre|dec)"}
		sec.Add("rows", s.rows)
		sec.Add("windows (groups of consecutive rows)", s.windows)
		var sizes []int64
		for k := range s.winSizes {
			sizes = append(sizes, k)
		}
		sort.Slice(sizes, func(a, b int) bool { return sizes[a] < sizes[b] })
		var parts []string
		for _, k := range sizes {
			parts = append(parts, fmt.Sprintf("%d launches ×%d", k, s.winSizes[k]))
		}
		sec.Add("launches per window", strings.Join(parts, ", "))
		for _, f := range s.famOrder {
			sec.Add(f.name, fmt.Sprintf("%d rows, %d launches, in %d windows", f.rows, f.launches, f.windows))
		}
		sec.Add("rows whose times do not sum to their total", s.unsummed)
		s.c.Inventory = append(s.c.Inventory, sec)
	}

	if s.statLines > 0 {
		sec := capture.Section{Title: "layer statistics (NPU_INFER_DUMP_LAYERS)"}
		seen := intset.Of(s.layers)
		sec.Add("[L] lines", s.layerLines)
		sec.Add("layers seen ([L], -1 = embedding)", intset.String(seen))
		sec.Add("layers missing between seen ones", intset.String(intset.Holes(seen)))
		sec.Add("caveat", "MoE and MLA layers print no [L] line, so a missing layer number is not by itself a failure")
		if s.mlaLines > 0 {
			sec.Add("[mla] layer lines", s.mlaLines)
			sec.Add("layers seen ([mla] L<l>)", intset.String(intset.Of(s.mlaLayers)))
		}
		sec.Add("[mla] step lines (final xn, pre-norm x)", s.steps)
		sec.Add("[G] linear-attention lines", s.linearLines)
		sec.Add("[debug] hidden pos lines", s.hiddenLines)
		s.c.Inventory = append(s.c.Inventory, sec)
	}
	if s.stamped > 0 {
		s.c.Inventory = append(s.c.Inventory, capture.Section{Title: "kept trace", Fields: []capture.Field{
			{Key: "stamped lines", Value: s.stamped},
			{Key: "end record", Value: s.end.Describe()},
			{Key: "stamps", Value: "arrival times, used for order only: profiler times come from the printed means"}}})
	}
}
