package kineto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// TestGenerated reads a synthetic trace and checks tally's numbers against
// what the generator says it wrote — exactly.
func TestGenerated(t *testing.T) {
	var buf bytes.Buffer
	st, err := kinetogen.Write(&buf, kinetogen.Config{TargetBytes: 3 << 20, Seed: 7, OpsPerStep: 500})
	if err != nil {
		t.Fatal(err)
	}
	r := readWith(t, buf.String(), nil, config{bufSize: 4096, logRecords: 1000})
	c := r.c
	if int64(len(r.disp)) != st.DeviceEvents {
		t.Errorf("got %d dispatches, want the %d generated", len(r.disp), st.DeviceEvents)
	}
	var ns, graph int64
	cats := map[string]int64{}
	for _, d := range r.disp {
		dur, _ := d.Device.Duration()
		ns += dur
		cats[c.Kernels[d.Kernel].Category]++
		if d.Link == capture.LinkGraph {
			graph++
		}
	}
	if ns != st.DeviceNS || cats["kernel"] != st.Kernels || cats["memcpy"] != st.Memcpy || cats["memset"] != st.Memset {
		t.Errorf("device ns %d (want %d), categories %v (want %d/%d/%d)", ns, st.DeviceNS, cats, st.Kernels, st.Memcpy, st.Memset)
	}
	if graph != st.GraphEvents || c.Accounting.CountOf(capture.GraphLaunch) != st.GraphLaunches {
		t.Errorf("graph events %d (want %d), launches %d (want %d)", graph, st.GraphEvents, c.Accounting.CountOf(capture.GraphLaunch), st.GraphLaunches)
	}
	g := mustGap(t, c, capture.GPUEventWithoutLaunch)
	if g.Count != st.Orphans || fig(t, g, "total_ns") != st.OrphanNS || !bytes.Contains([]byte(g.Summary), []byte("before the profiler's CPU window opened")) {
		t.Errorf("orphans %+v, want %d (%d ns)", g, st.Orphans, st.OrphanNS)
	}
	l := mustGap(t, c, capture.LaunchWithoutGPUEvent)
	if l.Count != st.TailLaunches || fig(t, l, "after_last_device_event") != st.TailLaunches {
		t.Errorf("launches without device event %+v, want %d", l, st.TailLaunches)
	}
	if ev := c.Accounting.InputFor("events"); ev.Read != st.Events {
		t.Errorf("got %d events read, want the %d generated", ev.Read, st.Events)
	}
	for _, p := range c.Programs {
		if p.Name == "ProfilerStep" && p.Instances != int64(st.Steps) {
			t.Errorf("got %d ProfilerStep instances, want %d (the steps generated)", p.Instances, st.Steps)
		}
	}
	for _, k := range []capture.Kind{capture.OverlappingEvents, capture.ContainedEvents, capture.UnrecordedDeviceWork, capture.TruncatedInput, capture.UnknownInput, capture.ZeroDuration} {
		noGap(t, c, k)
	}
	if c.Clock.Domain != "unix-epoch" {
		t.Errorf("got clock %+v, want unix-epoch", c.Clock)
	}
}

// TestGeneratedBackwardSteps: kernels launched from the autograd thread lie
// outside the GPU step annotation and belong to their step by their launch.
func TestGeneratedBackwardSteps(t *testing.T) {
	var buf bytes.Buffer
	st, err := kinetogen.Write(&buf, kinetogen.Config{TargetBytes: 2 << 20, Seed: 3, OpsPerStep: 200, Backward: 80})
	if err != nil {
		t.Fatal(err)
	}
	if st.Backward == 0 || st.Steps < 2 {
		t.Fatalf("generator: got %+v, want backward events and at least 2 steps", st)
	}
	count := func(programBy string) (map[string]int64, *result) {
		r := readWith(t, buf.String(), &format.Options{ProgramBy: programBy}, config{bufSize: 4096, logRecords: 1000})
		n := map[string]int64{}
		for _, d := range r.disp {
			p := r.c.Programs[d.Program]
			n[p.Name]++
			if p.Name == "ProfilerStep" && p.Instances != int64(st.Steps) {
				t.Errorf("%s: got %d ProfilerStep instances, want %d (the steps generated)", programBy, p.Instances, st.Steps)
			}
		}
		return n, r
	}
	n, r := count("")
	if n["ProfilerStep"] != st.DeviceEvents-st.Orphans || n[unannotated] != st.Orphans {
		t.Errorf("annotation: got %v, want ProfilerStep %d and %s %d (the orphans)", n, st.DeviceEvents-st.Orphans, unannotated, st.Orphans)
	}
	if v, _ := field(r.c, "report", "programs"); !strings.Contains(fmt.Sprint(v), fmt.Sprintf("%d dispatches attributed by the step range", st.Backward)) {
		t.Errorf("programs line %q, want %d attributed", v, st.Backward)
	}
	n, _ = count("gpu-annotation")
	if n["ProfilerStep"] != st.DeviceEvents-st.Orphans-st.Backward || n[unannotated] != st.Orphans+st.Backward {
		t.Errorf("gpu-annotation: got %v, want ProfilerStep %d and %s %d (the orphans and the backward)", n, st.DeviceEvents-st.Orphans-st.Backward, unannotated, st.Orphans+st.Backward)
	}
}
