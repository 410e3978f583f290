package layers

import (
	"math"
	"strings"
	"testing"
)

// scaled writes tl layers: ref exact, ours = ref·(1+k(l)), so that layer
// l's rel L2 is |k(l)| (ours all zeros where k is −1).
func scaled(t *testing.T, k func(l int) float64) *Report {
	t.Helper()
	ref, ours := dumps(t, func(l, r, c int) float64 { return k(l) * value(l, r, c) })
	return run(t, ref, ours, Options{Hidden: th})
}

// A layer with no agreement left (rel L2 ≥ 1) among the layers the step
// rule cannot judge read "ok" and COMPLETE: rule 1 takes the first layer's
// error as a baseline, rule 4 needs earlier changes. Now it is NO
// AGREEMENT, counted in totals.no_agreement, and a finding.
func TestNoAgreementBeforeStepRule(t *testing.T) {
	for _, c := range []struct {
		name string
		k    func(l int) float64
		at   int64
	}{
		{"ours all zeros at layer 0", func(l int) float64 {
			if l == 0 {
				return -1
			}
			return 0
		}, 0},
		{"0.01 then 1.0 at layer 1", func(l int) float64 {
			if l == 1 {
				return -1
			}
			return 0.01
		}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := scaled(t, c.k)
			ly := byLayer(rep, c.at)
			if rep.Totals.NoAgreement != 1 || !ly.NoAgreement || !rep.Findings() || rep.Step != nil {
				t.Fatalf("got totals %+v, layer %d no_agreement %v, findings %v, step %+v; want 1 no_agreement at layer %d, a finding, no step",
					rep.Totals, c.at, ly.NoAgreement, rep.Findings(), rep.Step, c.at)
			}
			out := text(t, rep)
			if !strings.Contains(out, "NO AGREEMENT\n") || !strings.Contains(out, "\nFINDINGS:") || !strings.Contains(out, "NO AGREEMENT at layer ") {
				t.Fatalf("got\n%s\nwant layer %d's row NO AGREEMENT, the verdict FINDINGS and the layer named after it", out, c.at)
			}
			js := jsonOf(t, rep)
			if !strings.Contains(js, `"no_agreement": 1`) || strings.Count(js, `"no_agreement": true`) != 1 {
				t.Fatalf("JSON: got\n%s\nwant totals.no_agreement 1 and one layer with no_agreement true", js)
			}
		})
	}
}

// A quantised engine's constant baseline well under 1 is no finding; and
// a layer the step rule judges keeps its behaviour: smooth geometric drift
// (40% a layer) past rel L2 1 is neither a step nor NO AGREEMENT.
func TestNoAgreementLeavesJudgedLayers(t *testing.T) {
	for name, k := range map[string]func(l int) float64{
		"baseline 0.3":      func(int) float64 { return 0.3 },
		"drift past 1 late": func(l int) float64 { return 0.1 * math.Pow(1.4, float64(l)) },
	} {
		rep := scaled(t, k)
		if e := *byLayer(rep, tl-1).Metrics.RelL2; name != "baseline 0.3" && e < noAgreementAt {
			t.Fatalf("%s: got rel L2 %g at the last layer, want at least %g (the case tests a judged layer past it)", name, e, noAgreementAt)
		}
		if rep.Totals.NoAgreement != 0 || rep.Findings() {
			t.Errorf("%s: got totals %+v, want no no_agreement and no finding", name, rep.Totals)
		}
		if out := text(t, rep); strings.Contains(out, "NO AGREEMENT") || !strings.Contains(out, "\nCOMPLETE:") {
			t.Errorf("%s: got\n%s\nwant no NO AGREEMENT and COMPLETE", name, out)
		}
	}
}
