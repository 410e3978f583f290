package all

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	_ "github.com/tallyprof/tally/collectives" // registers the collective kinds of the whole run
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// docs/report-json.md's "How much each gap touches" table lists every gap
// kind a reader registers, with its rule as capture.Rule.Describe words it
// and its basis: a kind cannot be added without saying how it is sized.
func TestAffectedRulesDocumented(t *testing.T) {
	raw := fixture.Read(t, "../../docs/report-json.md")
	doc := string(raw)
	_, sec, ok := strings.Cut(doc, "### How much each gap touches")
	if ok {
		_, sec, ok = strings.Cut(sec, "| kind | size | basis |")
	}
	if !ok {
		t.Fatal(`docs/report-json.md: got no "### How much each gap touches" section, want one with a "| kind | size | basis |" table`)
	}
	listed := map[string][]string{}
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| `") {
			if len(listed) > 0 && !strings.HasPrefix(line, "|") {
				break
			}
			continue
		}
		cells := strings.Split(line, " | ")
		if len(cells) < 3 {
			continue
		}
		kind := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		listed[kind] = cells[1:]
	}
	for _, k := range capture.Kinds() {
		r, _ := capture.RuleOf(k)
		cells, ok := listed[string(k)]
		if !ok {
			t.Errorf("kind %s: got no row in the table, want one (measure %q, basis %q)", k, r.Describe(), r.Why)
			continue
		}
		if got := strings.TrimSpace(cells[0]); got != r.Describe() {
			t.Errorf("kind %s: got table measure %q, want the rule's %q", k, got, r.Describe())
		}
		if got := strings.TrimSpace(strings.TrimSuffix(cells[1], " |")); got != r.Why {
			t.Errorf("kind %s: got table basis %q, want the rule's %q", k, got, r.Why)
		}
		delete(listed, string(k))
	}
	for k := range listed {
		t.Errorf("kind %s: got a row in the table, want none: no reader registers it", k)
	}
}

// Every kind in the kinds table is a note or has a sizing rule.
func TestEveryKindSizedOrNote(t *testing.T) {
	raw := fixture.Read(t, "../../docs/report-json.md")
	_, sec, _ := strings.Cut(string(raw), "### Gap kinds")
	sec, _, _ = strings.Cut(sec, "\n### ")
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		k := capture.Kind(strings.Trim(strings.SplitN(strings.TrimPrefix(line, "| "), " | ", 2)[0], "`"))
		if _, ok := capture.RuleOf(k); !ok && !k.IsNote() {
			t.Errorf("kind %s: got neither a note nor sized by a rule, want one of them", k)
		}
	}
}

// On the real Kineto traces, the no-launch time the tables give equals the
// reader's own total_ns figure for gpu_event_without_launch: the derived
// size and the reader's sentence agree to the ns.
func TestNoLaunchSizeMatchesReader(t *testing.T) {
	paths, _ := filepath.Glob("../kineto/testdata/*.json.gz")
	checked := 0
	for _, p := range paths {
		agg := analysis.NewAggregator()
		c, err := format.ReadFile(p, "", nil, agg)
		if err != nil {
			t.Fatalf("%s: got error %v, want none", p, err)
		}
		agg.Tables(c)
		for _, g := range c.Accounting.Gaps {
			if g.Kind != capture.GPUEventWithoutLaunch || g.Count == 0 {
				continue
			}
			fig, ok := g.Figure("total_ns")
			if !ok || g.Affected == nil || !g.Affected.Known || g.Affected.UnattributedNs != fig {
				t.Errorf("%s: got gpu_event_without_launch sized %+v, want known with the reader's total_ns %d unattributed", p, g.Affected, fig)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Fatalf("got only %d traces with no-launch dispatches checked, want at least 3", checked)
	}
}
