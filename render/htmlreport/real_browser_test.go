package htmlreport

import (
	"fmt"
	"testing"

	"github.com/tallyprof/tally/capture"
	_ "github.com/tallyprof/tally/format/all"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/render"
)

// TestBrowserRealTraces renders real captures (an hrx trace cut by a device
// fault, a PyTorch profiler trace) and checks every program's bars and rows
// against the JSON report in the browser.
func TestBrowserRealTraces(t *testing.T) {
	for _, tc := range []struct{ name, path, manifests string }{
		{"hrx", "../../examples/decode-fault.kept", "../../examples/kernels"},
		{"kineto", "../../selftest/traces/hta__cuda_event_sync.json.gz", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := NewTimeline()
			opt := inputs.Options{Sink: func(int, string) capture.Sink { return tl }}
			if tc.manifests != "" {
				opt.Reader.Manifests = []string{tc.manifests}
			}
			run := inputs.Paths(tc.path).Read(opt)
			if err := run.Err(); err != nil {
				t.Fatal(err)
			}
			res := &run.Inputs[0]
			ctx := openPage(t, writePage(t, run, Options{Command: []string{"tally", "report", tc.path}, Timelines: []*Timeline{tl}}))
			doc := render.BuildJSON(res.Capture, res.Tables)
			verdict := "incomplete"
			if doc.Accounting.Complete {
				verdict = "complete"
			}
			if v := eval[string](t, ctx, `document.querySelector("#verdict").dataset.verdict`); v != verdict {
				t.Fatalf("got verdict %q, want %q (JSON complete=%v)", v, verdict, doc.Accounting.Complete)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#accounting .gap").length`); n != len(doc.Accounting.Gaps) {
				t.Fatalf("got %d gaps shown, want %d as in the JSON", n, len(doc.Accounting.Gaps))
			}
			for i, p := range doc.Programs {
				got := eval[[]string](t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll("#program-%d .bar:not(.others)")).map(e => e.dataset.kernel + "=" + e.dataset.total)`, i))
				var want []string
				for _, k := range p.Kernels {
					tot, _ := kernelTotal(&k)
					if tot != nil && len(want) < chartBars {
						want = append(want, fmt.Sprintf("%s=%d", k.Name, *tot))
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("program %s bars %q, JSON %q", p.Name, got, want)
				}
				rows := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll("#program-%d tbody tr").length`, i))
				if want := min(len(p.Kernels), 100); rows != want {
					t.Errorf("program %s: %d rows, want %d", p.Name, rows, want)
				}
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .strip rect[data-k]").length`); n != len(tl.samples) {
				t.Errorf("got %d timeline rectangles, want %d (the dispatches sampled)", n, len(tl.samples))
			}
			screenshot(t, ctx, tc.name+".png")
		})
	}
}
