package collectives

import "sort"

// TypeSummary sums the matched instances of one collective type.
type TypeSummary struct {
	Type      string
	Instances int64
	// Timed counts the instances with figures; the means are over them
	// (transfer and bandwidth over those where they are known).
	Timed                  int64
	SkewMean               float64
	SkewMax                int64
	TransferMean           float64
	BusBWMean              float64
	HasTransfer, HasBusBW  bool
	Bytes                  int64 // summed, over instances of known size
	Straggler              int64 // the rank most often last, -1 none
	StragglerCount         int64
	transfers, bws, strags int64
	transferSum            int64
	bwSum                  float64
	skewSum                int64
	count                  map[int64]int64
}

// Types sums the instances per type, costliest skew first.
func (r *Result) Types() []TypeSummary {
	by := map[string]*TypeSummary{}
	var order []*TypeSummary
	for i := range r.Instances {
		in := &r.Instances[i]
		s := by[in.Type]
		if s == nil {
			s = &TypeSummary{Type: in.Type, Straggler: -1, count: map[int64]int64{}}
			by[in.Type] = s
			order = append(order, s)
		}
		s.Instances++
		if in.Bytes > 0 {
			s.Bytes += in.Bytes
		}
		if !in.Timed {
			continue
		}
		s.Timed++
		s.skewSum += in.Skew
		s.SkewMax = max(s.SkewMax, in.Skew)
		if in.Transfer >= 0 {
			s.transfers++
			s.transferSum += in.Transfer
		}
		if in.HasBusBW {
			s.bws++
			s.bwSum += in.BusBW
		}
		if in.Straggler >= 0 {
			s.count[in.Straggler]++
		}
	}
	out := make([]TypeSummary, 0, len(order))
	for _, s := range order {
		if s.Timed > 0 {
			s.SkewMean = float64(s.skewSum) / float64(s.Timed)
		}
		if s.transfers > 0 {
			s.TransferMean, s.HasTransfer = float64(s.transferSum)/float64(s.transfers), true
		}
		if s.bws > 0 {
			s.BusBWMean, s.HasBusBW = s.bwSum/float64(s.bws), true
		}
		for rank, n := range s.count {
			if n > s.StragglerCount || n == s.StragglerCount && rank < s.Straggler {
				s.Straggler, s.StragglerCount = rank, n
			}
		}
		s.count = nil
		out = append(out, *s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].SkewMean*float64(out[i].Timed) > out[j].SkewMean*float64(out[j].Timed)
	})
	return out
}
