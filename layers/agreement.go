package layers

// noAgreementAt is the rel L2 from which a layer has no agreement left:
// ‖ours−ref‖ ≥ ‖ref‖ means ours is no closer to the reference than all
// zeros is, which no quantisation explains.
const noAgreementAt = 1.0

// noAgreement flags the layers the step rule cannot judge (the compared
// layers with a rel L2 before its first judgeable one) whose rel L2 is at
// least noAgreementAt: rule 1 takes the first layer's error as a baseline
// and rule 4 needs earlier changes, so a layer of zeros there read "ok".
// Layers the rule judges are left to it: the step names where agreement
// went, and the layers after it carry the same error. measured holds the
// compared layers with a rel L2, in the step rule's order.
func (rep *Report) noAgreement(measured []*Layer) {
	for _, ly := range measured[:min(judgedFrom, len(measured))] {
		if m := ly.Metrics; !m.Overflow && *m.RelL2 >= noAgreementAt {
			ly.NoAgreement = true
			rep.Totals.NoAgreement++
		}
	}
}
