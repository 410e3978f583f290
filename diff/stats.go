package diff

import (
	"math"
	"sync"

	"golang.org/x/perf/benchmath"
)

// Statistics are benchstat's: benchmath's median with its confidence
// interval, and the Mann-Whitney U test (AssumeNothing). Dispatch counts
// that are constant on each side are exact (benchmath.AssumeExact): a
// different count is a certain change, not a noisy one.
const (
	Alpha      = 0.05
	Confidence = 0.95
)

var thresholds = benchmath.Thresholds{CompareAlpha: Alpha}

// MinRuns is the fewest runs a side needs for a finite confidence interval
// of its median at Confidence (6 at 0.95): benchmath's own bound, found by
// asking it, so the text's "needs ≥ N runs" never drifts from the library.
var MinRuns = sync.OnceValue(func() int {
	for n := 2; n <= 100; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		s := benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &thresholds), Confidence)
		if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) {
			return n
		}
	}
	return 0
})

// Summary is one side's sample: its size, center and confidence interval.
type Summary struct {
	N      int
	Center float64
	// Lo and Hi bound the confidence interval; CI is false when the
	// sample is too small for a finite interval (benchmath then warns).
	Lo, Hi float64
	CI     bool
}

// Metric compares one quantity of one row between the sides.
type Metric struct {
	// A and B are nil when that side has no sample of this quantity.
	A, B *Summary
	// Compared is set when both sides have samples; then P, Significant
	// and (when A's center is not 0) Delta hold.
	Compared bool
	// Exact marks a comparison of values that are constant on each side
	// (dispatch counts): P is 0 when they differ, 1 when equal.
	Exact bool
	P     float64
	// Significant is P < Alpha: the test alone. A change is called only
	// when the interval agrees (Changed).
	Significant bool
	// Delta is B's center over A's, minus one (0.2 = 20% more);
	// HasDelta is false when A's center is 0.
	Delta    float64
	HasDelta bool
	// DeltaLo and DeltaHi bound the change from the two intervals
	// (B.Lo/A.Hi-1, B.Hi/A.Lo-1): conservative, at a confidence of at
	// least Confidence²; DeltaCI is false when either interval is not
	// finite or A.Lo is not positive.
	DeltaLo, DeltaHi float64
	DeltaCI          bool
	// Warnings are benchmath's, e.g. too few samples for an interval.
	Warnings []string
}

// compare builds a Metric from the two sides' per-run values (either may
// be empty). exactIfConstant treats constant samples as exact counts.
func compare(a, b []float64, exactIfConstant bool) Metric {
	var m Metric
	if exactIfConstant && constant(a) && constant(b) {
		m.A, m.B = exactSummary(a), exactSummary(b)
		if m.A == nil || m.B == nil {
			return m
		}
		m.Exact, m.Compared, m.P = true, true, 1
		if m.A.Center != m.B.Center {
			m.P = 0
		}
		m.Significant = m.P < Alpha
		m.delta()
		return m
	}
	var sa, sb *benchmath.Sample
	if len(a) > 0 {
		sa = benchmath.NewSample(append([]float64(nil), a...), &thresholds)
		m.A = m.summarize(sa)
	}
	if len(b) > 0 {
		sb = benchmath.NewSample(append([]float64(nil), b...), &thresholds)
		m.B = m.summarize(sb)
	}
	if sa == nil || sb == nil {
		return m
	}
	c := benchmath.AssumeNothing.Compare(sa, sb)
	m.Compared = true
	m.P = c.P
	m.Significant = c.P < c.Alpha
	m.warn(c.Warnings)
	m.delta()
	return m
}

func (m *Metric) summarize(s *benchmath.Sample) *Summary {
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	m.warn(sum.Warnings)
	out := &Summary{N: len(s.Values), Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
	out.CI = !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) && !math.IsNaN(sum.Lo) && !math.IsNaN(sum.Hi)
	if !out.CI {
		out.Lo, out.Hi = 0, 0
	}
	return out
}

func (m *Metric) warn(errs []error) {
	for _, e := range errs {
		s := e.Error()
		dup := false
		for _, w := range m.Warnings {
			dup = dup || w == s
		}
		if !dup {
			m.Warnings = append(m.Warnings, s)
		}
	}
}

func (m *Metric) delta() {
	if m.A.Center == 0 {
		return
	}
	m.Delta, m.HasDelta = m.B.Center/m.A.Center-1, true
	if m.A.CI && m.B.CI && m.A.Lo > 0 {
		m.DeltaLo, m.DeltaHi, m.DeltaCI = m.B.Lo/m.A.Hi-1, m.B.Hi/m.A.Lo-1, true
	}
}

// constant reports whether every value is the same (true when empty).
func constant(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

// Changed reports a change called: the test and the interval agree. The
// U test finds it (p < Alpha), and the interval of the change excludes
// zero: the sides' intervals do not overlap (B.Lo > A.Hi or B.Hi < A.Lo,
// which is DeltaLo > 0 or DeltaHi < 0 when A's interval is above 0). A
// side without a finite interval (fewer than MinRuns runs) has nothing to
// agree with: no change is called on it. Exact counts have an interval of
// one point, so a different count is a change.
func (m *Metric) Changed() bool {
	return m.Compared && m.Significant && m.intervalExcludesZero()
}

// TestOnly reports a change the U test finds and the interval does not
// confirm: printed as ~, with its p.
func (m *Metric) TestOnly() bool {
	return m.Compared && m.Significant && !m.intervalExcludesZero()
}

func (m *Metric) intervalExcludesZero() bool {
	if m.A == nil || m.B == nil || !m.A.CI || !m.B.CI {
		return false
	}
	return m.B.Lo > m.A.Hi || m.B.Hi < m.A.Lo
}

// FormatDelta is the change in percent ("+20.00%") when one is called
// (Changed), "~" when none is, "?" when A's center is 0.
func (m *Metric) FormatDelta() string {
	switch {
	case !m.Compared:
		return ""
	case !m.Changed():
		return "~"
	case !m.HasDelta:
		return "?"
	}
	return pct(m.Delta)
}

func exactSummary(v []float64) *Summary {
	if len(v) == 0 {
		return nil
	}
	return &Summary{N: len(v), Center: v[0], Lo: v[0], Hi: v[0], CI: true}
}
