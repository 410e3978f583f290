package render

import "github.com/tallyprof/tally/internal/safetext"

// FitLabels are the labels a table of one program's kernels shows in
// other text outputs (tally diff), made as the report's kernel tables make
// theirs: each name in full shortened (ShortName) unless whole, stepped
// back to a longer form where two rows with equal tags would read the same,
// escaped (safetext), then cut to fit room columns (fitNames) with its tag
// and tail after it, never cut. tags tell rows apart ("[init list]"),
// tails do not ("[GAP on B: …]"); both are already escaped. room below 1
// (or whole) is no limit; a name keeps at least minNameWidth columns.
func FitLabels(full, tags, tails []string, whole bool, room int) []string {
	names := shortLabels(full, tags, whole, safetext.Escape)
	widths := make([]int, len(names))
	for i := range names {
		if room > 0 && !whole {
			widths[i] = max(room-runes(tags[i])-runes(tails[i]), minNameWidth)
		}
	}
	fitted := fitNames(names, tags, widths)
	for i := range fitted {
		fitted[i] += tags[i] + tails[i]
	}
	return fitted
}
