package htmlreport

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

// bdFixture is one ns capture on two devices (one named with markup) with
// busy time of three classes and idle gaps of three causes, read with its
// breakdown.
func bdFixture(t testing.TB) *analysis.Run {
	t.Helper()
	c := &capture.Capture{Source: capture.Source{Path: "bd.json", Format: "test"}, Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "step", Instances: 1})
	q0 := c.AddQueue(capture.Queue{Name: "stream 7", Device: "gpu0"})
	q1 := c.AddQueue(capture.Queue{Name: "stream 8", Device: xssName})
	gemm := c.AddKernel(capture.Kernel{Program: p, Name: "gemm", Resolved: true, Category: "kernel"})
	nccl := c.AddKernel(capture.Kernel{Program: p, Name: "ncclKernel_AllReduce", Resolved: true, Category: "kernel"})
	cp := c.AddKernel(capture.Kernel{Program: p, Name: "Memcpy DtoH", Resolved: true, Category: "memcpy"})
	a := analysis.NewAggregator()
	bs := analysis.NewBreakdownSink(analysis.BreakdownOptions{})
	sink := capture.Tee{a, bs}
	add := func(q capture.QueueID, k capture.KernelID, s, e, lb, le int64) {
		sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Device: capture.Interval{Begin: s, End: e, Valid: true},
			Launch: capture.Interval{Begin: lb, End: le, Valid: true}, Link: capture.LinkLaunched})
	}
	add(q0, gemm, 1000, 2000, 0, 10)      // compute 1000
	add(q0, nccl, 2000, 2500, 20, 30)     // comm 500
	add(q0, cp, 2510, 2610, 40, 50)       // launch_latency 10, memcpy 100
	add(q0, gemm, 2700, 2800, 2650, 2690) // host_wait 80 (2610→2690), launch_latency 10
	add(q1, gemm, 0, 100, 0, 0)
	add(q1, gemm, 5_000_000, 5_000_100, 1, 2) // unrecorded
	run := oneInput(c, a.Tables(c))
	run.Inputs[0].Breakdown = bs.Finish(c)
	return run
}

var (
	bdRowRE  = regexp.MustCompile(`<div class="bdrow[^"]*" data-device="([^"]*)"[^>]*data-window-ns="(\d+)">`)
	bdPartRE = regexp.MustCompile(`data-part="([a-z_]+)" data-ns="(\d+)"`)
)

// The bars' parts are the JSON report's figures, and add up to the window.
func TestBreakdownBarsEqualJSON(t *testing.T) {
	run := bdFixture(t)
	page := string(writePage(t, run, Options{}))
	j := render.BuildBreakdown(run.Inputs[0].Capture, run.Inputs[0].Breakdown)
	rows := bdRowRE.FindAllStringSubmatchIndex(page, -1)
	if len(rows) != len(j.Devices) || len(rows) != 2 {
		t.Fatalf("bars: got %d, want one per JSON device (%d) = 2", len(rows), len(j.Devices))
	}
	for i, l := range rows {
		d := j.Devices[i]
		end := len(page)
		if i+1 < len(rows) {
			end = rows[i+1][0]
		}
		window, _ := strconv.ParseInt(page[l[4]:l[5]], 10, 64)
		if window != d.WindowNS {
			t.Errorf("bar %d: window got %d, want the JSON's %d", i, window, d.WindowNS)
		}
		want := map[string]int64{"compute": d.BusyNS.Compute, "comm": d.BusyNS.Comm, "memcpy": d.BusyNS.Memcpy, "memset": d.BusyNS.Memset,
			"host_wait": d.IdleNS.HostWait, "launch_latency": d.IdleNS.LaunchLatency, "other_stream": d.IdleNS.OtherStream,
			"unrecorded": d.IdleNS.Unrecorded, "unexplained": d.IdleNS.Unexplained}
		got := map[string]int64{}
		var sum int64
		for _, m := range bdPartRE.FindAllStringSubmatch(page[l[1]:end], -1) {
			v, _ := strconv.ParseInt(m[2], 10, 64)
			got[m[1]] = v
			sum += v
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("bar %d part %s: got %d, want the JSON's %d", i, k, got[k], v)
			}
		}
		if sum != window {
			t.Errorf("bar %d: parts sum to %d, want the window %d", i, sum, window)
		}
	}
	// The planted figures of gpu0.
	g := j.Devices[1] // rows by device name: "<img…" first
	if g.Device != "gpu0" || g.BusyNS != (render.JSONBusy{Compute: 1100, Comm: 500, Memcpy: 100}) ||
		g.IdleNS != (render.JSONIdle{HostWait: 80, LaunchLatency: 20}) {
		t.Errorf("gpu0: got busy %+v idle %+v, want compute 1100 comm 500 memcpy 100, host_wait 80 launch_latency 20", g.BusyNS, g.IdleNS)
	}
	if strings.Contains(page, xssName) {
		t.Error("got the device name written as markup, want it escaped")
	}
}

// Without a breakdown the page has no breakdown section.
func TestBreakdownAbsent(t *testing.T) {
	if bytes.Contains(sampleCapture().page(t), []byte(`id="breakdown"`)) {
		t.Error("got a breakdown section for a run without a breakdown, want none")
	}
}

// In the browser, each bar's rectangles fill its width in proportion to
// their figures, and a hostile device name stays text.
func TestBreakdownBarsInBrowser(t *testing.T) {
	run := bdFixture(t)
	ctx := openPage(t, writePage(t, run, Options{}))
	got := eval[[]float64](t, ctx, `[...document.querySelectorAll('#breakdown .bdrow')].map(r => {
		const w = +r.dataset.windowNs, svg = r.querySelector('svg').getBoundingClientRect().width;
		let worst = 0;
		for (const rect of r.querySelectorAll('rect')) {
			const want = +rect.dataset.ns / w * svg, got = rect.getBoundingClientRect().width;
			worst = Math.max(worst, Math.abs(got - want));
		}
		return worst;
	})`)
	if len(got) != 2 {
		t.Fatalf("bars drawn: got %d, want 2", len(got))
	}
	for i, d := range got {
		if d > 1 {
			t.Errorf("bar %d: a part's drawn width is %.2f px off its share, want within 1 px", i, d)
		}
	}
	if x := eval[bool](t, ctx, `window.__xss !== undefined`); x {
		t.Error("got script run from the hostile device name, want none")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#breakdown .bdlegend span').length`); n < 6 {
		t.Errorf("legend entries: got %d, want at least 6", n)
	}
}

// The page of many inputs draws every input's rows, each naming its input,
// and their total, with the merged JSON's figures.
func TestBreakdownBarsMany(t *testing.T) {
	one := bdFixture(t).Inputs[0]
	two := one
	one.Index, two.Index = 0, 1
	run := analysis.NewRun([]analysis.Input{one, two}, nil, true)
	page := string(writePage(t, run, Options{}))
	rows := bdRowRE.FindAllStringSubmatch(page, -1)
	if len(rows) != 5 {
		t.Fatalf("bars: got %d, want 2 inputs × 2 devices and the total", len(rows))
	}
	j := render.BuildBreakdown(run.Whole, run.Breakdown)
	if got := rows[4][2]; got != strconv.FormatInt(j.Total.WindowNS, 10) || j.Total.WindowNS != 2*(j.Devices[0].WindowNS+j.Devices[1].WindowNS) {
		t.Errorf("total bar: window %s, want the JSON total %d (the sum of the rows' windows)", got, j.Total.WindowNS)
	}
	for _, want := range []string{`data-input="0"`, `data-input="1"`, "input 2 · gpu0", "(sum of the rows' windows)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
