package npuprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// A per-launch time below zero, or above the model's ceiling for one
// dispatch (capture.MaxDuration, --max-duration), cannot be a measurement:
// the line is an invalid_event and is not in the tables, never a window
// of a 9.2e18 ns "kernel". Aggregated records pass the model check
// unexamined (they carry sums, not intervals), so the reader holds them
// to the rule itself.

// rowImpossible says why a row's per-launch times cannot be measurements,
// or "".
func (s *state) rowImpossible(r *row) string {
	for i, t := range r.times {
		if why := s.timeImpossible(t); why != "" {
			return fmt.Sprintf("%s per launch %s", rowFields[i], why)
		}
	}
	return ""
}

var rowFields = [5]string{"pack", "launch", "wait", "readback", "total"}

// gemmImpossible says why an npu_gemm line cannot be a measurement: a mean
// below zero or above the ceiling, or a window (the calls since the run's
// previous line) whose mean per call is above the ceiling.
func (s *state) gemmImpossible(g *gemm) string {
	for i, m := range g.means {
		if why := s.timeImpossible(m); why != "" {
			return fmt.Sprintf("%s mean %s", gemmKeys[i], why)
		}
	}
	var prevN int64
	var prev [4]int64
	if r := s.cur; r != nil && g.n >= r.n {
		prevN, prev = r.n, r.cum
	}
	count := g.n - prevN
	if count <= 0 {
		return ""
	}
	for i, m := range g.means {
		cum, ok := mulPs(m, g.n)
		if !ok {
			return "" // the overflow is malformed (gemm)
		}
		if w := (cum - prev[i]) / count; w > s.ceilPs {
			return fmt.Sprintf("%s: the window n %d-%d means %s ms per call, longer than the %s ms ceiling for one dispatch", gemmKeys[i], prevN, g.n, msString(w), msString(s.ceilPs))
		}
	}
	return ""
}

func (s *state) timeImpossible(ps int64) string {
	switch {
	case ps < 0:
		return fmt.Sprintf("%s ms, a negative time", msString(ps))
	case ps > s.ceilPs:
		return fmt.Sprintf("%s ms, longer than the %s ms ceiling for one dispatch", msString(ps), msString(s.ceilPs))
	}
	return ""
}

// impossible counts a line whose times cannot be measurements.
func (s *state) impossible(program, kernel, why string) {
	s.invalidLines++
	if s.invalidLines == 1 {
		s.firstInvalid = s.lineNo
	}
	if s.invalid == nil {
		s.invalid = s.c.Accounting.Gap(capture.InvalidEvent, "")
		s.invalid.Summary = "profiler lines whose times cannot be measurements — negative, or longer per launch than the ceiling for one dispatch (one hour; --max-duration): not in the tables"
	}
	s.invalid.Add(capture.Item{What: why + ": not in the tables", Program: program, Kernel: kernel, Where: s.where(s.lineNo)})
	s.closeWindow()
}
