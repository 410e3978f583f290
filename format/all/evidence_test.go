package all

import (
	"errors"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/hrxserial"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/format/npuprof"
)

// noEvidence are inputs that hold no magic, header or line of any format
// tally reads: text, binary data, JSON, CSV and SQLite of other shapes.
func noEvidence(t *testing.T) map[string][]byte {
	t.Helper()
	rnd := rand.New(rand.NewSource(7))
	random := make([]byte, 80<<10)
	rnd.Read(random)
	short := make([]byte, 300)
	rnd.Read(short)
	return map[string][]byte{
		"hello":      []byte("hello\nworld\n"),
		"readme":     []byte("# tally\n\nA profiler. Run `tally report FILE`.\n\n- one\n- two\n"),
		"llama log":  []byte("llama_model_load: loaded meta data with 24 key-value pairs\nmain: build = 4123 (hrx)\nsystem_info: n_threads = 16\n"),
		"other log":  []byte("[info] server started on :8080\n[prof] request took 3 ms\n[L] level set\n[mla] ok\n"),
		"csv":        []byte("name,age,city\nbob,31,Oslo\nann,29,Lima\n"),
		"tsv":        []byte("kernel\tms\nmatmul\t3.2\n"),
		"json":       []byte(`{"name": "x", "values": [1, 2, 3], "nested": {"a": true}}`),
		"json array": []byte(`[{"id": 1}, {"id": 2}]`),
		"jsonl":      []byte("{\"type\": \"log\", \"msg\": \"hi\"}\n{\"type\": \"log\", \"msg\": \"bye\"}\n"),
		"random":     random,
		"short rand": short,
		"nul":        {0},
		"sqlite":     otherSQLite(t),
	}
}

// otherSQLite is a real SQLite database of another program's schema.
func otherSQLite(t *testing.T) []byte {
	t.Helper()
	p := fixture.SQLite(t, filepath.Join(t.TempDir(), "other.db"),
		`CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT, visits INTEGER)`, `INSERT INTO urls (url, visits) VALUES ('https://example.org', 3)`)
	return fixture.Read(t, p)
}

// No reader claims an input without evidence of its format: every
// registered sniffer says No, so a new reader cannot add a catch-all, and
// reading it without --format is refused with the formats listed (never a
// reader's empty capture with advice for a format it is not).
func TestNoCatchAllSniffer(t *testing.T) {
	inputs := noEvidence(t)
	for _, f := range format.Formats() {
		for name, data := range inputs {
			if got := f.Sniff(data); got != format.No {
				t.Errorf("%s sniffs %q as %v, want No: a reader claims a file only on evidence of its format", f.Name, name, got)
			}
		}
	}
	for name, data := range inputs {
		c, err := format.ReadInput(format.BytesInput(name, data), "", nil, nil)
		var fe *format.Error
		if !errors.As(err, &fe) || !errors.Is(err, format.ErrUnknownFormat) {
			t.Errorf("%s: got %v, %+v, want an *Error wrapping ErrUnknownFormat", name, err, c)
			continue
		}
		msg := err.Error()
		for _, want := range []string{"no reader recognises it", format.Names(), "--format NAME"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: got %q, want it to contain %q", name, msg, want)
			}
		}
		if strings.Contains(msg, "GGML_HRX") {
			t.Errorf("%s: got hrx advice for a file that is not hrx: %q, want none", name, msg)
		}
	}
	// A directory of such files is no run directory.
	dir := t.TempDir()
	for name, data := range inputs {
		fixture.Write(t, dir, strings.ReplaceAll(name, " ", "_"), data)
	}
	if f, conf := format.DetectDir(dir); conf != format.No {
		t.Errorf("a directory of foreign files: %s sniffs it as %v, want No", f.Name, conf)
	}
}

// The case of the NPU windowed profiler: a run stalled before its first
// window, its [L] lines unindented, an [mla] line, no [prof] line. It is
// npu-prof's, which says no window completed; it is not hrx's.
func TestStalledNPULogIsNotHrx(t *testing.T) {
	const path = "../npuprof/testdata/stall-unindented.log"
	head := fixture.Read(t, path)
	if got := hrxserial.Sniff(head); got != format.No {
		t.Errorf("hrx-serial sniffs the stalled NPU log as %v, want No", got)
	}
	c, err := format.ReadFile(path, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Accounting.Find(capture.EmptyCapture)
	if c.Source.Format != npuprof.Name || g == nil || !strings.HasPrefix(g.Summary, npuprof.StallSummary) {
		t.Fatalf("got %s with %+v, want npu-prof stating the stall", c.Source.Format, c.Accounting.Gaps)
	}
	if strings.Contains(g.Summary, "GGML_HRX") {
		t.Fatalf("got hrx advice for an NPU log: %s, want none", g.Summary)
	}
}

// hrx-serial's own evidence: its empty-capture advice stays for files that
// are hrx's — a kept trace whose command printed no trace line, and hrx
// lines that are not trace lines (a sync failure) — and a kept trace's
// report does not tell its reader to record with tally record.
func TestHrxEvidenceWithoutDispatch(t *testing.T) {
	for name, data := range map[string]string{
		"kept":  "# tally kept trace v1 clock=monotonic unit=ns pid=7 cmd=\"/bin/false\"\n",
		"fault": "loading\nHRX debug serial sync failed phase=command-post-dispatch status=HSA_STATUS_ERROR_EXCEPTION\n",
	} {
		c, err := format.ReadInput(format.BytesInput(name, []byte(data)), "", nil, nil)
		if err != nil {
			t.Fatalf("%s: got error %v, want none", name, err)
		}
		g := c.Accounting.Find(capture.EmptyCapture)
		if c.Source.Format != hrxserial.Name || g == nil || !strings.Contains(g.Summary, "GGML_HRX_DEBUG_SERIAL_EXECUTION=1") {
			t.Fatalf("%s: got %s with %+v, want hrx-serial's empty capture and its advice", name, c.Source.Format, c.Accounting.Gaps)
		}
		if name == "kept" && (!strings.Contains(g.Summary, `command "/bin/false" printed no 'hrx debug serial:' trace line`) ||
			strings.Contains(g.Summary+c.Clock.Description, "tally record") || strings.Contains(g.Summary, "stderr")) {
			t.Fatalf("kept trace without trace lines: got %q / %q, want the command named and no advice to record", g.Summary, c.Clock.Description)
		}
	}
}
