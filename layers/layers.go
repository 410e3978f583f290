// Package layers is `tally layers REF OURS`: it compares two sets of
// per-layer tensors (an NPU engine's residual dumps layer_<l>.f32, a
// reference's .npy files) layer by layer, streaming each pair so memory is
// one row, and names the layer where agreement steps down. A layer without
// a file is "not written", never equal and never "did not run": a dump
// writer that fails leaves exactly that trace. docs/layers.md documents the
// output (schema tally.layers/v1), the sidecar and the step rule.
package layers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tallyprof/tally/format/npuprof"
	"github.com/tallyprof/tally/internal/intset"
	"github.com/tallyprof/tally/internal/units"
)

// Schema is the JSON output's schema name.
const Schema = "tally.layers/v1"

// Options say how to find and read the files.
type Options struct {
	// Hidden is H, the row width, when the files do not say it (0: from
	// .npy shapes or sidecars, else unknown and compared flat).
	Hidden int64
	// Map is "REF_PATTERN=OURS_PATTERN" (or one pattern for both), {l} the
	// layer number; "" is DefaultPattern on both sides.
	Map string
	// Log is an engine log whose [L] lines are compared with row 0 of each
	// of our dumps; "" for none.
	Log string
}

// Report is the comparison, as `tally layers --json` writes it.
type Report struct {
	Schema string   `json:"schema"`
	Ref    SideInfo `json:"ref"`
	Ours   SideInfo `json:"ours"`
	Hidden int64    `json:"hidden,omitempty"`
	Layers []*Layer `json:"layers"`
	Step   *Step    `json:"step"`
	Rule   string   `json:"step_rule"`
	Log    *LogInfo `json:"log,omitempty"`
	Totals Totals   `json:"totals"`
	Units  string   `json:"units"`
	// NothingCompared says why no layer was compared ("" when one was):
	// tally layers then exits 2, as a comparison of nothing must not read
	// as agreement.
	NothingCompared string `json:"nothing_compared,omitempty"`
	// Unusable are files whose names match a pattern but whose layer
	// number is out of range: named, never silently dropped.
	Unusable []Unusable `json:"unusable_files,omitempty"`

	logChecked, logUnchecked int // see LogInfo.Checked, Unchecked
}

// SideInfo is one side's input.
type SideInfo struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Files   int    `json:"files"`
}

// Layer is one layer number's outcome (or a run of numbers missing on both
// sides: Layer..LayerTo).
type Layer struct {
	Layer   int64 `json:"layer"`
	LayerTo int64 `json:"layer_to,omitempty"`
	// Status is "compared", "not_written" or "malformed".
	Status string `json:"status"`
	// NotWritten lists the sides without a file: "ref", "ours".
	NotWritten []string   `json:"not_written,omitempty"`
	Problem    string     `json:"problem,omitempty"`
	HFrom      string     `json:"h_from,omitempty"`
	Ref        *SideStats `json:"ref,omitempty"`
	Ours       *SideStats `json:"ours,omitempty"`
	Metrics    *Metrics   `json:"metrics,omitempty"`
	Log        *LogCheck  `json:"log,omitempty"`
	// NoAgreement: a layer the step rule cannot judge whose rel L2 is at
	// least 1 (agreement.go), counted in Totals.NoAgreement.
	NoAgreement bool `json:"no_agreement,omitempty"`

	// hiddenFit is set when this layer is malformed only because of
	// --hidden: without it the pair would be compared, with the row width
	// it says ("with H = 64 from the ref sidecar").
	hiddenFit string
}

// LogCheck compares an [L] line with row 0 of our dump.
type LogCheck struct {
	Line    int64   `json:"line"`
	MeanAbs float64 `json:"mean_abs"` // null in JSON when the line printed nan or inf
	AbsMax  float64 `json:"absmax"`
	Agrees  bool    `json:"agrees"`
	// Row0NonFinite: row 0 of our dump holds NaN or Inf (counted in
	// SideStats.Row0NaN, Row0Inf), so it has no mean|x| to compare; it
	// agrees only with an [L] line that printed nan or inf too.
	Row0NonFinite bool `json:"row0_nonfinite,omitempty"`
}

// MarshalJSON writes a value the line printed as nan or inf as null: JSON
// has no such numbers.
func (c LogCheck) MarshalJSON() ([]byte, error) {
	type plain LogCheck
	return json.Marshal(struct {
		plain
		MeanAbs *float64 `json:"mean_abs"`
		AbsMax  *float64 `json:"absmax"`
	}{plain(c), finite(c.MeanAbs), finite(c.AbsMax)})
}

func finite(v float64) *float64 {
	if bad(v) {
		return nil
	}
	return &v
}

// LogInfo is the [L] log's summary.
type LogInfo struct {
	Path   string `json:"path"`
	Layers int    `json:"layers"`
	// WithoutDump are layers the log shows ran whose dump on our side was
	// not written.
	WithoutDump string `json:"without_dump"`
	withoutDump int    // how many layers WithoutDump names
	// Checked counts the compared layers whose row 0 was checked against
	// their [L] line; Unchecked those with an [L] line and a compared pair
	// that could not be checked because the row width H is unknown (no
	// --hidden, no sidecar). A log that checked nothing, or left layers
	// unchecked, is a finding: asking for the check and getting none must
	// not read as agreement.
	Checked   int `json:"checked"`
	Unchecked int `json:"unchecked_without_h"`
}

// Totals count the outcomes; any but Compared makes --strict fail.
type Totals struct {
	Compared    int   `json:"compared"`
	NotWritten  int64 `json:"not_written"`
	Malformed   int   `json:"malformed"`
	NonFinite   int   `json:"nonfinite_layers"`
	LogMismatch int   `json:"log_mismatch"`
	// Unmeasured counts the layers that differ where no relative error can
	// be had: the reference is zero on every pair both sides hold finite
	// (or the ratio overflows). The step rule cannot see them, so a layer
	// of zeros against one of thousands would otherwise pass.
	Unmeasured int `json:"unmeasured_layers"`
	// NoAgreement counts the layers before the step rule's first
	// judgeable one whose rel L2 is at least 1 (agreement.go).
	NoAgreement int  `json:"no_agreement"`
	Step        bool `json:"step"`
	// Unusable counts Report.Unusable.
	Unusable int `json:"unusable_files"`
}

// Findings reports whether anything --strict fails on was found. Layers
// the log shows ran without a dump of ours count even when they lie past
// the last file on either side (and so are in no layer row).
func (r *Report) Findings() bool {
	t := r.Totals
	return t.NotWritten > 0 || t.Malformed > 0 || t.Unusable > 0 || t.NonFinite > 0 || t.LogMismatch > 0 || t.Unmeasured > 0 || t.NoAgreement > 0 || t.Step ||
		r.Log != nil && (r.Log.withoutDump > 0 || r.Log.Checked == 0 || r.Log.Unchecked > 0)
}

// maxHole is the longest run of layers missing on both sides listed one by
// one; longer runs are one entry.
const maxHole = 8

// Run compares ref with ours.
func Run(ref, ours string, opt Options) (*Report, error) {
	rp, op, err := patterns(opt.Map)
	if err != nil {
		return nil, err
	}
	rl, err := list(ref, rp)
	if err != nil {
		return nil, err
	}
	ol, err := list(ours, op)
	if err != nil {
		return nil, err
	}
	var logStats map[int64]*npuprof.LayerStat
	if opt.Log != "" {
		f, err := os.Open(opt.Log)
		if err != nil {
			return nil, err
		}
		logStats, err = npuprof.LayerLines(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opt.Log, err)
		}
	}
	rep := &Report{Schema: Schema, Ref: SideInfo{ref, rp.src, rl.count}, Ours: SideInfo{ours, op.src, ol.count},
		Hidden: opt.Hidden, Rule: StepRule, Layers: []*Layer{},
		Unusable: append(rl.unusable, ol.unusable...), Units: "values as stored (float32 dumps; .npy <f4/<f2/<f8 read as float64); cosine, relative L2 = ‖ours−ref‖/‖ref‖ and max |diff| over pairs where both values are finite"}
	rep.Totals.Unusable = len(rep.Unusable)
	all := map[int64]bool{}
	for l := range rl.files {
		all[l] = true
	}
	for l := range ol.files {
		all[l] = true
	}
	var pairs []*pair
	for _, rg := range intset.Of(all) {
		for l := rg.Lo; l <= rg.Hi; l++ {
			ly, p, err := rep.layer(l, rl.files[l], ol.files[l], opt.Hidden, logStats)
			if err != nil {
				return nil, err
			}
			rep.Layers = append(rep.Layers, ly)
			if p != nil {
				pairs = append(pairs, p)
			}
		}
	}
	if err := compareAll(pairs); err != nil {
		return nil, err
	}
	var pts []point
	var measured []*Layer // the layer of each point
	for _, p := range pairs {
		rep.finish(p, logStats)
		if p.ly.Metrics.RelL2 != nil {
			pts = append(pts, point{p.ly.Layer, *p.ly.Metrics.RelL2})
			measured = append(measured, p.ly)
		}
	}
	rep.holes(intset.Holes(intset.Of(all)))
	rep.Step = findStep(pts)
	rep.noAgreement(measured)
	rep.Totals.Step = rep.Step != nil
	if logStats != nil {
		rep.logInfo(opt.Log, logStats, ol)
	}
	rep.NothingCompared = rep.nothing()
	return rep, nil
}

// nothing says why no layer was compared, or "" when one was. A --hidden
// that malformed the layers, which would be compared without it, is named
// with the width they state: a wrong width must not read as broken dumps.
func (rep *Report) nothing() string {
	if rep.Totals.Compared > 0 {
		return ""
	}
	var first, byHidden *Layer
	malformed, hidden := 0, 0
	for _, ly := range rep.Layers {
		if ly.Status != "malformed" {
			continue
		}
		malformed++
		if first == nil {
			first = ly
		}
		if ly.hiddenFit != "" {
			hidden++
			if byHidden == nil {
				byHidden = ly
			}
		}
	}
	switch {
	case hidden > 0:
		which := fmt.Sprintf("%d of the %d malformed layers", hidden, malformed)
		switch {
		case hidden == malformed && hidden == 1:
			which = "the malformed layer"
		case hidden == malformed:
			which = fmt.Sprintf("all %d malformed layers", hidden)
		}
		return fmt.Sprintf("--hidden %d does not fit the dumps: without it, %s would be compared (%s), not malformed; layer %d: %s. Give the width the dumps were written with, or leave --hidden out where sidecars or .npy shapes state it",
			rep.Hidden, which, byHidden.hiddenFit, byHidden.Layer, byHidden.Problem)
	case malformed > 0:
		return fmt.Sprintf("every layer with a file on both sides is malformed (%d); layer %d: %s", malformed, first.Layer, first.Problem)
	}
	why := fmt.Sprintf("no layer has a file on both sides (ref %s, ours %s, paired by layer number): check the two directories hold the same run's layers, or --map",
		units.Plural(int64(rep.Ref.Files), "file", "files"), units.Plural(int64(rep.Ours.Files), "file", "files"))
	if len(rep.Unusable) > 0 {
		why += fmt.Sprintf("; %s matched with no usable layer number, the first %s: %s", units.Plural(int64(len(rep.Unusable)), "file", "files"), rep.Unusable[0].File, rep.Unusable[0].Problem)
	}
	return why
}

// fitsWithoutHidden says with which row width a pair that --hidden made
// malformed would be compared without it, or "" when it would be malformed
// all the same. Opening a tensor reads its size, header or sidecar only.
func fitsWithoutHidden(ref, ours string) string {
	rt, err := openTensor(ref, 0)
	if err != nil {
		return ""
	}
	ot, err := openTensor(ours, 0)
	if err != nil {
		return ""
	}
	h, from, err := agreeH(rt, ot)
	switch {
	case err != nil:
		return ""
	case h == 0:
		return "as flat vectors, the row width unknown"
	}
	return fmt.Sprintf("with H = %d from the %s", h, from)
}

func patterns(m string) (*pattern, *pattern, error) {
	if m == "" {
		m = DefaultPattern
	}
	r, o, found := strings.Cut(m, "=")
	if !found {
		o = r
	}
	rp, err := compilePattern(r)
	if err != nil {
		return nil, nil, err
	}
	op, err := compilePattern(o)
	return rp, op, err
}

// layer compares one layer number's files.
func (rep *Report) layer(l int64, ref, ours []string, hidden int64, logStats map[int64]*npuprof.LayerStat) (*Layer, *pair, error) {
	ly := &Layer{Layer: l}
	if len(ref) == 0 || len(ours) == 0 {
		ly.Status = "not_written"
		side := "ours"
		if len(ref) == 0 {
			side = "ref"
		}
		ly.NotWritten = []string{side}
		ly.Problem = fmt.Sprintf("no %s file for layer %d: the dump was not written (which says nothing about whether the layer ran)", side, l)
		if st := logStats[l]; side == "ours" && st != nil {
			ly.Problem = fmt.Sprintf("no ours file for layer %d, yet the log's line %d shows the layer ran: the dump was not written", l, st.Line)
		}
		rep.Totals.NotWritten++
		return ly, nil, nil
	}
	if len(ref) > 1 || len(ours) > 1 {
		return rep.bad(ly, "more than one file for layer %d: %s", l, strings.Join(append(append([]string{}, ref...), ours...), ", ")), nil, nil
	}
	ly, p, err := rep.open(ly, ref[0], ours[0], hidden)
	if err == nil && ly.Status == "malformed" && hidden > 0 {
		ly.hiddenFit = fitsWithoutHidden(ref[0], ours[0])
	}
	return ly, p, err
}

// open reads a pair's descriptions and settles their row width.
func (rep *Report) open(ly *Layer, ref, ours string, hidden int64) (*Layer, *pair, error) {
	rt, err := openSide(ref, hidden, &ly.Ref)
	if err != nil {
		ly, err := rep.fileErr(ly, err)
		return ly, nil, err
	}
	ot, err := openSide(ours, hidden, &ly.Ours)
	if err != nil {
		ly, err := rep.fileErr(ly, err)
		return ly, nil, err
	}
	h, from, err := agreeH(rt, ot)
	if err != nil {
		return rep.bad(ly, "%v", err), nil, nil
	}
	if rt.values == 0 {
		// Figures over no values would read as agreement.
		return rep.bad(ly, "both tensors hold no values (ref %s, ours %s): nothing to compare", describe(rt), describe(ot)), nil, nil
	}
	ly.HFrom = from
	return ly, &pair{ly: ly, ref: rt, ours: ot, h: h}, nil
}

// openSide opens one side's tensor and sets *stats to what is known of
// it, also when the open fails past the description.
func openSide(path string, hidden int64, stats **SideStats) (*tensor, error) {
	t, err := openTensor(path, hidden)
	if t != nil {
		*stats = side(t)
	}
	return t, err
}

// pair is one comparison to run: the streaming part runs in parallel with
// other layers' (each holds one row per side), the bookkeeping in order.
type pair struct {
	ly        *Layer
	ref, ours *tensor
	h         int64
	m         Metrics
	rs, os    SideStats
	err       error
}

// compareAll runs the pairs' comparisons on up to GOMAXPROCS (at most 8)
// goroutines.
func compareAll(pairs []*pair) error {
	jobs := make(chan *pair)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8, max(len(pairs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				p.m, p.rs, p.os, p.err = compare(p.ref, p.ours, p.h)
			}
		}()
	}
	for _, p := range pairs {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	for _, p := range pairs {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// finish records a compared pair's figures and checks it against the log.
func (rep *Report) finish(p *pair, logStats map[int64]*npuprof.LayerStat) {
	ly, rs, os_ := p.ly, &p.rs, &p.os
	ly.Status, ly.Metrics = "compared", sane(&p.m)
	ly.Ref.NaN, ly.Ref.Inf, ly.Ours.NaN, ly.Ours.Inf = rs.NaN, rs.Inf, os_.NaN, os_.Inf
	if p.h > 0 {
		ly.Ref.Row0MeanAbs, ly.Ref.Row0AbsMax, ly.Ref.Row0NaN, ly.Ref.Row0Inf = rs.Row0MeanAbs, rs.Row0AbsMax, rs.Row0NaN, rs.Row0Inf
		ly.Ours.Row0MeanAbs, ly.Ours.Row0AbsMax, ly.Ours.Row0NaN, ly.Ours.Row0Inf = os_.Row0MeanAbs, os_.Row0AbsMax, os_.Row0NaN, os_.Row0Inf
	}
	rep.Totals.Compared++
	if rs.NaN+rs.Inf+os_.NaN+os_.Inf > 0 {
		rep.Totals.NonFinite++
	}
	if unmeasured(ly.Metrics) {
		rep.Totals.Unmeasured++
	}
	if st := logStats[ly.Layer]; st != nil && p.h == 0 {
		rep.logUnchecked++
	} else if st != nil {
		rep.logChecked++
		ly.Log = &LogCheck{Line: st.Line, MeanAbs: st.MeanAbs, AbsMax: st.AbsMax, Row0NonFinite: os_.Row0NaN+os_.Row0Inf > 0}
		switch logBad := bad(st.MeanAbs) || bad(st.AbsMax); {
		case ly.Log.Row0NonFinite || logBad:
			ly.Log.Agrees = ly.Log.Row0NonFinite && logBad // both say the row is not numbers
		default:
			ly.Log.Agrees = os_.Row0MeanAbs != nil && agrees(st.MeanAbs, *os_.Row0MeanAbs, 0.5e-6) && agrees(st.AbsMax, *os_.Row0AbsMax, 0.5e-4)
		}
		if !ly.Log.Agrees {
			rep.Totals.LogMismatch++
		}
	}
}

// agrees compares a printed value with a computed one: within the printing's
// rounding plus a relative 1e-4 for the float32 sums' order of addition.
func agrees(printed, computed, rounding float64) bool {
	return math.Abs(printed-computed) <= rounding+1e-4*math.Abs(computed)
}

func side(t *tensor) *SideStats {
	return &SideStats{File: t.path, Kind: t.kind, DType: t.dtype.String(), Shape: t.shape, Bytes: t.bytes}
}

func (rep *Report) bad(ly *Layer, format string, args ...any) *Layer {
	ly.Status, ly.Problem = "malformed", fmt.Sprintf(format, args...)
	rep.Totals.Malformed++
	return ly
}

func (rep *Report) fileErr(ly *Layer, err error) (*Layer, error) {
	if errors.Is(err, errMalformed) {
		return rep.bad(ly, "%s", strings.TrimPrefix(err.Error(), errMalformed.Error()+": ")), nil
	}
	return nil, err
}

// agreeH settles the row width of a pair and checks the two shapes match.
func agreeH(r, o *tensor) (int64, string, error) {
	if r.values != o.values {
		return 0, "", fmt.Errorf("shape mismatch: ref %s holds %d values, ours %s holds %d", describe(r), r.values, describe(o), o.values)
	}
	switch {
	case r.h > 0 && o.h > 0 && r.h != o.h:
		return 0, "", fmt.Errorf("shape mismatch: ref rows of %d (%s), ours rows of %d (%s)", r.h, r.hFrom, o.h, o.hFrom)
	case r.hFrom == "--hidden":
		return r.h, "--hidden", nil
	case r.h > 0:
		return r.h, "ref " + r.hFrom, nil
	case o.h > 0:
		return o.h, "ours " + o.hFrom, nil
	}
	return 0, "unknown: compared as flat vectors (give --hidden H or a sidecar for per-row figures)", nil
}

func describe(t *tensor) string {
	s := filepath.Base(t.path)
	if t.shape != nil {
		s += fmt.Sprintf(" shape %v %s", t.shape, t.dtype)
	} else {
		s += fmt.Sprintf(" (%d bytes)", t.bytes)
	}
	return s
}

// holes adds the layers missing on both sides between present ones.
func (rep *Report) holes(hs []intset.Range) {
	for _, h := range hs {
		n := h.Hi - h.Lo + 1
		rep.Totals.NotWritten += n
		add := func(lo, hi int64) {
			ly := &Layer{Layer: lo, Status: "not_written", NotWritten: []string{"ref", "ours"},
				Problem: "no file on either side, between layers that have files: not written (which says nothing about whether the layer ran)"}
			if hi != lo {
				ly.LayerTo = hi
			}
			rep.Layers = append(rep.Layers, ly)
		}
		if n > maxHole {
			add(h.Lo, h.Hi)
			continue
		}
		for l := h.Lo; l <= h.Hi; l++ {
			add(l, l)
		}
	}
	sort.SliceStable(rep.Layers, func(i, j int) bool { return rep.Layers[i].Layer < rep.Layers[j].Layer })
}

func (rep *Report) logInfo(path string, st map[int64]*npuprof.LayerStat, ours *listing) {
	missing := map[int64]bool{}
	for l := range st {
		if len(ours.files[l]) == 0 && l >= 0 {
			missing[l] = true
		}
	}
	rep.Log = &LogInfo{Path: path, Layers: len(st), WithoutDump: intset.String(intset.Of(missing)), withoutDump: len(missing),
		Checked: rep.logChecked, Unchecked: rep.logUnchecked}
}

// unmeasured reports whether a compared pair differs where its relative
// error is undefined, or its figures overflowed (Totals.Unmeasured).
func unmeasured(m *Metrics) bool {
	return m.FinitePairs > 0 && (m.RelL2 == nil && m.MaxAbsDiff != nil && *m.MaxAbsDiff > 0 || m.Overflow)
}

// sane replaces non-finite figures (an overflowing sum) by nil: JSON has
// no Inf or NaN, and a figure that is not a number must not look like one.
func sane(m *Metrics) *Metrics {
	for _, p := range []**float64{&m.Cosine, &m.RelL2, &m.RowCosineMin} {
		if *p != nil && bad(**p) {
			*p = nil
		}
	}
	return m
}
