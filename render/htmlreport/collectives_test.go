package htmlreport

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
	"github.com/tallyprof/tally/render"
)

// The page of a generated job has the collectives section: a skew chart
// per type with one bar per instance, each naming the planted straggler,
// and the ranks that waited longest, the straggler last.
func TestCollectivesSection(t *testing.T) {
	cfg, run, res := collgentest.Job(t)
	page := string(writePage(t, run, Options{Collectives: res}))
	_, sec, ok := strings.Cut(page, `<section id="collectives">`)
	if !ok {
		t.Fatal("got no collectives section on the page, want one")
	}
	sec, _, _ = strings.Cut(sec, "</section>")
	for _, typ := range []string{"allreduce", "allgather"} {
		_, chart, ok := strings.Cut(sec, `data-type="`+typ+`"`)
		if !ok {
			t.Fatalf("got no %s chart, want one", typ)
		}
		chart, _, _ = strings.Cut(chart, "</svg>")
		if n := strings.Count(chart, `data-straggler="5"`); n != 3 {
			t.Errorf("%s: got %d bars with straggler 5, want 3:\n%s", typ, n, chart)
		}
	}
	rows := regexp.MustCompile(`<tr data-rank="(\d+)">`).FindAllStringSubmatch(sec, -1)
	if len(rows) != cfg.Ranks || rows[0][1] != "0" || rows[len(rows)-1][1] != "5" {
		t.Errorf("got rank rows %v, want all 8, rank 0 (longest wait) first, rank 5 (the straggler) last", rows)
	}
	// Each rank's exposed communication is its breakdown's (the generated
	// job runs no compute: all of its collectives' time).
	for _, r := range res.Ranks {
		// the cell after the wait's
		cell := fmt.Sprintf(`data-ns="%d">%s</td><td class="n" data-ns="%d">%s</td>`, r.Wait, render.Duration(r.Wait, "ns"), r.Exposed, render.Duration(r.Exposed, "ns"))
		_, row, _ := strings.Cut(sec, fmt.Sprintf(`<tr data-rank="%d">`, r.Rank))
		row, _, _ = strings.Cut(row, "</tr>")
		if !r.HasExposed || r.Exposed != r.Time || !strings.Contains(row, cell) {
			t.Errorf("rank %d: exposed %d (known %v), time %d; want the time, shown as %s in %s", r.Rank, r.Exposed, r.HasExposed, r.Time, cell, row)
		}
	}
}
