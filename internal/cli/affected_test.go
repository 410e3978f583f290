package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/testfile"
)

// trimmedTrace is a real trace as a tool that filters traces after
// recording leaves it: the same events, without Kineto's last "Record
// Window End" instant. Its only gap is truncated_input, whose size is
// unknown (nothing says what, if anything, was trimmed).
func trimmedTrace(t *testing.T) string {
	t.Helper()
	raw := testfile.Gunzip(t, "../../format/kineto/testdata/hta__cuda_event_sync.json.gz")
	marker := []byte(",\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": 1707417525512622\n  }")
	if !bytes.Contains(raw, marker) {
		t.Fatal("the sample's end marker moved: update the test")
	}
	return writeFile(t, t.TempDir(), "trimmed.json", string(bytes.Replace(raw, marker, nil, 1)))
}

// The gate, on real traces: --fail-if-affected 1 --accept
// truncated_input passes a trimmed trace whose only gap is that one,
// --fail-if-affected 1 alone fails it, and a trace missing 30% of its
// device time (HTA's sub-sampled rank: 32.9% known missing, trimmed too)
// fails both; --strict keeps failing on any gap.
func TestFailIfAffected(t *testing.T) {
	trimmed := trimmedTrace(t)
	missing := "../../format/kineto/testdata/hta__sampled_rank-0.json.gz"

	_, js, _ := tally("report", "--json", trimmed)
	var doc struct {
		Accounting struct {
			Gaps []struct {
				Kind string `json:"kind"`
			} `json:"gaps"`
		} `json:"accounting"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Accounting.Gaps) != 1 || doc.Accounting.Gaps[0].Kind != "truncated_input" {
		t.Fatalf("trimmed trace: gaps %+v (%v), want only truncated_input", doc.Accounting.Gaps, err)
	}
	for _, tc := range []struct {
		args []string
		code int
		why  string // on standard error
	}{
		{[]string{"--fail-if-affected", "1", "--accept", "truncated_input", trimmed}, 0, ""},
		{[]string{"--fail-if-affected", "1", trimmed}, 1, "truncated_input: how much it touches is unknown"},
		{[]string{"--strict", trimmed}, 1, ""},
		{[]string{"--fail-if-affected", "1", "--accept", "truncated_input", missing}, 1, "gaps touch 32.9% of device time, more than 1.0%"},
		{[]string{"--fail-if-affected", "1", missing}, 1, "gaps touch 32.9% of device time"},
		{[]string{"--fail-if-affected", "40", "--accept", "truncated_input", missing}, 0, ""},
	} {
		code, _, errOut := tally(append([]string{"report"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.why) {
			t.Errorf("tally report %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.why)
		}
	}
	// Usage errors: a kind that does not exist, --accept without the gate,
	// a percentage out of range.
	for _, args := range [][]string{
		{"--fail-if-affected", "1", "--accept", "truncated_inptu", trimmed},
		{"--accept", "truncated_input", trimmed},
		{"--fail-if-affected", "101", trimmed},
	} {
		if code, _, errOut := tally(append([]string{"report"}, args...)...); code != 2 || errOut == "" {
			t.Errorf("tally report %s: exit %d (%q), want a usage error", strings.Join(args, " "), code, errOut)
		}
	}
}

// The figure is in every output: the text verdict and each gap's line,
// the JSON accounting and gaps, the HTML page, the CSV gaps file and the
// diff header.
func TestAffectedInEveryOutput(t *testing.T) {
	qwen := "../../format/kineto/testdata/tracelens__h100_qwen1.5-0.5b.json.gz"
	_, out, _ := tally("report", qwen)
	want := "INCOMPLETE: 1 gap — 13.742 ms (30.1%) of device time in the tables, not fully attributed."
	if !strings.Contains(out, want) || !strings.Contains(out, "touches: 13.742 ms (30.1%) of device time in the tables, not fully attributed") {
		t.Errorf("text: want %q and the gap's touches line in\n%s", want, out)
	}
	_, js, _ := tally("report", "--json", qwen)
	var doc struct {
		Accounting struct {
			Affected struct {
				DeviceNs     int64    `json:"device_ns"`
				Unattributed int64    `json:"unattributed_device_ns"`
				Share        float64  `json:"share"`
				SizeKnown    bool     `json:"size_known"`
				Unknown      []string `json:"unknown"`
			} `json:"affected"`
			Gaps []struct {
				Kind     string `json:"kind"`
				Affected *struct {
					SizeKnown    bool  `json:"size_known"`
					Unattributed int64 `json:"unattributed_device_ns"`
				} `json:"affected"`
			} `json:"gaps"`
		} `json:"accounting"`
	}
	decodeJSON(t, js, &doc)
	a := doc.Accounting.Affected
	if a.Unattributed != 13741827 || !a.SizeKnown || len(a.Unknown) != 0 || a.Share < 0.300 || a.Share > 0.302 {
		t.Errorf("json accounting.affected = %+v, want 13741827 ns unattributed, share 0.301, size known", a)
	}
	if g := doc.Accounting.Gaps; len(g) != 1 || g[0].Affected == nil || g[0].Affected.Unattributed != a.Unattributed {
		t.Errorf("json gap = %+v, want its affected figure equal to the total", g)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	if code, _, errOut := tally("report", "--html", page, qwen); code != 0 {
		t.Fatalf("html: got exit %d (%s), want 0", code, errOut)
	}
	html := readFile(t, page)
	if !strings.Contains(html, "13.742 ms (30.1%) of device time in the tables, not fully attributed") {
		t.Error("html page: got no unattributed-time figure, want the 13.742 ms one")
	}
	csvOut := filepath.Join(dir, "d.csv")
	if code, _, errOut := tally("export", "--to", "csv", "-o", csvOut, qwen); code > 1 {
		t.Fatalf("export: got exit %d (%s), want 0 or 1", code, errOut)
	}
	gaps := readFile(t, csvOut+".gaps.csv")
	if !strings.Contains(gaps, "size_known,missing_device_time,unattributed_device_time,lost_dispatches,affected_basis") ||
		!strings.Contains(gaps, ",true,0,13741827,0,") {
		t.Errorf("csv gaps file: got\n%s\nwant the affected columns and 13741827 ns unattributed", gaps)
	}
	_, dout, _ := tally("diff", qwen, qwen)
	if !strings.Contains(dout, "the gaps touch: 13.742 ms (30.1%) of device time in the tables, not fully attributed") {
		t.Errorf("diff header: got\n%s\nwant the gaps to touch 13.742 ms (30.1%%) not fully attributed", dout)
	}
}
