package capture

import "strings"

// The operations that merge captures' parts, used when many inputs are
// reported as one (analysis.NewRun): the model says what adding two
// programs' runs, comparing two clocks or summing gap sizes means.

// AddRuns adds the runs of q (another input's program of the same name) to
// p: its instances, and its instance states by name (each sum saturating).
func (p *Program) AddRuns(q Program) {
	p.Instances = SatAdd(p.Instances, q.Instances)
	for _, c := range q.InstanceStates {
		found := false
		for i := range p.InstanceStates {
			if p.InstanceStates[i].Name == c.Name {
				p.InstanceStates[i].Count = SatAdd(p.InstanceStates[i].Count, c.Count)
				found = true
			}
		}
		if !found {
			p.InstanceStates = append(p.InstanceStates, c)
		}
	}
}

// SameAs reports whether times on clocks c and d can be added: the same
// domain and unit, both timed or both untimed (descriptions may differ).
func (c Clock) SameAs(d Clock) bool {
	return c.Unit == d.Unit && c.Timed == d.Timed && c.Domain == d.Domain
}

// AddAffected sizes g as a sum: it adds what t (another capture's gaps,
// Accounting.Totals) touches to g.Affected, created known with basis when
// g has none. Kinds of unknown size in t make the sum unknown and are named
// in the basis, each once; a nil t (not sized) makes it unknown too.
func (g *Gap) AddAffected(t *AffectedTotals, basis string) {
	if g.Affected == nil {
		g.Affected = &Affected{Known: true, Basis: basis}
	}
	af := g.Affected
	if t == nil {
		af.Known = false
		return
	}
	af.Touched.Add(t.Touched)
	if len(t.Unknown) > 0 {
		af.Known = false
		af.Basis = addUnknownKinds(af.Basis, t.Unknown)
	}
}

// addUnknownKinds names, in basis, the kinds whose size is unknown, each
// once.
func addUnknownKinds(basis string, kinds []Kind) string {
	const lead = "; unknown size: "
	have := map[string]bool{}
	base, list, found := strings.Cut(basis, lead)
	var all []string
	if found {
		all = strings.Split(list, ", ")
		for _, k := range all {
			have[k] = true
		}
	}
	for _, k := range kinds {
		if !have[string(k)] {
			have[string(k)] = true
			all = append(all, string(k))
		}
	}
	return base + lead + strings.Join(all, ", ")
}
