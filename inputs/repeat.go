package inputs

import (
	"os"

	"github.com/tallyprof/tally/analysis"
)

// passRepeats passes over every input that names a file or directory
// already among the inputs — the same path twice, a link to it, a file
// named again inside a directory that was walked — listing it as skipped:
// read twice, one recording would count its dispatches twice in the merged
// tables, and the run would still read as complete.
func (e *Expansion) passRepeats() {
	type named struct {
		path string
		st   os.FileInfo
	}
	bySize := map[int64][]named{}
	kept := e.Paths[:0]
	for _, p := range e.Paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil {
			kept = append(kept, p) // standard input, or a path whose read will fail visibly
			continue
		}
		first := ""
		for _, n := range bySize[st.Size()] {
			if os.SameFile(n.st, st) {
				first = n.path
				break
			}
		}
		if first != "" {
			e.Skipped = append(e.Skipped, analysis.Skipped{Path: p, Reason: "the same file as " + first + ", named again: read once"})
			continue
		}
		bySize[st.Size()] = append(bySize[st.Size()], named{p, st})
		kept = append(kept, p)
	}
	e.Paths = kept
}
