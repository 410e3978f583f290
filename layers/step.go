package layers

// StepRule is the documented rule for naming a step change (docs/layers.md).
// e_l is layer l's relative L2 error ‖ours−ref‖/‖ref‖ and Δ_l = e_l − e_p,
// p the previous compared layer.
const StepRule = "the first compared layer l with at least two compared layers before it where Δ = e_l − e_prev (e = relative L2 error) exceeds 0.01, exceeds half of e_prev, and exceeds 4× the largest |Δ| between earlier compared layers (the first layer's own error is a baseline, not a change)"

const (
	stepFloor  = 0.01 // Δ below this is numerical noise, whatever the history
	stepGrowth = 0.5  // Δ must be over this fraction of the error so far
	stepFactor = 4.0  // and over this multiple of the largest earlier change
	// judgedFrom is the index of the first compared layer the rule can
	// judge: the first is the baseline, the second has no earlier change.
	judgedFrom = 2
)

// Step names the layer where agreement dropped by much more than the drift
// before it.
type Step struct {
	Layer         int64   `json:"layer"`
	RelL2         float64 `json:"rel_l2"`
	PreviousLayer int64   `json:"previous_layer"`
	PreviousRelL2 float64 `json:"previous_rel_l2"`
	// LargestChangeBefore is the largest |Δ| between earlier compared
	// layers: the drift the step is measured against.
	LargestChangeBefore float64 `json:"largest_change_before"`
}

// point is one compared layer's error, in layer order.
type point struct {
	layer int64
	e     float64
}

// findStep applies StepRule to the compared layers in order.
func findStep(pts []point) *Step {
	drift := 0.0
	for i := 1; i < len(pts); i++ {
		d := pts[i].e - pts[i-1].e
		if i >= judgedFrom && d > stepFloor && d > stepGrowth*pts[i-1].e && d > stepFactor*drift {
			return &Step{Layer: pts[i].layer, RelL2: pts[i].e, PreviousLayer: pts[i-1].layer,
				PreviousRelL2: pts[i-1].e, LargestChangeBefore: drift}
		}
		if d < 0 {
			d = -d
		}
		drift = max(drift, d)
	}
	return nil
}
