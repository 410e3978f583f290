package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const nsysSample = "../../format/nsys/testdata/h100_2gpu_1s.sqlite"

// TestReportOrderAndNames: --order input keeps the input's order, --names
// full prints names whole; wrong values are usage errors.
func TestReportOrderAndNames(t *testing.T) {
	_, out, _ := tally("report", "--manifests", kernels, example)
	if i, j := strings.Index(out, "program p41:"), strings.Index(out, "program p96:"); i < 0 || j < i {
		t.Fatalf("default: got p96 (3.4 ms) before p41 (6.0 ms), want the costliest first:\n%s", out)
	}
	_, out, _ = tally("report", "--order", "input", "--manifests", kernels, example)
	if i, j := strings.Index(out, "program p41:"), strings.Index(out, "program p96:"); j < 0 || i < j {
		t.Fatalf("--order input: got p41 before p96, want input order:\n%s", out)
	}
	const long = "loom_libs:ggml_flash_attention_decode_split_f32_f16_wmma_next_q8"
	if strings.Contains(out, "  "+long+"\n") {
		t.Fatalf("default names: got %s whole on a row past 120 columns, want it shortened", long)
	}
	_, out, _ = tally("report", "--names", "full", "--manifests", kernels, example)
	if !strings.Contains(out, "  "+long+"\n") {
		t.Fatalf("--names full: got no whole %s, want it:\n%s", long, out)
	}
	for _, args := range [][]string{{"--order", "size"}, {"--names", "long"}} {
		code, _, errOut := tally(append(append([]string{"report"}, args...), example)...)
		if code != 2 || !strings.Contains(errOut, "\""+args[1]+"\" for flag -"+args[0][2:]) {
			t.Errorf("%v: got exit %d, %q; want exit 2 naming the value", args, code, errOut)
		}
	}
}

// TestNsysFirstScreen: on the real nsys sample (63 programs, names up to
// 1,000 characters) every table keeps to 120 columns, the summary leads
// with the costliest program, and JSON keeps the full names.
func TestNsysFirstScreen(t *testing.T) {
	out := tallyOK(t, "report", nsysSample)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "    - ") && !strings.HasPrefix(line, "    touches:") && utf8.RuneCountInString(line) > 120 {
			t.Errorf("got a %d-column table line, want ≤ 120: %q", utf8.RuneCountInString(line), line)
		}
	}
	summary := out[strings.Index(out, "programs by device time"):]
	if first := strings.SplitN(summary, "\n", 4)[2]; !strings.HasSuffix(first, "(no NVTX range)") {
		t.Errorf("got summary row %q first, want (no NVTX range), the costliest", first)
	}
	if strings.Contains(out, "void at::native::") {
		t.Errorf("text: got demangled names whole, want short names")
	}
	_, js, _ := tally("report", "--json", nsysSample)
	var doc struct {
		Programs []struct {
			Kernels []struct{ Name string }
		}
	}
	decodeJSON(t, js, &doc)
	full := false
	for _, p := range doc.Programs {
		for _, k := range p.Kernels {
			full = full || strings.HasPrefix(k.Name, "void at::native::")
		}
	}
	if !full {
		t.Errorf("JSON: got no full demangled name, want every name whole")
	}
}

// TestNsysSplitByDevice: the 2-GPU nsys sample has one program per GPU of
// each NVTX range by default; --program-by annotation merges them, device
// makes one per GPU. Totals are the same every way.
func TestNsysSplitByDevice(t *testing.T) {
	type prog struct {
		Name       string
		Instances  int64
		Dispatches int64
		TotalNS    *int64 `json:"total_ns"`
	}
	read := func(by string) map[string]prog {
		t.Helper()
		code, js, errOut := tally("report", "--json", "--program-by", by, nsysSample)
		if code != 1 && code != 0 {
			t.Fatalf("--program-by %s: got exit %d: %s, want 0 or 1", by, code, errOut)
		}
		var doc struct{ Programs []prog }
		decodeJSON(t, js, &doc)
		out := map[string]prog{}
		for _, p := range doc.Programs {
			out[p.Name] = p
		}
		return out
	}
	sum := func(ps map[string]prog) (n, ns int64) {
		for _, p := range ps {
			n += p.Dispatches
			if p.TotalNS != nil {
				ns += *p.TotalNS
			}
		}
		return n, ns
	}
	auto, merged, dev := read("auto"), read("annotation"), read("device")
	if len(auto) != 2*len(merged) {
		t.Errorf("auto: got %d programs, want %d (each of the %d ranges on both GPUs)", len(auto), 2*len(merged), len(merged))
	}
	m, g0, g1 := merged["aten::linear"], auto["GPU 0 · aten::linear"], auto["GPU 1 · aten::linear"]
	if m.Dispatches == 0 || g0.Dispatches+g1.Dispatches != m.Dispatches || g0.Instances+g1.Instances != m.Instances {
		t.Errorf("aten::linear: got GPU 0 %+v + GPU 1 %+v, want the merged %+v split", g0, g1, m)
	}
	for name := range auto {
		if !strings.HasPrefix(name, "GPU 0 · ") && !strings.HasPrefix(name, "GPU 1 · ") {
			t.Errorf("auto: got program %q, want it named after its GPU (\"GPU 0 · \" or \"GPU 1 · \")", name)
		}
	}
	if len(dev) != 2 || dev["GPU 0"].Dispatches == 0 || dev["GPU 1"].Dispatches == 0 {
		t.Errorf("device: got %v, want GPU 0 and GPU 1", dev)
	}
	an, ans := sum(auto)
	for by, ps := range map[string]map[string]prog{"annotation": merged, "device": dev} {
		if n, ns := sum(ps); n != an || ns != ans {
			t.Errorf("%s: got %d dispatches, %d ns; want auto's %d, %d", by, n, ns, an, ans)
		}
	}
}

// TestLegendOncePerReport: a report of several inputs states the columns'
// legend once, not once per section.
func TestLegendOncePerReport(t *testing.T) {
	_, out, _ := tally("report", "../../format/kineto/testdata/hta__sampled_rank-0.json.gz", "../../format/kineto/testdata/hta__sampled_rank-1.json.gz")
	if n := strings.Count(out, "\ncolumns: "); n != 1 || !strings.Contains(out, "launch mean: time in the host enqueue call") {
		t.Fatalf("got the legend %d times, want once:\n%s", n, out)
	}
	if i, j := strings.Index(out, "\ncolumns: "), strings.Index(out, "\nprogram "); i > j {
		t.Errorf("got the legend after the first table, want it before")
	}
}
