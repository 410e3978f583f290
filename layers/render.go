package layers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

// WriteJSON writes the report as tally.layers/v1.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for people: one row per layer, then the step
// change, what was not written or is malformed, and the verdict.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	// Paths, file names and problems come from the inputs: escaped.
	p := func(format string, args ...any) { safetext.Fprintf(bw, format, args...) }
	p("ref:  %s (%s matching %s)\n", r.Ref.Path, units.Plural(int64(r.Ref.Files), "file", "files"), r.Ref.Pattern)
	p("ours: %s (%s matching %s)\n", r.Ours.Path, units.Plural(int64(r.Ours.Files), "file", "files"), r.Ours.Pattern)
	p("figures over pairs where both values are finite; rel L2 = ‖ours−ref‖/‖ref‖\n\n")
	tw := tabwriter.NewWriter(bw, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "layer\trows×H\tcosine\trow cos min (row)\tmax |diff|\trel L2\tNaN/Inf ref\tNaN/Inf ours\t[L] log\t  status\n")
	for _, ly := range r.Layers {
		name := fmt.Sprint(ly.Layer)
		if ly.LayerTo != 0 {
			name = fmt.Sprintf("%d-%d", ly.Layer, ly.LayerTo)
		}
		if ly.Status != "compared" {
			status := "MALFORMED"
			if ly.Status == "not_written" {
				status = "NOT WRITTEN (" + strings.Join(ly.NotWritten, ", ") + ")"
			}
			safetext.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t-\t  %s\n", name, status)
			continue
		}
		m := ly.Metrics
		shape := fmt.Sprintf("%d values", m.Values)
		rowMin := "-"
		if m.H > 0 {
			shape = fmt.Sprintf("%d×%d", m.Rows, m.H)
			if m.RowCosineMin != nil {
				rowMin = fmt.Sprintf("%s (%d)", num(m.RowCosineMin, "%.6f"), m.RowCosineMinRow)
			}
		}
		status := "ok"
		if r.Step != nil && r.Step.Layer == ly.Layer {
			status = "STEP CHANGE"
		}
		if ly.NoAgreement {
			status = "NO AGREEMENT"
		}
		switch {
		case m.Overflow:
			status = "OVERFLOWS"
		case unmeasured(m):
			status = "DIFFERS, REF ZERO"
		}
		if ly.Ref.NaN+ly.Ref.Inf+ly.Ours.NaN+ly.Ours.Inf > 0 {
			status = "NON-FINITE"
		}
		log := "-"
		if ly.Log != nil {
			log = "agrees"
			switch {
			case !ly.Log.Agrees && ly.Log.Row0NonFinite:
				log = "row 0 NaN/Inf"
				status = "NaN/Inf IN ROW 0"
			case !ly.Log.Agrees:
				log = "DIFFERS"
				status = "LOG DIFFERS"
			}
		}
		safetext.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%s\t  %s\n", name, shape, num(m.Cosine, "%.6f"), rowMin,
			num(m.MaxAbsDiff, "%.3g"), num(m.RelL2, "%.3g"), ly.Ref.NaN, ly.Ref.Inf, ly.Ours.NaN, ly.Ours.Inf, log, status)
	}
	tw.Flush()
	p("\nstep rule: %s\n", r.Rule)
	if s := r.Step; s != nil {
		p("STEP CHANGE at layer %d: rel L2 %.3g after %.3g at layer %d; the largest change between earlier layers was %.3g\n",
			s.Layer, s.RelL2, s.PreviousRelL2, s.PreviousLayer, s.LargestChangeBefore)
	} else {
		p("no step change\n")
	}
	hs := map[string]bool{}
	for _, ly := range r.Layers {
		if ly.HFrom != "" && !hs[ly.HFrom] {
			hs[ly.HFrom] = true
			p("row width (H): %s\n", ly.HFrom)
		}
	}
	for _, ly := range r.Layers {
		if ly.Problem == "" {
			continue
		}
		label := "NOT WRITTEN"
		if ly.Status == "malformed" {
			label = "MALFORMED"
		}
		name := fmt.Sprintf("layer %d", ly.Layer)
		if ly.LayerTo != 0 {
			name = fmt.Sprintf("layers %d-%d", ly.Layer, ly.LayerTo)
		}
		p("%s %s: %s\n", label, name, ly.Problem)
	}
	for _, u := range r.Unusable {
		p("UNUSABLE FILE %s: %s: it is not compared (rename it layer_<l> with the layer it holds, or --map)\n", u.File, u.Problem)
	}
	for _, ly := range r.Layers {
		switch {
		case ly.Log == nil || ly.Log.Agrees:
		case ly.Log.Row0NonFinite:
			p("NaN/Inf IN ROW 0 of layer %d: row 0 of %s holds %s, so it has no mean|x| or absmax; [L] line %d says mean|x| %g absmax %g: the engine printed numbers for a row the dump holds as NaN/Inf\n",
				ly.Layer, ly.Ours.File, nonFinite(ly.Ours.Row0NaN, ly.Ours.Row0Inf), ly.Log.Line, ly.Log.MeanAbs, ly.Log.AbsMax)
		default:
			p("LOG DIFFERS layer %d: [L] line %d says mean|x| %g absmax %g; row 0 of %s has %s and %s\n", ly.Layer, ly.Log.Line,
				ly.Log.MeanAbs, ly.Log.AbsMax, ly.Ours.File, num(ly.Ours.Row0MeanAbs, "%g"), num(ly.Ours.Row0AbsMax, "%g"))
		}
	}
	if r.Log != nil {
		p("[L] log %s: %s, %d checked against row 0 of our dumps; layers it shows ran without a dump of ours: %s\n", r.Log.Path, units.Plural(int64(r.Log.Layers), "layer", "layers"), r.Log.Checked, r.Log.WithoutDump)
		if r.Log.Unchecked > 0 {
			p("LOG UNCHECKED: %s an [L] line but no known row width (give --hidden or sidecars), so row 0 could not be compared\n", units.Plural(int64(r.Log.Unchecked), "layer has", "layers have"))
		}
		if r.Log.Checked == 0 {
			p("LOG CHECKED NOTHING: no compared layer has an [L] line in %s (wrong log, or NPU_INFER_DUMP_LAYERS was not set for this run)\n", r.Log.Path)
		}
	}
	t := r.Totals
	if r.NothingCompared != "" {
		p("\nNOTHING COMPARED: %s\n", r.NothingCompared)
	}
	verdict := "COMPLETE"
	if r.Findings() {
		verdict = "FINDINGS"
	}
	p("\n%s: %d compared, %d not written, %d malformed, %d with NaN/Inf, %d disagreeing with the log, step change: %v\n",
		verdict, t.Compared, t.NotWritten, t.Malformed, t.NonFinite, t.LogMismatch, t.Step)
	if t.NoAgreement > 0 {
		var at []string
		for _, ly := range r.Layers {
			if ly.NoAgreement {
				at = append(at, fmt.Sprintf("%d (rel L2 %.3g)", ly.Layer, *ly.Metrics.RelL2))
			}
		}
		word := "layers"
		if len(at) == 1 {
			word = "layer"
		}
		p("NO AGREEMENT at %s %s: rel L2 ≥ %g, ours no closer to the reference than all zeros are; the step rule cannot judge the first %d compared layers (NO AGREEMENT above)\n",
			word, strings.Join(at, ", "), noAgreementAt, judgedFrom)
	}
	over := 0
	for _, ly := range r.Layers {
		if ly.Metrics != nil && ly.Metrics.Overflow {
			over++
		}
	}
	if n := t.Unmeasured - over; n > 0 {
		p("%d compared layers differ where the reference is zero: no relative error, so the step rule cannot see them (DIFFERS, REF ZERO above)\n", n)
	}
	if over > 0 {
		p("%d compared layers hold finite values whose sums overflow float64 (over about 1e154, from a <f8 file): their figures are n/a, so the step rule cannot see them (OVERFLOWS above)\n", over)
	}
	return bw.Flush()
}

func num(v *float64, format string) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf(format, *v)
}

// nonFinite names a row's NaN and Inf counts, leaving out a zero one.
func nonFinite(nan, inf int64) string {
	switch {
	case inf == 0:
		return fmt.Sprintf("%d NaN", nan)
	case nan == 0:
		return fmt.Sprintf("%d Inf", inf)
	}
	return fmt.Sprintf("%d NaN and %d Inf", nan, inf)
}
