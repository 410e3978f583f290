package htmlreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// xssName is a kernel name that runs script if any part of the page writes
// it as markup.
const xssName = `<img src=x onerror="window.__xss=1">`

type fixture struct {
	c  *capture.Capture
	t  *analysis.Tables
	tl *Timeline
}

// sampleCapture builds two programs on two ranks' queues: p1 with a hostile
// kernel name, an anonymous kernel and an unfinished dispatch; p2 untimed
// on a second clock-less path.
func sampleCapture() fixture {
	c := &capture.Capture{Source: capture.Source{Path: "run<1>.kept", Format: "test", Bytes: 2048},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns on a test clock"}}
	p1 := c.AddProgram(capture.Program{Name: "p1", Instances: 2})
	p2 := c.AddProgram(capture.Program{Name: "p2</script><script>window.__xss=2</script>", Instances: 1})
	q0 := c.AddQueue(capture.Queue{Name: "stream 7", Device: "gpu0", Rank: "0"})
	q1 := c.AddQueue(capture.Queue{Name: "stream 7", Device: "gpu1", Rank: "1"})
	mm := c.AddKernel(capture.Kernel{Program: p1, Name: "fam:matmul", Resolved: true, Category: "kernel"})
	bad := c.AddKernel(capture.Kernel{Program: p1, Name: xssName, Resolved: true, Category: "kernel"})
	anon := c.AddKernel(capture.Kernel{Program: p1, Name: "p1:#42", ID: 42, HasID: true, Category: "kernel"})
	other := c.AddKernel(capture.Kernel{Program: p2, Name: "copy", Resolved: true, Category: "memcpy"})
	in := c.Accounting.InputFor("lines")
	in.Read, in.Used = 12, 11
	in.Ignore("not a trace line", 1, "line 3")
	g := c.Accounting.Gap(capture.UnfinishedDispatch, "p1")
	g.Summary = "1 dispatch was launched and never finished <b>not bold</b>"
	g.Add(capture.Item{What: "launched", Program: "p1", Kernel: xssName, Time: capture.TimeOf(9000), LastCompleted: "fam:matmul"})
	f := fixture{c: c, tl: NewTimeline()}
	a := analysis.NewAggregator()
	sink := capture.Tee{a, f.tl}
	at := int64(0)
	for i := 0; i < 6; i++ {
		for _, k := range []capture.KernelID{mm, mm, bad, anon} {
			q := q0
			if i%2 == 1 {
				q = q1
			}
			d := int64(100 * (int(k) + 1))
			sink.Dispatch(c, &capture.Dispatch{Program: p1, Queue: q, Kernel: k, Device: capture.Interval{Begin: at, End: at + d, Valid: true}})
			at += d + 20
		}
	}
	sink.Dispatch(c, &capture.Dispatch{Program: p2, Queue: capture.NoQueue, Kernel: other})
	f.t = a.Tables(c)
	return f
}

// bigCapture has programs × kernels kernels with long-ish names, each run
// a few times.
func bigCapture(programs, kernels int) fixture {
	c := &capture.Capture{Source: capture.Source{Path: "big.json", Format: "test", Bytes: 1 << 30},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	q := c.AddQueue(capture.Queue{Name: "stream 1"})
	f := fixture{c: c, tl: NewTimeline()}
	a := analysis.NewAggregator()
	sink := capture.Tee{a, f.tl}
	at := int64(0)
	for p := 0; p < programs; p++ {
		pid := c.AddProgram(capture.Program{Name: fmt.Sprintf("ProfilerStep#%d", p), Instances: 1})
		for k := 0; k < kernels; k++ {
			kid := c.AddKernel(capture.Kernel{Program: pid, Name: fmt.Sprintf("void at::native::elementwise_kernel<128, 4, %d>(int, at::native::Op%d)", k, p), Resolved: true, Category: "kernel"})
			for r := 0; r < 3; r++ {
				d := int64(1000 + 37*k + r)
				sink.Dispatch(c, &capture.Dispatch{Program: pid, Queue: q, Kernel: kid, Device: capture.Interval{Begin: at, End: at + d, Valid: true}})
				at += d
			}
		}
	}
	f.t = a.Tables(c)
	return f
}

func (f fixture) page(t testing.TB) []byte {
	t.Helper()
	return writePage(t, oneInput(f.c, f.t), Options{Command: []string{"tally", "report", "--html", "out.html", "run<1>.kept"}, Timelines: []*Timeline{f.tl}})
}

// writePage is run's page with opt, which must write without error.
func writePage(t testing.TB, run *analysis.Run, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, run, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oneInput is the run of one read input: capture c and its tables.
func oneInput(c *capture.Capture, t *analysis.Tables) *analysis.Run {
	return analysis.NewRun([]analysis.Input{{Path: c.Source.Path, Capture: c, Tables: t}}, nil, false)
}

// noMarkup checks a page built from the hostile names above (xssName, p2's
// name, a path or an error with <b>): none reaches the page as markup, and
// the page holds only its own two script tags.
func noMarkup(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<img", "<b>", "window.__xss=2</script>", `onerror="`} {
		if strings.Contains(page, bad) {
			t.Errorf("got %q unescaped on the page, want it escaped", bad)
		}
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d <script tags, want the page's own 2", n)
	}
}
