package npuprof

import (
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// familyName maps the engine's family tags to program names; other tags
// are kept as printed (the set is not documented as closed).
func familyName(tag []byte) string {
	switch string(tag) {
	case "pre":
		return "prefill"
	case "dec":
		return "decode"
	}
	return string(tag)
}

// maxWindowSizes bounds the distinct window sizes remembered.
const maxWindowSizes = 64

// row adds one per-family row: an aggregated record of its launches, and a
// rounding check of its times. It returns false, changing nothing, when the
// row's time × launches (or its family's running sums) would overflow.
func (s *state) row(r *row) bool {
	var sums, before [5]int64
	var launched int64
	if id, ok := s.programs[familyName(r.family)]; ok && s.fams[id] != nil {
		before, launched = s.fams[id].sums, s.fams[id].launches
	}
	if r.launches > 1<<62-max(launched, s.winLaunch) {
		return false
	}
	for i, t := range r.times {
		v, ok := mulPs(t, r.launches)
		if !ok || v > 1<<63-1-before[i] {
			return false
		}
		sums[i] = v
	}
	p := s.program(familyName(r.family))
	k := s.kernel(p, string(r.role)+" M="+strconv.FormatInt(r.m, 10))
	if s.winKeys[k] || (s.winLaunch == window && r.launches > 0) {
		// A window prints each kernel once, and holds W launches: a repeat,
		// or launches past a full window, start the next.
		s.closeWindow()
	}
	if !s.inWindow {
		s.inWindow = true
		s.windows++
		s.winLaunch, s.winRows, s.winFirst = 0, 0, s.lineNo
		clear(s.winFams)
		clear(s.winKeys)
	}
	s.winKeys[k] = true
	s.winRows++
	s.rows++
	s.lastRow = s.lineNo
	s.afterRow = 0
	f := s.fams[p]
	if f == nil {
		f = &family{prog: p, name: s.c.Programs[p].Name}
		s.fams[p] = f
		s.famOrder = append(s.famOrder, f)
	}
	if !s.winFams[f] {
		s.winFams[f] = true
		f.windows++
	}
	f.rows++
	for i, v := range sums {
		f.sums[i] += v
	}
	f.launches += r.launches
	s.winLaunch += r.launches
	if diff, tol2, ok := r.sums(); !ok {
		s.unsummed++
		g := s.c.Accounting.Gap(capture.InconsistentTrace, f.name)
		g.Summary = "profiler rows whose pack+launch+wait+readback differs from their total by more than the rounding of the printed values: a column may be misread or the engine's row format differs; their counts and wait times are in the table"
		g.Add(capture.Item{Where: s.where(s.lineNo), Program: f.name, Kernel: s.c.Kernels[k].Name,
			What: fmt.Sprintf("parts sum to %s ms, total %s ms: off by %s ms, more than the printed rounding ±%s ms",
				msString(r.times[0]+r.times[1]+r.times[2]+r.times[3]), msString(r.times[4]), msString(diff), msString(tol2/2))})
	}
	if r.launches > 0 {
		s.emit(p, k, r.launches, sums[2], sums[1])
	}
	return true
}

// closeWindow ends the group of consecutive rows being read: the engine
// prints one window's rows together, each kernel once.
func (s *state) closeWindow() {
	if !s.inWindow {
		return
	}
	s.inWindow = false
	if _, ok := s.winSizes[s.winLaunch]; ok || len(s.winSizes) < maxWindowSizes {
		s.winSizes[s.winLaunch]++
	}
	if s.winLaunch != window {
		// The engine prints a window when its W launches are done: rows
		// that add up to anything else lost some (a log cut inside a
		// window, lines dropped), and the launches they held are missing.
		if s.badWindows == nil {
			s.badWindows = s.c.Accounting.Gap(capture.InconsistentTrace, "")
			if s.badWindows.Summary == "" {
				s.badWindows.Summary = fmt.Sprintf("profiler windows whose rows do not add up to W = %d launches: rows of the window are missing (the log was cut inside the window, or lines were lost), or the engine's window is not %d; the launches the rows show are in the tables, the missing ones are not", window, window)
			}
		}
		where := s.where(s.winFirst)
		if s.lastRow > s.winFirst {
			where += fmt.Sprintf("-%d", s.lastRow)
		}
		s.badWindows.Add(capture.Item{What: fmt.Sprintf("a window of %s holds %d launches, not %d", units.Plural(s.winRows, "row", "rows"), s.winLaunch, window), Where: where})
	}
}

// gemm differences one NPU_PROFILE line against the previous line of its
// run. It returns false when the numbers cannot be used (overflow).
func (s *state) gemm(g *gemm) bool {
	var cum [4]int64
	for i, m := range g.means {
		v, ok := mulPs(m, g.n)
		if !ok {
			return false
		}
		cum[i] = v
	}
	r := s.cur
	if r == nil || g.n < r.n {
		r = s.newRun()
	} else if g.n == r.n {
		// A line's identity is its run and n: the same n with the same
		// means is the previous line written twice, counted once.
		if cum == r.cum {
			s.duplicate(r, capture.Item{What: fmt.Sprintf("n=%d with the same means repeats line %d: counted once", g.n, r.last), Where: s.where(s.lineNo),
				Program: s.c.Programs[r.prog].Name, Kernel: s.c.Kernels[r.kern].Name})
		} else {
			s.inconsistency(capture.Item{What: fmt.Sprintf("n=%d printed again with other means (line %d had it)", g.n, r.last), Where: s.where(s.lineNo),
				Program: s.c.Programs[r.prog].Name})
		}
		r.lines++
		return true
	}
	count := g.n - r.n
	places := g.places
	if r.lines == 0 || places < r.places {
		r.places = places
	}
	// The two means are each off by up to half a unit of their last place.
	unc := float64(halfUlp2(r.places)) / 2 / psPerMs * float64(g.n+r.n) / float64(count)
	if unc > r.worst {
		r.worst = unc
	}
	var win [4]int64
	for i := range cum {
		win[i] = cum[i] - r.cum[i]
	}
	if len(r.windowsShown) < maxWindowsShown {
		r.windowsShown = append(r.windowsShown, fmt.Sprintf("n %d-%d: pack %s, quant+launch %s, wait %s, readback %s ms (±%.3f)",
			r.n, g.n, meanString(win[0], count), meanString(win[1], count), meanString(win[2], count), meanString(win[3], count), unc))
	}
	// The sums sent are kept non-negative: a window whose difference is
	// below zero (rounding of the printed means) sends 0 and the next
	// window absorbs it, so the run's total stays the cumulative figure.
	var send [4]int64
	for i := range cum {
		send[i] = cum[i] - r.emitted[i]
		if send[i] < 0 {
			send[i] = 0
			r.clamped++
		}
		r.emitted[i] += send[i]
	}
	r.windows++
	r.cum, r.n = cum, g.n
	r.lines++
	r.last = s.lineNo
	if g.width >= 0 && (len(r.widths) < 16 || r.widths[g.width]) {
		r.widths[g.width] = true
	}
	s.emit(r.prog, r.kern, count, send[2], send[1])
	return true
}

const maxWindowsShown = 6

func (s *state) newRun() *run {
	name := fmt.Sprintf("npu_gemm run %d", len(s.runs)+1)
	p := s.program(name)
	r := &run{prog: p, kern: s.kernel(p, "npu_gemm (single-row GEMM)"), first: s.lineNo, last: s.lineNo, widths: map[int64]bool{}}
	s.runs = append(s.runs, r)
	s.cur = r
	return r
}

// msString writes ps as ms with up to 9 places, trailing zeros dropped.
func msString(ps int64) string {
	sign := ""
	if ps < 0 {
		sign, ps = "-", -ps
	}
	s := fmt.Sprintf("%s%d.%09d", sign, ps/psPerMs, ps%psPerMs)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s += "0"
	}
	return s
}

// meanString writes sum/count ps as ms with 4 places.
func meanString(sumPs, count int64) string {
	return strconv.FormatFloat(float64(sumPs)/float64(count)/psPerMs, 'f', 4, 64)
}
