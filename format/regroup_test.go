package format

import (
	"bufio"
	"bytes"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// The test-devices reader reads lines "DEV PROGRAM DEVICE STREAM KERNEL
// RUN NS" ("_" in PROGRAM reads as a space): one dispatch each, on the queue of (DEVICE, STREAM) — "-" for a
// dispatch without a queue. Programs "p" and "q" get a scoped gap; programs are
// told their run states and incomplete runs ("STATES PROGRAM complete=N
// failed=M", "INCOMPLETE PROGRAM RUN"); "TICKS PROGRAM" puts a program on a
// tick clock. With --format test-devices-native it implements
// --program-by stream itself, recording what it was given.
var seenProgramBy []string

func init() {
	for _, name := range []string{"test-devices", "test-devices-native"} {
		f := Format{Name: name, Sniff: func(h []byte) Confidence {
			if bytes.HasPrefix(h, []byte("DEV ")) {
				return Certain
			}
			return No
		}, Read: readDevices}
		if name == "test-devices-native" {
			f.Sniff = func([]byte) Confidence { return No }
			f.ProgramBy = []string{ByAnnotation, ByStream}
		}
		Register(f)
	}
}

func readDevices(in *Input, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	seenProgramBy = append(seenProgramBy, opts.ProgramBy)
	c := &capture.Capture{Clock: capture.Clock{Domain: "test", Unit: "ns", Timed: true, Description: "ns"}}
	progs := map[string]capture.ProgramID{}
	kernels := map[string]capture.KernelID{}
	queues := map[string]capture.QueueID{}
	prog := func(name string) capture.ProgramID {
		if p, ok := progs[name]; ok {
			return p
		}
		p := c.AddProgram(capture.Program{Name: name})
		progs[name] = p
		switch name {
		case "p":
			g := c.Accounting.Gap(capture.UnfinishedDispatch, "p")
			g.Summary = "launched, never finished"
			g.Add(capture.Item{What: "launched"})
		case "q":
			g := c.Accounting.Gap(capture.IncompleteProgram, "q")
			g.Summary = "began, never ended"
			g.Add(capture.Item{What: "run 0"})
		}
		return p
	}
	src, err := in.Reader()
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(src)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 7 && f[0] == "DEV":
			p := prog(strings.ReplaceAll(f[1], "_", " "))
			q := capture.NoQueue
			if f[2] != "-" {
				key := f[2] + "/" + f[3]
				var ok bool
				if q, ok = queues[key]; !ok {
					q = c.AddQueue(capture.Queue{Name: "stream " + f[3], Device: f[2]})
					queues[key] = q
				}
			}
			kk := f[1] + "/" + f[4]
			k, ok := kernels[kk]
			if !ok {
				k = c.AddKernel(capture.Kernel{Program: p, Name: f[4], Resolved: true, Category: "kernel"})
				kernels[kk] = k
			}
			run, _ := strconv.ParseInt(f[5], 10, 64)
			ns, _ := strconv.ParseInt(f[6], 10, 64)
			c.Programs[p].Instances = max(c.Programs[p].Instances, run+1)
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Instance: run, Index: -1, Ordinal: -1,
				Device: capture.Interval{Begin: 0, End: ns, Valid: true}})
		case len(f) >= 2 && f[0] == "STATES":
			p := prog(f[1])
			for _, kv := range f[2:] {
				k, v, _ := strings.Cut(kv, "=")
				n, _ := strconv.ParseInt(v, 10, 64)
				c.Programs[p].InstanceStates = append(c.Programs[p].InstanceStates, capture.Count{Name: k, Count: n})
			}
		case len(f) == 3 && f[0] == "INCOMPLETE":
			n, _ := strconv.ParseInt(f[2], 10, 64)
			p := prog(f[1])
			c.Programs[p].IncompleteRuns = append(c.Programs[p].IncompleteRuns, n)
		case len(f) == 2 && f[0] == "TICKS":
			c.Programs[prog(f[1])].Clock = &capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true, Description: "ticks"}
		}
	}
	return c, sc.Err()
}

// twoGPUs: program p runs twice on GPU 0 and once on GPU 1 (run 2, which
// did not complete), program q only on GPU 1; kernel k in both.
const twoGPUs = `DEV p GPU0 7 k 0 10
DEV p GPU0 7 k 1 20
DEV p GPU1 9 k 2 40
DEV p GPU1 9 m 2 5
DEV q GPU1 9 k 0 100
DEV q GPU1 11 k 0 1
STATES p complete=2 incomplete=1
INCOMPLETE p 2
`

// readSpec reads spec with --program-by by (as the given reader) and returns
// the capture and per program name its dispatch count and device time.
func readSpec(t *testing.T, spec, reader, by string) (*capture.Capture, map[string][2]int64) {
	t.Helper()
	got := map[string][2]int64{}
	var col capture.Collect
	c, err := ReadInput(BytesInput("in.dev", []byte(spec)), reader, &Options{ProgramBy: by}, &col)
	if err != nil {
		t.Fatalf("--program-by %q: got error %v, want none", by, err)
	}
	for _, d := range col.Dispatches {
		n := c.Programs[d.Program].Name
		if c.Kernels[d.Kernel].Program != d.Program {
			t.Fatalf("dispatch of kernel %d: got program %d, want the kernel's program %d", d.Kernel, d.Program, c.Kernels[d.Kernel].Program)
		}
		v := got[n]
		v[0]++
		v[1] += d.Device.End - d.Device.Begin
		got[n] = v
	}
	return c, got
}

func names(c *capture.Capture) string {
	var out []string
	for _, p := range c.Programs {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func prog(c *capture.Capture, name string) *capture.Program {
	for i := range c.Programs {
		if c.Programs[i].Name == name {
			return &c.Programs[i]
		}
	}
	return nil
}

// TestAutoSplitsSeveralDevices: by default a capture on two devices has
// one program per device of each of the reader's programs, named after
// it, each with its own runs; gaps follow their program.
func TestAutoSplitsSeveralDevices(t *testing.T) {
	c, got := readSpec(t, twoGPUs, "", "")
	if want := "GPU0 · p; GPU1 · p; GPU1 · q"; names(c) != want {
		t.Fatalf("got programs %s, want %s", names(c), want)
	}
	if got["GPU0 · p"] != [2]int64{2, 30} || got["GPU1 · p"] != [2]int64{2, 45} || got["GPU1 · q"] != [2]int64{2, 101} {
		t.Fatalf("got %v, want p's dispatches apart by device", got)
	}
	p0, p1 := prog(c, "GPU0 · p"), prog(c, "GPU1 · p")
	if p0.Instances != 2 || p1.Instances != 1 {
		t.Errorf("got runs %d and %d, want 2 on GPU0 and 1 on GPU1", p0.Instances, p1.Instances)
	}
	if len(p0.IncompleteRuns) != 0 || len(p1.IncompleteRuns) != 1 || p1.IncompleteRuns[0] != 2 {
		t.Errorf("got incomplete runs %v and %v, want run 2 on GPU1 only", p0.IncompleteRuns, p1.IncompleteRuns)
	}
	if p0.InstanceStates != nil || !strings.Contains(strings.Join(p0.Notes, "|"), "run states over all the program's devices: 2 complete, 1 incomplete") {
		t.Errorf("run states: got %v, notes %q; want them moved to a note", p0.InstanceStates, p0.Notes)
	}
	// q ran on one device: its runs are the reader's.
	if q := prog(c, "GPU1 · q"); q.Instances != 1 || len(q.Notes) != 0 {
		t.Errorf("q: got %d runs, notes %q; want the reader's 1 run, no note", q.Instances, q.Notes)
	}
	g := c.Accounting.Find(capture.UnfinishedDispatch)
	if g == nil || g.Program != "" || !strings.HasPrefix(g.Summary, "program p: ") {
		t.Errorf("gap of split p: got %+v, want it the capture's, naming p", g)
	}
	if g := c.Accounting.Find(capture.IncompleteProgram); g == nil || g.Program != "GPU1 · q" || g.Summary != "began, never ended" {
		t.Errorf("gap of q, on one device: got %+v, want it scoped to GPU1 · q", g)
	}
	// Every kernel belongs to its program (CheckValid, as ReadInput ran it).
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
}

// TestAutoDispatchWithoutDevice: with two devices, a dispatch that records
// none is counted with its program's first device, and the program says so.
func TestAutoDispatchWithoutDevice(t *testing.T) {
	c, got := readSpec(t, "DEV p - - k 0 20\nDEV p GPU0 7 k 0 10\nDEV p GPU1 7 k 0 5\n", "", "")
	if names(c) != "GPU0 · p; GPU1 · p" || got["GPU0 · p"] != [2]int64{2, 30} {
		t.Fatalf("got %s %v, want the deviceless dispatch under GPU0 · p", names(c), got)
	}
	if n := strings.Join(prog(c, "GPU0 · p").Notes, "|"); !strings.Contains(n, "1 dispatch records no device: counted here") {
		t.Errorf("got notes %q, want the deviceless dispatch stated", n)
	}
	// Asked for, the split keeps it apart.
	c, _ = readSpec(t, "DEV p - - k 0 20\nDEV p GPU0 7 k 0 10\nDEV p GPU1 7 k 0 5\n", "", "annotation,device")
	if names(c) != "(no device) · p; GPU0 · p; GPU1 · p" {
		t.Errorf("annotation,device: got %s, want (no device) · p; GPU0 · p; GPU1 · p", names(c))
	}
}

// TestAutoSplitOnce: a program already named after its device (a report
// read back, as tally export --to kineto writes it) is not named again.
func TestAutoSplitOnce(t *testing.T) {
	c, _ := readSpec(t, "DEV GPU0_·_p GPU0 7 k 0 10\nDEV GPU1_·_p GPU1 7 k 0 5\n", "", "")
	if names(c) != "GPU0 · p; GPU1 · p" {
		t.Fatalf("got %s, want the names as read", names(c))
	}
}

// TestAutoOneDeviceUnchanged: on one device nothing is split or renamed.
func TestAutoOneDeviceUnchanged(t *testing.T) {
	spec := "DEV p GPU0 7 k 0 10\nDEV p GPU0 8 k 1 20\nDEV q GPU0 7 k 0 5\nSTATES p complete=2\n"
	c, _ := readSpec(t, spec, "", "auto")
	if names(c) != "p; q" || c.Programs[0].Instances != 2 || len(c.Programs[0].InstanceStates) != 1 {
		t.Fatalf("got %+v, want p and q as read", c.Programs)
	}
	if g := c.Accounting.Find(capture.UnfinishedDispatch); g.Program != "p" {
		t.Errorf("gap: got program %q, want p", g.Program)
	}
	// Dispatches that record no device (aggregated rows) are no second
	// device.
	c, _ = readSpec(t, "DEV p GPU0 7 k 0 10\nDEV p - - k 0 20\n", "", "")
	if names(c) != "p" {
		t.Fatalf("one device and none: got %s, want p as read", names(c))
	}
	// Without queues (hrx, npu logs): nothing to split either.
	c, _ = readSpec(t, "DEV p - - k 0 10\nDEV q - - k 0 5\n", "", "")
	if names(c) != "p; q" {
		t.Fatalf("no queues: got %s, want p; q", names(c))
	}
}

// TestGroupingValues: each --program-by value regroups every reader's
// dispatches, totals unchanged.
func TestGroupingValues(t *testing.T) {
	for _, c := range []struct {
		by, want string
	}{
		{"annotation", "p; q"},
		{"annotation,device", "GPU0 · p; GPU1 · p; GPU1 · q"},
		{"annotation,stream", "GPU0 · stream 7 · p; GPU1 · stream 11 · q; GPU1 · stream 9 · p; GPU1 · stream 9 · q"},
		{"device", "GPU0; GPU1"},
		{"stream", "GPU0 · stream 7; GPU1 · stream 11; GPU1 · stream 9"},
		{"none", "all"},
		{"device,annotation", "GPU0 · p; GPU1 · p; GPU1 · q"},
	} {
		cp, got := readSpec(t, twoGPUs, "", c.by)
		if names(cp) != c.want {
			t.Errorf("--program-by %s: got programs %s, want %s", c.by, names(cp), c.want)
		}
		var n, ns int64
		for _, v := range got {
			n, ns = n+v[0], ns+v[1]
		}
		if n != 6 || ns != 176 {
			t.Errorf("--program-by %s: got %d dispatches, %d ns; want all 6, 176 ns", c.by, n, ns)
		}
		if err := cp.CheckValid(); err != nil {
			t.Errorf("--program-by %s: got CheckValid error %v, want none", c.by, err)
		}
	}
	// device: kernels by name within a device, across the reader's programs.
	c, _ := readSpec(t, twoGPUs, "", "device")
	var ks []string
	for _, k := range c.Kernels {
		ks = append(ks, c.Programs[k.Program].Name+"/"+k.Name)
	}
	sort.Strings(ks)
	if strings.Join(ks, " ") != "GPU0/k GPU1/k GPU1/m" {
		t.Errorf("device: got kernels %v, want k once per device", ks)
	}
	if g := c.Accounting.Find(capture.UnfinishedDispatch); g.Program != "" || !strings.HasPrefix(g.Summary, "program p: ") {
		t.Errorf("device: gap of p %+v, want it the capture's, naming p", g)
	}
	if n := strings.Join(c.Programs[0].Notes, "|"); !strings.Contains(n, "every dispatch on this device in one program") {
		t.Errorf("device: got notes %q, want one saying every dispatch on this device is in one program", n)
	}
}

// TestGroupingWithoutDevices: a reader that records no device says so
// when asked to group by one.
func TestGroupingWithoutDevices(t *testing.T) {
	c, _ := readSpec(t, "DEV p - - k 0 10\nDEV q - - k 0 5\n", "", "device")
	if names(c) != "(no device)" {
		t.Fatalf("got %s, want one program (no device)", names(c))
	}
	if n := strings.Join(c.Programs[0].Notes, "|"); !strings.Contains(n, "this input records no device for its dispatches (the test-devices reader)") {
		t.Errorf("got notes %q, want the reader named as recording no device", n)
	}
	c, _ = readSpec(t, "DEV p - - k 0 10\n", "", "stream")
	if names(c) != "(no stream)" || !strings.Contains(strings.Join(c.Programs[0].Notes, "|"), "records no stream") {
		t.Errorf("stream: got %s %q, want (no stream) and a note that the reader records no stream", names(c), c.Programs[0].Notes)
	}
}

// TestGroupingKeepsClocksApart: programs on different clocks are never
// merged into one (their times cannot be summed): the one on its own
// clock is named after it.
func TestGroupingKeepsClocksApart(t *testing.T) {
	c, got := readSpec(t, "TICKS q\nDEV p GPU0 7 k 0 10\nDEV q GPU0 7 k 0 5\n", "test-devices", "device")
	if names(c) != "GPU0; GPU0 · device-ticks" || got["GPU0"][0] != 1 || got["GPU0 · device-ticks"][0] != 1 {
		t.Fatalf("got %s %v, want GPU0 once per clock", names(c), got)
	}
	if u := c.ProgramClock(1).Unit; u != "ticks" {
		t.Errorf("got unit %q for the tick program, want ticks", u)
	}
}

// TestGroupingNative: a reader that implements a value itself is given
// it and nothing is done for it; values it does not implement reach it as
// its base.
func TestGroupingNative(t *testing.T) {
	seenProgramBy = nil
	c, _ := readSpec(t, twoGPUs, "test-devices-native", "stream")
	if names(c) != "p; q" || seenProgramBy[0] != "stream" {
		t.Errorf("native stream: got %s, reader given %q; want the reader's own", names(c), seenProgramBy)
	}
	seenProgramBy = nil
	c, _ = readSpec(t, twoGPUs, "test-devices-native", "")
	if names(c) != "GPU0 · p; GPU1 · p; GPU1 · q" || seenProgramBy[0] != "annotation" {
		t.Errorf("native auto: got %s, reader given %q; want annotation and the split done for it", names(c), seenProgramBy)
	}
	seenProgramBy = nil
	readSpec(t, twoGPUs, "", "device")
	if seenProgramBy[0] != "" {
		t.Errorf("plain reader: given %q, want \"\"", seenProgramBy[0])
	}
}

// TestGroupingErrors: an unknown value, or gpu-annotation for a reader
// without GPU annotations, is an error that names the input and the
// choices.
func TestGroupingErrors(t *testing.T) {
	for _, c := range []struct{ by, want string }{
		{"stream,device", `unknown --program-by "stream,device"`},
		{"annotation,annotation", "unknown --program-by"},
		{"bogus", "use auto, annotation, gpu-annotation, device, stream, none"},
		{"gpu-annotation", "the test-devices reader has no GPU annotations (only kineto does)"},
	} {
		_, err := ReadInput(BytesInput("in.dev", []byte(twoGPUs)), "", &Options{ProgramBy: c.by}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.dev: ") {
			t.Errorf("--program-by %s: got %v, want an error naming in.dev, with %q", c.by, err, c.want)
		}
	}
}

// TestPrefixNameKeepsCut: a program name the reader cut at MaxName keeps
// its marker (the input's full length) when a device is put before it.
func TestPrefixNameKeepsCut(t *testing.T) {
	long := strings.Repeat("s", 2*capture.MaxName)
	cut, _ := capture.CutName(long)
	got := prefixName("GPU 0 · ", cut)
	if len(got) > capture.MaxName || !strings.HasPrefix(got, "GPU 0 · sss") || !strings.HasSuffix(got, capture.CutMarker(int64(len(long)))) {
		t.Errorf("got %d bytes ending %q, want ≤ %d ending %q", len(got), got[len(got)-40:], capture.MaxName, capture.CutMarker(int64(len(long))))
	}
	if got := prefixName("GPU 0 · ", "p"); got != "GPU 0 · p" {
		t.Errorf("got %q, want GPU 0 · p", got)
	}
	// A name just under the limit, uncut: the whole is cut and marked.
	near := strings.Repeat("é", capture.MaxName/2-1)
	got = prefixName("GPU 0 · ", near)
	if len(got) > capture.MaxName || !strings.HasSuffix(got, " bytes]") || !strings.HasPrefix(got, "GPU 0 · é") {
		t.Errorf("near the limit: got %d bytes, want at most %d, starting \"GPU 0 · é\" and marked \" bytes]\"", len(got), capture.MaxName)
	}
}
