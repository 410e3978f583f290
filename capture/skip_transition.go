package capture

// SkipUnclassified is the old, unclassified Skip, kept only while the
// readers move to Ignore and Lose. TRANSITION: it is deleted once no
// reader calls it; CheckValid accepts its skips until then.
func (in *InputCount) SkipUnclassified(reason string, n int64, first string) {
	in.skip(Skip{Reason: reason}, n, first)
}
