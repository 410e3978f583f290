package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Kineto (PyTorch profiler) traces, in the current spelling (relative µs
// and baseTimeNanoseconds, plain .json) and in the 2021 one (absolute µs,
// "Kernel"/"Runtime", tid "stream 7", gzip-compressed as torch writes it).
// A record is one trace event; the document's closing and the "Record
// Window End" instant Kineto writes last are its end markers.

// kinetoTrace is a trace of three launched kernels.
type kinetoTrace struct {
	old bool // the 2021 spelling
	// kernels are (correlation, ts µs, dur µs) as written.
	kernels [][3]string
}

func newKinetoTrace(old bool) *kinetoTrace {
	t := &kinetoTrace{old: old}
	base := "1428625731"
	if old {
		base = "1623142623531"
	}
	for i, k := range []struct{ ts, dur string }{{"100", "5"}, {"200", "7"}, {"300", "9"}} {
		t.kernels = append(t.kernels, [3]string{fmt.Sprint(i + 1), base + k.ts, k.dur})
	}
	return t
}

func (t *kinetoTrace) call(corr, ts string) string {
	if t.old {
		return fmt.Sprintf(`{"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": %s, "dur": 3, "args": {"cbid": 211, "correlation": %s}}`, ts, corr)
	}
	return fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": 25738, "ts": %s.000, "dur": 3.000, "args": {"cbid": 211, "correlation": %s}}`, ts, corr)
}

func (t *kinetoTrace) kernel(name, corr, ts, dur string) string {
	if t.old {
		return fmt.Sprintf(`{"ph": "X", "cat": "Kernel", "name": %q, "pid": 0, "tid": "stream 7", "ts": %s, "dur": %s, "args": {"device": 0, "stream": 7, "correlation": %s}}`, name, ts, dur, corr)
	}
	return fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 7, "ts": %s.250, "dur": %s.500, "args": {"device": 0, "stream": 7, "correlation": %s}}`, name, ts, dur, corr)
}

// events are the trace's events; edit changes kernel i's event (nil: as
// written), and repeat writes kernel i's event twice.
func (t *kinetoTrace) events(edit func(i int, ev string) string, repeat int) []string {
	var evs []string
	for i, k := range t.kernels {
		ev := t.kernel(fmt.Sprintf("kernel_%d", i), k[0], k[1], k[2])
		if edit != nil {
			ev = edit(i, ev)
		}
		evs = append(evs, t.call(k[0], k[1][:len(k[1])-1]+"0"), ev)
		if i == repeat {
			evs = append(evs, ev)
		}
	}
	return append(evs, `{"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 0}`)
}

// doc is the whole document; cut ends it after the last event before the
// end marker (at a record boundary, the closing never written).
func (t *kinetoTrace) doc(evs []string, cut bool) string {
	var b strings.Builder
	b.WriteString(`{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],` + "\n" + `"traceEvents": [` + "\n")
	for i, ev := range evs {
		if cut && i == len(evs)-1 {
			return b.String()
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(ev)
	}
	b.WriteString("\n]")
	if !t.old {
		b.WriteString(`, "baseTimeNanoseconds": 1751410836000000000`)
	}
	b.WriteString("}\n")
	return b.String()
}

func (t *kinetoTrace) write(tb *testing.T, dir, doc string) string {
	tb.Helper()
	name, data := "trace.json", []byte(doc)
	if t.old {
		name, data = "rank0.pt.trace.json.gz", fixture.Gzip(tb, data)
	}
	return fixture.Write(tb, dir, name, data)
}

func kinetoFixture(variant string, old bool) promiseFixture {
	tr := newKinetoTrace(old)
	write := func(edit func(int, string) string, repeat int, cut bool) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string { return tr.write(t, dir, tr.doc(tr.events(edit, repeat), cut)) }
	}
	return promiseFixture{
		variant: variant,
		base:    write(nil, -1, false),
		// Kernel 1 without its "dur": a device event with no usable time.
		unreadable: write(func(i int, ev string) string {
			if i != 1 {
				return ev
			}
			j := strings.Index(ev, `"dur": `)
			k := strings.Index(ev[j:], ", ")
			return ev[:j] + ev[j+k+2:]
		}, -1, false),
		// Kernel 1 lasting 9.2e12 µs (2.5 h): past the one-hour ceiling.
		impossible: write(func(i int, ev string) string {
			if i != 1 {
				return ev
			}
			return strings.Replace(ev, `"dur": `+tr.kernels[1][2], `"dur": 9200000000`, 1)
		}, -1, false),
		// Kernel 1's event written twice: identical stream, start,
		// duration, name and correlation.
		repeated:   write(nil, 1, false),
		repeatKind: capture.DuplicateEvent,
		cut:        write(nil, -1, true),
		endMarker:  true,
		// Records are the trace events: launches, kernels, the window end.
		records: picked(func() []string { return tr.events(nil, -1) }, func(t *testing.T, dir string, evs []string) string {
			return tr.write(t, dir, tr.doc(evs, false))
		}),
	}
}

func init() {
	promiseFixtures["kineto"] = append(promiseFixtures["kineto"],
		kinetoFixture("json", false),
		kinetoFixture("2021-gz", true))
}
