package kineto

import (
	"bytes"
	"compress/gzip"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/testfile"
)

// hugeNameTrace gzips a trace whose one launched kernel has a name of n
// bytes, streaming it so the test itself never holds the name.
func hugeNameTrace(t *testing.T, n int) []byte {
	t.Helper()
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	io.WriteString(zw, `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}], "traceEvents": [`+
		call("cudaLaunchKernel", "1", "10", "2")+",\n"+
		`{"ph": "X", "cat": "kernel", "name": "`)
	chunk := []byte(strings.Repeat("huge_kernel_", 1<<12))
	for left := n; left > 0; left -= len(chunk) {
		zw.Write(chunk[:min(left, len(chunk))])
	}
	io.WriteString(zw, `", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}},`+"\n"+endMarker+"]}\n")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return gz.Bytes()
}

// A 64 MiB kernel name (a 300 KB gzip) is read in bounded memory: the
// scanner keeps capture.MaxName bytes of it, streams the rest, and the
// capture states the cut in its long_name note.
func TestHugeNameBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 64 MiB name")
	}
	const n = 64 << 20
	gz := hugeNameTrace(t, n)
	read := func() *capture.Capture {
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		c, err := readFrom(zr, "huge.json", &format.Options{}, nil, defaultConfig)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	read() // warm: first-use allocations are not the name's
	var c *capture.Capture
	got := testfile.Allocated(func() { c = read() })
	if got > 16<<20 {
		t.Errorf("reading a %d-byte name allocated %d bytes, want under 16 MiB (bounded by the buffer and capture.MaxName)", n, got)
	}
	t.Logf("reading a %d-byte name allocated %d bytes", n, got)
	if len(c.Kernels) != 1 {
		t.Fatalf("%d kernels, want 1", len(c.Kernels))
	}
	name := c.Kernels[0].Name
	marker := "…[truncated from " + strconv.Itoa(n) + " bytes]"
	if len(name) > capture.MaxName || !strings.HasPrefix(name, "huge_kernel_huge_kernel_") || !strings.HasSuffix(name, marker) {
		t.Errorf("kernel name of %d bytes ending %q, want at most %d bytes: the name's head then %q", len(name), name[max(0, len(name)-50):], capture.MaxName, marker)
	}
	g := c.Accounting.Find(capture.LongName)
	if g == nil || g.Count != 1 || !g.Note {
		t.Fatalf("long_name gap %+v, want a note counting 1 name", g)
	}
	if v, _ := g.Figure("longest_bytes"); v != n {
		t.Errorf("longest_bytes = %d, want %d", v, n)
	}
	if !c.Accounting.Complete() {
		t.Errorf("a cut name made the capture incomplete: gaps %s, want complete", gapKinds(c))
	}
}

// The cut never splits an escape or a UTF-8 sequence, whatever the buffer
// size: a cut name decodes to the input's own characters (no U+FFFD, so no
// invalid-name gap), and tiny and large buffers agree (readOpts).
func TestLongNameCutKeepsCharactersWhole(t *testing.T) {
	for _, unit := range []string{`\u00e9`, `\ud83d\ude00`, `\"q`, "é", "😀", `\\`, "a"} {
		// Offsets 0–11 move the cut across every position of the units.
		for shift := 0; shift < 12; shift++ {
			name := strings.Repeat("x", shift) + strings.Repeat(unit, capture.MaxName/len(unit)+20)
			r := readT(t, trace([]string{call("cudaLaunchKernel", "1", "10", "2"), kernelRaw(name, "1", "20", "3")}))
			k := r.c.Kernels[r.disp[0].Kernel].Name
			if !utf8.ValidString(k) || strings.ContainsRune(k, utf8.RuneError) {
				t.Fatalf("unit %q shift %d: got cut name …%q, want clean UTF-8", unit, shift, k[max(0, len(k)-60):])
			}
			if len(k) > capture.MaxName {
				t.Fatalf("unit %q shift %d: cut name is %d bytes, want at most %d", unit, shift, len(k), capture.MaxName)
			}
			if want := "…[truncated from " + strconv.Itoa(len(name)) + " bytes]"; !strings.HasSuffix(k, want) {
				t.Fatalf("unit %q shift %d: name ends %q, want %q", unit, shift, k[max(0, len(k)-60):], want)
			}
			if !r.c.Accounting.Complete() || r.c.Accounting.CountOf(capture.LongName) != 1 {
				t.Fatalf("unit %q shift %d: gaps %s, want only the long_name note", unit, shift, gapKinds(r.c))
			}
		}
	}
}

// kernelRaw is kernel with the name written as raw JSON string content.
func kernelRaw(raw string, corr, ts, dur string) string {
	return `{"ph": "X", "cat": "kernel", "name": "` + raw + `", "pid": 0, "tid": 7, "ts": ` + ts + `, "dur": ` + dur +
		`, "args": {"device": 0, "stream": 7, "correlation": ` + corr + `}}`
}

// Every string the scanner keeps is cut: a long key, category, log line;
// and a file cut inside a long string is a truncation, as a short one is.
func TestLongStringsElsewhere(t *testing.T) {
	long := strings.Repeat("z", capture.MaxName+100)
	data := trace([]string{
		call("cudaLaunchKernel", "1", "10", "2"),
		kernel("k", "1", "20", "3"),
		`{"ph": "X", "cat": "` + long + `", "name": "n", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "` + long + `": 1}`,
	}, `"WARNING": ["`+long+`"]`)
	r := readT(t, data)
	if got := r.c.Accounting.CountOf(capture.LongName); got != 3 {
		t.Errorf("long_name counts %d strings, want 3 (a category, a key, a log line); gaps %s", got, gapKinds(r.c))
	}
	for _, g := range r.c.Accounting.Gaps {
		for _, it := range g.Items {
			if len(it.What) > capture.MaxName {
				t.Errorf("gap %s item of %d bytes, want at most %d", g.Kind, len(it.What), capture.MaxName)
			}
		}
	}

	cut := `{"schemaVersion": 1, "traceEvents": [` + call("cudaLaunchKernel", "1", "10", "2") + `, {"ph": "X", "cat": "kernel", "name": "` + long
	r = readT(t, cut)
	if r.c.Accounting.CountOf(capture.TruncatedInput) != 1 {
		t.Errorf("a file cut inside a long name: gaps %s, want truncated_input", gapKinds(r.c))
	}
}

// gapKinds lists the gaps' kinds and counts (gapText would print the
// long names whole).
func gapKinds(c *capture.Capture) string {
	var b strings.Builder
	for _, g := range c.Accounting.Gaps {
		b.WriteString(" " + string(g.Kind) + "=" + strconv.FormatInt(g.Count, 10))
	}
	return b.String()
}
