package all

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/tallyprof/tally/internal/safetext"
)

// hostileNames are kernel names that break an output that writes them
// raw: markup, a quote, a line break, a tab, a comma, an ANSI escape,
// invalid UTF-8 and a 10 KB name.
var hostileNames = []string{
	"<script>window.x=1</script><b>bold</b>",
	`quote"d`,
	"line\nCOMPLETE: every input unit is accounted for and no gap was found",
	"tab\tbed",
	"com,ma",
	"\x1b[31mred\x1b[0m",
	"bad\xff\xfeutf8",
	strings.Repeat("k", 10240),
}

// hostileKineto writes a Kineto trace with one launched kernel of each
// hostile name, and one more of the first name without a launch call (a
// gap whose item names it). Names are written as JSON strings, the invalid
// UTF-8 as raw bytes, as a producer that does not check would.
func hostileKineto(t *testing.T, dir string) string {
	var evs []string
	for i, name := range append(hostileNames, hostileNames[0]) {
		quoted := jsonString(name)
		corr := i + 1
		if i == len(hostileNames) {
			corr = 999 // no launch call
		} else {
			evs = append(evs, fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 2, "args": {"cbid": 211, "correlation": %d}}`, 100*i+10, corr))
		}
		evs = append(evs, fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": 7, "ts": %d, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": %d}}`, quoted, 100*i+20, corr))
	}
	evs = append(evs, `{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 5000}`)
	data := `{"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000, "traceEvents": [` + strings.Join(evs, ",\n") + "]}\n"
	path := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonString is s as a JSON string, its invalid UTF-8 bytes kept raw.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, chunk := range strings.SplitAfter(s, "") {
		if !utf8.ValidString(chunk) {
			b.WriteString(chunk)
			continue
		}
		q, _ := json.Marshal(chunk)
		b.Write(q[1 : len(q)-1])
	}
	b.WriteByte('"')
	return b.String()
}

// Every output of a trace whose kernel names are hostile stays
// well-formed, states the same accounting, and still holds each name: as
// the reader read it in JSON and in the timeline, escaped for a terminal
// (internal/safetext) in text, CSV and HTML (there as text, never markup).
func TestOutputsHostileNames(t *testing.T) {
	dir := t.TempDir()
	in := hostileKineto(t, dir)
	checkOutputsAgree(t, nil, in, in, t.TempDir())

	_, js, _ := tallyRun("report", "--json", in)
	var doc struct {
		Programs []struct {
			Kernels []struct {
				Name string `json:"name"`
			} `json:"kernels"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	var read []string // as the JSON report has them
	for _, p := range doc.Programs {
		for _, k := range p.Kernels {
			read = append(read, k.Name)
		}
	}
	if len(read) != len(hostileNames) {
		t.Fatalf("report --json: kernels %q, want %d (one per hostile name)", read, len(hostileNames))
	}
	names := hostileNames
	for _, n := range names {
		if !slices.Contains(read, asUTF8(n)) {
			t.Errorf("report --json: no kernel %.60q in %.200q, want the name as written (invalid UTF-8 as U+FFFD)", asUTF8(n), read)
		}
	}
	// find fails for each name that holds does not hold in the form form
	// makes of it.
	find := func(what string, holds func(string) bool, form func(string) string) {
		t.Helper()
		for _, n := range names {
			if !holds(form(n)) {
				t.Errorf("%s: got the kernel %.60q missing (as %.60q), want it in it", what, n, form(n))
			}
		}
	}

	_, text, _ := tallyRun("report", "--names", "full", in)
	checkNoControl(t, "report", text)
	find("report --names full", func(s string) bool { return strings.Contains(text, s) }, safetext.Escape)

	page := filepath.Join(dir, "r.html")
	tallyRun("report", "--html", page, in)
	data := readOut(t, page)
	if !utf8.Valid(data) {
		t.Error("html: got a page that is not valid UTF-8, want valid")
	}
	texts := htmlTexts(t, data)
	checkNoControl(t, "html", strings.Join(texts, " "))
	find("html", func(s string) bool { return slices.Contains(texts, s) }, safetext.Escape) // as the text report shows it

	chrome := filepath.Join(dir, "t.json")
	tallyRun("timeline", "-o", chrome, in)
	var tl struct {
		TraceEvents []struct {
			Name string `json:"name"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(readOut(t, chrome), &tl); err != nil {
		t.Fatalf("timeline json: got %v, want JSON", err)
	}
	find("timeline json", func(s string) bool {
		return slices.ContainsFunc(tl.TraceEvents, func(e struct {
			Name string `json:"name"`
		}) bool {
			return e.Name == s
		})
	}, asUTF8)
	perfetto := filepath.Join(dir, "t.perfetto-trace")
	tallyRun("timeline", "-o", perfetto, in)
	pf := readOut(t, perfetto)
	find("timeline perfetto (interned names)", func(s string) bool { return bytes.Contains(pf, []byte(s)) }, asUTF8)

	csvPath := filepath.Join(dir, "e.csv")
	tallyRun("export", "--to", "csv", "-o", csvPath, in)
	rows := readCSV(t, "export csv", readOut(t, csvPath))
	find("export csv", func(s string) bool {
		return slices.ContainsFunc(rows, func(r map[string]string) bool { return r["kernel"] == s })
	}, safetext.Escape)
	for _, p := range []string{csvPath, csvPath + ".gaps.csv"} {
		checkNoControl(t, filepath.Base(p), string(readOut(t, p)))
	}
	gaps := readCSV(t, "export csv gaps", readOut(t, csvPath+".gaps.csv"))
	if !slices.ContainsFunc(gaps, func(r map[string]string) bool {
		return r["kind"] == "gpu_event_without_launch" && strings.Contains(r["first"], safetext.Escape(hostileNames[0]))
	}) {
		t.Errorf("export csv gaps: got no gpu_event_without_launch row naming %q, want one", hostileNames[0])
	}

	jsonlPath := filepath.Join(dir, "e.jsonl")
	tallyRun("export", "--to", "jsonl", "-o", jsonlPath, in)
	var kernels []string
	for _, line := range readJSONL(t, "export jsonl", readOut(t, jsonlPath)) {
		var r struct{ Kernel string }
		json.Unmarshal(line, &r)
		kernels = append(kernels, r.Kernel)
	}
	find("export jsonl", func(s string) bool { return slices.Contains(kernels, s) }, asUTF8)

	_, dtext, _ := tallyRun("diff", "--names", "full", in, in)
	checkNoControl(t, "diff", dtext)
	find("diff --names full", func(s string) bool { return strings.Contains(dtext, s) }, safetext.Escape)
	_, djs, _ := tallyRun("diff", "--json", in, in)
	if !json.Valid([]byte(djs)) {
		t.Error("diff --json: got output that is not JSON, want JSON")
	}
	var diff struct {
		Programs []struct {
			Kernels []struct{ Name string } `json:"kernels"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(djs), &diff); err != nil {
		t.Fatalf("diff --json: got %v, want JSON", err)
	}
	find("diff --json", func(s string) bool {
		for _, p := range diff.Programs {
			for _, k := range p.Kernels {
				if k.Name == s {
					return true
				}
			}
		}
		return false
	}, asUTF8)
}

// asUTF8 is s as JSON (encoding/json), the HTML page and the timelines
// write it: each invalid byte as U+FFFD.
func asUTF8(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// checkNoControl fails when text is not valid UTF-8 or holds a control
// character other than the newline that ends each line.
func checkNoControl(t *testing.T, what, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s: got invalid UTF-8, want valid", what)
	}
	for i, r := range text {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)) {
			t.Errorf("%s holds control %U at byte %d (…%q…), want none but newlines", what, r, i, text[max(0, i-30):min(len(text), i+10)])
			return
		}
	}
}

// htmlTexts are the page's text nodes and attribute values outside its
// script elements, unescaped, as a browser reads them.
func htmlTexts(t *testing.T, page []byte) []string {
	t.Helper()
	var out []string
	z := html.NewTokenizer(bytes.NewReader(page))
	inScript := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			inScript = tok.Data == "script"
			for _, a := range tok.Attr {
				out = append(out, a.Val)
			}
		case html.EndTagToken:
			inScript = false
		case html.TextToken:
			if !inScript {
				out = append(out, tok.Data)
			}
		}
	}
	return out
}
