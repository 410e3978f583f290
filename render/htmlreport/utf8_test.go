package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// A kernel name that is not UTF-8 (a trace's raw bytes) reaches the page
// as the text report shows it, each invalid byte as \xff (escape.go): the
// page, which declares UTF-8, stays UTF-8.
func TestPageIsUTF8(t *testing.T) {
	const name = "bad\xff\xfeutf8"
	c := &capture.Capture{Source: capture.Source{Path: "run\xc3.json", Format: "test"},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "p\xe2\x82", Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: p, Name: name, Resolved: true, Category: "kernel"})
	a := analysis.NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Device: capture.Interval{Begin: 0, End: 10, Valid: true}})
	page := writePage(t, oneInput(c, a.Tables(c)), Options{})
	if !utf8.Valid(page) {
		i := bytes.IndexFunc(page, func(r rune) bool { return r == utf8.RuneError })
		t.Fatalf("page is not UTF-8: got …%q…, want each invalid byte escaped", page[max(0, i-40):min(len(page), i+20)])
	}
	for _, want := range []string{`bad\xff\xfeutf8`, `p\xe2\x82`, `run\xc3.json`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q, want each name with its invalid bytes escaped, as the text report shows them", want)
		}
	}
	if bytes.ContainsRune(page, utf8.RuneError) {
		t.Error("got U+FFFD on the page, want each invalid byte escaped")
	}
}

// The writer keeps a rune cut between two writes whole, and makes each
// invalid byte one U+FFFD wherever the writes split the text.
func TestUTF8WriterSplits(t *testing.T) {
	const in = "a€b\xffc\xe2\x82d€\xe2"
	want := strings.ToValidUTF8("a€b", "") + "\ufffd" + "c\ufffd\ufffdd€\ufffd"
	for step := 1; step <= len(in); step++ {
		var b bytes.Buffer
		u := &utf8Writer{w: &b}
		for i := 0; i < len(in); i += step {
			chunk := in[i:min(i+step, len(in))]
			if n, err := u.Write([]byte(chunk)); n != len(chunk) || err != nil {
				t.Fatalf("step %d: Write = %d, %v; want %d, nil", step, n, err, len(chunk))
			}
		}
		if err := u.close(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != want {
			t.Errorf("writes of %d bytes: got %q, want %q", step, got, want)
		}
	}
}
