package timeline

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// A probe session killed with dispatches in flight: each unfinished
// dispatch is drawn on the track of the queue it was in flight on, beside
// that queue's completed dispatches, in both formats — not on a separate
// per-input track.
func TestUnfinishedOnItsQueueTrack(t *testing.T) {
	path := "../format/probereader/testdata/killed.probe"
	c, err := format.ReadFile(path, "", &format.Options{}, capture.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// launch time -> the queue the reader says it was in flight on
	want := map[int64]string{}
	for _, g := range c.Accounting.Gaps {
		if g.Kind != capture.UnfinishedDispatch {
			continue
		}
		for _, it := range g.Items {
			if it.Queue == nil || it.Time == nil {
				t.Fatalf("got probe item %+v, want a queue and a time", it)
			}
			want[*it.Time] = queueLabel(c, *it.Queue)
		}
	}
	if len(want) != 2 {
		t.Fatalf("killed.probe lists %d unfinished dispatches, want 2", len(want))
	}
	for _, f := range []Format{Perfetto, Chrome} {
		t.Run(f.String(), func(t *testing.T) {
			sum, d := runDecoded(t, Options{As: f}, path) // every slice closed, every track named
			completed := map[string]int{}
			for _, s := range d.slices {
				if s.cat != "unfinished" {
					completed[s.track]++
				}
			}
			n := 0
			for _, s := range d.slices {
				if s.cat != "unfinished" {
					continue
				}
				n++
				launch, _ := s.args["launch"].(int64)
				q, ok := want[launch]
				name := d.tracks[s.track]
				if !ok || !strings.HasSuffix(name, " · "+q) || !strings.HasPrefix(s.name, unfinishedPrefix) || s.args["unfinished"] != true {
					t.Errorf("unfinished slice %q launched at %d on track %q, want the track of queue %q", s.name, launch, name, q)
				}
				if completed[s.track] == 0 {
					t.Errorf("got unfinished slice on %q, a track without its queue's completed dispatches; want it beside them", name)
				}
			}
			if n != len(want) || sum.Stats.Unfinished != int64(len(want)) {
				t.Errorf("%d unfinished slices decoded, %d written, want %d", n, sum.Stats.Unfinished, len(want))
			}
			for _, name := range d.tracks {
				if strings.Contains(name, "unfinished dispatches") {
					t.Errorf("got track %q, want none: every unfinished dispatch here has a known queue", name)
				}
			}
			// The gap's instants name the queue too.
			named := 0
			for _, s := range d.instants {
				if s.name == string(capture.UnfinishedDispatch) {
					if q, _ := s.args["queue"].(string); want[s.begin] == "" || !strings.HasSuffix(q, want[s.begin]) {
						t.Errorf("unfinished instant at %d: got queue %q, want one ending in %q", s.begin, q, want[s.begin])
					}
					named++
				}
			}
			if named != len(want) {
				t.Errorf("%d unfinished instants, want %d", named, len(want))
			}
		})
	}
}
