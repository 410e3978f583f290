package format

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// MalformedLines records n lines that looked like a format's lines and did
// not parse as one skipped_input gap: summary says what they are and what
// is lost, first are the line numbers of the first few (the readers keep a
// bounded list), and the figure malformed_lines counts them all.
func MalformedLines(a *capture.Accounting, n int64, first []int64, summary string) {
	if n == 0 {
		return
	}
	nums := make([]string, len(first))
	for i, l := range first {
		nums[i] = fmt.Sprint(l)
	}
	g := a.Gap(capture.SkippedInput, "")
	g.Summary = summary
	g.Add(capture.Item{What: fmt.Sprintf("%d malformed lines", n), Where: "lines " + strings.Join(nums, ", ")})
	g.Count = n
	g.SetFigure("malformed_lines", n)
}
