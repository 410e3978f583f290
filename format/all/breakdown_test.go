package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/format"
)

// Every reader's samples give a time breakdown that adds up to each
// device's window to the ns (docs/breakdown.md): nsys, rocprof (with the
// HIP API join), IREE, NPU logs, hrx kept traces, probe files, Kineto.
func TestBreakdownEveryReader(t *testing.T) {
	var paths []string
	for _, glob := range []string{"../*/testdata/*", "../../examples/*", "../../selftest/traces/*"} {
		ps, _ := filepath.Glob(glob)
		paths = append(paths, ps...)
	}
	seen := map[string]int{}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".txt") {
			continue
		}
		bs := analysis.NewBreakdownSink(analysis.BreakdownOptions{})
		c, err := format.ReadPath(p, "", &format.Options{Manifests: []string{"../../examples/kernels"}}, bs)
		if err != nil || c == nil {
			continue // not a trace on its own (a manifest, a sidecar) or no reader's
		}
		bd := bs.Finish(c)
		if bd.Err != nil {
			t.Errorf("%s: got error %v, want none", p, bd.Err)
			continue
		}
		for _, r := range bd.Devices {
			if r.Busy.Sum()+r.Idle.Sum() != r.Window || r.Window != r.End-r.Begin || r.Window < 0 {
				t.Errorf("%s (%s) %s: busy %+v + idle %+v, want the window %d", p, c.Source.Format, r.Device, r.Busy, r.Idle, r.Window)
			}
			if !r.Launches && (r.Idle.HostWait != 0 || r.Idle.LaunchLatency != 0 || r.Idle.OtherStream != 0 || r.Idle.Unrecorded != 0) {
				t.Errorf("%s %s: no launch records: got idle %+v, want all of it unexplained", p, r.Device, r.Idle)
			}
		}
		if len(bd.Devices) > 0 {
			seen[c.Source.Format]++
		}
	}
	for _, f := range []string{"kineto", "nsys", "rocprof", "ireeprof", "hrx-serial", "probe"} {
		if seen[f] == 0 {
			t.Errorf("got no %s sample with a breakdown row (seen %v), want one", f, seen)
		}
	}
	t.Logf("samples with device rows, by format: %v", seen)
}
