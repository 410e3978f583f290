package inputs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tallyprof/tally/analysis"
)

// PassOver lists as skipped every input that is one of outs or lies inside
// one (an export's directory): the command's own output, written by an
// earlier run into a directory it reads, was read back as an input — a
// Kineto export or a Chrome JSON timeline is a trace a reader recognises —
// and its dispatches counted twice, one run after another. An output that
// does not exist yet names nothing; "" and "-" are not files. A directory
// is an output only when it holds OutputMarker: any other directory given
// as -o (-o . beside the inputs) is refused by the writer, with its own
// message, and passing its files over would only turn that into "no input".
func (e *Expansion) PassOver(outs ...string) {
	for _, o := range outs {
		if o == "" || o == "-" {
			continue
		}
		st, err := os.Stat(o)
		if err != nil {
			continue
		}
		abs, aerr := filepath.Abs(o)
		why := fmt.Sprintf("the output of this command (%s), written by an earlier run: not read back as an input", o)
		keep := e.Paths[:0]
		for _, p := range e.Paths {
			if isOutput(p, st, abs, aerr == nil) {
				e.Skipped = append(e.Skipped, analysis.Skipped{Path: p, Reason: why})
				continue
			}
			keep = append(keep, p)
		}
		e.Paths = keep
		// A file of the output no reader recognises (an export's
		// _tally_export.json) was passed over already: say why it is there.
		for i := range e.Skipped {
			if isOutput(e.Skipped[i].Path, st, abs, aerr == nil) {
				e.Skipped[i].Reason = why
			}
		}
	}
	sort.SliceStable(e.Skipped, func(i, j int) bool { return e.Skipped[i].Path < e.Skipped[j].Path })
}

// OutputMarker is the file every directory a tally export writes holds
// (the parquet dataset, a Kineto export of several inputs).
const OutputMarker = "_tally_export.json"

// isOutput reports whether input p is the output st (at abs) or, for a
// directory output, a file inside it.
func isOutput(p string, st os.FileInfo, abs string, hasAbs bool) bool {
	if pst, err := os.Stat(p); err == nil && os.SameFile(pst, st) {
		return true
	}
	if !st.IsDir() || !hasAbs {
		return false
	}
	if _, err := os.Stat(filepath.Join(abs, OutputMarker)); err != nil {
		return false
	}
	ap, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(abs, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
