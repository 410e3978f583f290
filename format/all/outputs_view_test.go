package all

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/protowalk"
	"golang.org/x/net/html"
	"google.golang.org/protobuf/encoding/protowire"
)

// accountingView is what one output states of a capture's accounting,
// read back from the output itself. A figure the output does not carry is
// -1 (a nil map): it is not compared.
type accountingView struct {
	// verdict is "complete" or "incomplete" (a note never makes a capture
	// incomplete).
	verdict string
	// gaps are the non-note gaps with a count, by kind; notes the notes.
	gaps, notes map[string]int64
	// empty is 1 when the output says the capture holds no dispatch at
	// all (the HTML page's verdict "empty", the text report's NO DISPATCH
	// RECORDED), 0 when it says otherwise, -1 when it has no such word.
	empty int
	// touches is how much each gap kind touches (its gaps summed; notes
	// touch nothing), where the output carries the figures.
	touches map[string]touch
	// sentence is the verdict as worded for a reader, and touchLines each
	// gap's "touches:" line, sorted (the text report and the HTML page,
	// which must word them alike).
	sentence   string
	touchLines []string
	// unfinished is the unfinished_dispatch count.
	unfinished int64
	// dispatches are the completed dispatches in the tables; deviceNs their
	// device time in ns (programs on an ns clock).
	dispatches, deviceNs int64
}

func newView() accountingView {
	return accountingView{empty: -1, unfinished: -1, dispatches: -1, deviceNs: -1}
}

func (v accountingView) String() string {
	kinds := func(m map[string]int64) string {
		if m == nil {
			return "-"
		}
		var s []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s = append(s, fmt.Sprintf("%s=%d", k, m[k]))
		}
		return "{" + strings.Join(s, " ") + "}"
	}
	return fmt.Sprintf("%s (empty %d) gaps %s notes %s unfinished %d dispatches %d device_ns %d", v.verdict, v.empty, kinds(v.gaps), kinds(v.notes), v.unfinished, v.dispatches, v.deviceNs)
}

// disagreements lists where got (an output) says otherwise than want (the
// JSON report), over the figures got carries.
func (got accountingView) disagreements(want accountingView) []string {
	var out []string
	if got.verdict != "" && got.verdict != want.verdict {
		out = append(out, fmt.Sprintf("verdict %s, want %s", got.verdict, want.verdict))
	}
	if got.gaps != nil && !maps.Equal(got.gaps, want.gaps) {
		out = append(out, fmt.Sprintf("gaps %v, want %v", got.gaps, want.gaps))
	}
	if got.touches != nil && !maps.Equal(got.touches, want.touches) {
		out = append(out, fmt.Sprintf("touches %v, want %v", got.touches, want.touches))
	}
	if got.notes != nil && !maps.Equal(got.notes, want.notes) {
		out = append(out, fmt.Sprintf("notes %v, want %v", got.notes, want.notes))
	}
	for _, f := range []struct {
		name      string
		got, want int64
	}{{"empty", int64(got.empty), int64(want.empty)}, {"unfinished", got.unfinished, want.unfinished}, {"dispatches", got.dispatches, want.dispatches}, {"device_ns", got.deviceNs, want.deviceNs}} {
		if f.got >= 0 && f.got != f.want {
			out = append(out, fmt.Sprintf("%s %d, want %d", f.name, f.got, f.want))
		}
	}
	return out
}

// addGap files a gap of kind with count in v (a note apart); gaps of a kind
// listed per program add up.
func (v *accountingView) addGap(kind string, count int64, note bool) {
	if v.gaps == nil {
		v.gaps, v.notes = map[string]int64{}, map[string]int64{}
	}
	if count == 0 {
		return
	}
	if note {
		v.notes[kind] += count
		return
	}
	v.gaps[kind] += count
	if kind == "unfinished_dispatch" {
		v.unfinished = v.gaps[kind]
	}
}

// touch is a gap's affected figure: whether its size is known, the device
// time known missing and unattributed, the dispatches lost.
type touch struct {
	known                       bool
	missing, unattributed, lost int64
}

// addTouch adds a gap's figure to kind's in v.
func (v *accountingView) addTouch(kind string, f touch) {
	if v.touches == nil {
		v.touches = map[string]touch{}
	}
	sum, seen := v.touches[kind]
	if !seen {
		sum.known = true
	}
	v.touches[kind] = touch{known: sum.known && f.known, missing: sum.missing + f.missing, unattributed: sum.unattributed + f.unattributed, lost: sum.lost + f.lost}
}

func verdictOf(complete bool) string {
	if complete {
		return "complete"
	}
	return "incomplete"
}

// jsonGaps is the accounting of tally.report/v1 (and of a diff side's input).
type jsonAccounting struct {
	Complete bool `json:"complete"`
	Gaps     []struct {
		Kind     string `json:"kind"`
		Count    int64  `json:"count"`
		Note     bool   `json:"note"`
		Affected *struct {
			SizeKnown    bool  `json:"size_known"`
			Missing      int64 `json:"missing_device_ns"`
			Unattributed int64 `json:"unattributed_device_ns"`
			Lost         int64 `json:"lost_dispatches"`
		} `json:"affected"`
	} `json:"gaps"`
}

func (a jsonAccounting) view() accountingView {
	v := newView()
	v.verdict = verdictOf(a.Complete)
	v.addGap("", 0, false)
	v.unfinished = 0
	v.touches = map[string]touch{}
	for _, g := range a.Gaps {
		v.addGap(g.Kind, g.Count, g.Note)
		if af := g.Affected; af != nil && !g.Note {
			v.addTouch(g.Kind, touch{af.SizeKnown, af.Missing, af.Unattributed, af.Lost})
		}
	}
	return v
}

// viewJSON reads tally report --json, the reference.
func viewJSON(t *testing.T, out string) accountingView {
	t.Helper()
	var doc struct {
		Schema     string         `json:"schema"`
		Accounting jsonAccounting `json:"accounting"`
		Programs   []struct {
			Unit       *string `json:"unit"`
			Dispatches int64   `json:"dispatches"`
			TotalNs    *int64  `json:"total_ns"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != "tally.report/v1" {
		t.Fatalf("report --json: %v (schema %q), want a tally.report/v1 document", err, doc.Schema)
	}
	v := doc.Accounting.view()
	v.empty = 0
	if v.gaps["empty_capture"] > 0 {
		v.empty = 1
	}
	v.dispatches, v.deviceNs = 0, 0
	for _, p := range doc.Programs {
		v.dispatches += p.Dispatches
		if p.TotalNs != nil {
			v.deviceNs += *p.TotalNs
		}
	}
	return v
}

var (
	textGap      = regexp.MustCompile(`^\s*(GAP|note) (\S+) \((\d+)\)`)
	textProgram  = regexp.MustCompile(`^program .*?: .*?(\d+) dispatch(es)?[,;]`)
	textVerdict  = regexp.MustCompile(`^(COMPLETE|INCOMPLETE)\b`)
	diffSideLine = regexp.MustCompile(`^B: (COMPLETE|INCOMPLETE)\b`)
)

// viewText reads the text report: the verdict line, every GAP and note
// line (under a program or after the verdict) and each program's
// dispatches.
func viewText(t *testing.T, out string) accountingView {
	t.Helper()
	v := newView()
	v.addGap("", 0, false)
	v.dispatches, v.empty = 0, 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "NO DISPATCH RECORDED") {
			v.empty = 1
		}
		if m := textVerdict.FindStringSubmatch(line); m != nil && v.verdict == "" {
			v.verdict, v.sentence = strings.ToLower(m[1]), line
		}
		if l, ok := strings.CutPrefix(strings.TrimSpace(line), "touches: "); ok {
			v.touchLines = append(v.touchLines, l)
		}
		if m := textGap.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[3], 10, 64)
			v.addGap(m[2], n, m[1] == "note")
		}
		if m := textProgram.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			v.dispatches += n
		}
	}
	if v.unfinished < 0 {
		v.unfinished = 0
	}
	slices.Sort(v.touchLines)
	return v
}

// viewDiffText reads side B of tally diff's text: its verdict line and the
// GAP and note lines under it (before the statistics).
func viewDiffText(t *testing.T, out string) accountingView {
	t.Helper()
	v := newView()
	v.addGap("", 0, false)
	inB := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "statistics:") {
			break
		}
		if m := diffSideLine.FindStringSubmatch(line); m != nil {
			inB, v.verdict = true, strings.ToLower(m[1])
			continue
		}
		if m := textGap.FindStringSubmatch(line); inB && m != nil {
			n, _ := strconv.ParseInt(m[3], 10, 64)
			v.addGap(m[2], n, m[1] == "note")
		}
	}
	v.unfinished = max(v.unfinished, 0)
	return v
}

// viewDiffJSON reads side B of tally diff --json (one input).
func viewDiffJSON(t *testing.T, out string) accountingView {
	t.Helper()
	var doc struct {
		Sides []struct {
			Label    string `json:"label"`
			Complete bool   `json:"complete"`
			Inputs   []struct {
				Accounting jsonAccounting `json:"accounting"`
			} `json:"inputs"`
		} `json:"sides"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sides) != 2 || len(doc.Sides[1].Inputs) != 1 {
		t.Fatalf("diff --json: %v, %d sides, want 2 sides of one input", err, len(doc.Sides))
	}
	b := doc.Sides[1]
	v := b.Inputs[0].Accounting.view()
	if b.Complete != b.Inputs[0].Accounting.Complete {
		t.Errorf("diff --json: side B complete %v, its input's accounting complete %v, want the same", b.Complete, b.Inputs[0].Accounting.Complete)
	}
	return v
}

// viewHTML reads the HTML page with an HTML tokenizer: the verdict's
// data-verdict, each gap's data-kind and data-count (class "gap note" for
// a note), and the embedded table data's dispatches and ns totals. It
// fails when the page holds any script element but its own two.
func viewHTML(t *testing.T, page []byte) accountingView {
	t.Helper()
	v := newView()
	v.addGap("", 0, false)
	v.unfinished = 0
	scripts := 0
	var data string
	z := html.NewTokenizer(bytes.NewReader(page))
	inData := false
	// text collects the text of the element being read (the verdict, a
	// touches line) into *text until its end tag.
	var text *string
	var touches string
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("html: got error %v, want none", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Key] = a.Val
			}
			switch {
			case tok.Data == "script":
				scripts++
				inData = attr["id"] == "data"
			case attr["id"] == "verdict":
				text = &v.sentence
				v.verdict, v.empty = attr["data-verdict"], 0
				if v.verdict == "empty" { // an empty capture is incomplete
					v.verdict, v.empty = "incomplete", 1
				}
			case attr["class"] == "touches":
				touches, text = "", &touches
			case strings.HasPrefix(attr["class"], "gap") && attr["data-kind"] != "":
				n, err := strconv.ParseInt(attr["data-count"], 10, 64)
				if err != nil {
					t.Errorf("html gap %s: data-count %q: got error %v, want a number", attr["data-kind"], attr["data-count"], err)
				}
				v.addGap(attr["data-kind"], n, strings.Contains(attr["class"], "note"))
			}
		case html.TextToken:
			if inData {
				data += tok.Data
			}
			if text != nil {
				*text += tok.Data
			}
		case html.EndTagToken:
			inData = false
			if text == &touches {
				v.touchLines = append(v.touchLines, strings.TrimPrefix(touches, "touches: "))
			}
			if tok.Data == "p" {
				text = nil
			}
		}
	}
	slices.Sort(v.touchLines)
	if scripts != 2 {
		t.Errorf("html: %d script elements, want the page's own 2", scripts)
	}
	var d struct {
		Programs []struct {
			Unit    string `json:"unit"`
			Columns []struct {
				Key string `json:"key"`
			} `json:"columns"`
			Rows [][]json.RawMessage `json:"rows"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Errorf("html: the page's table data: got %v, want JSON", err)
		return v
	}
	v.dispatches, v.deviceNs = 0, 0
	for _, p := range d.Programs {
		col := map[string]int{}
		for i, c := range p.Columns {
			col[c.Key] = i
		}
		for _, r := range p.Rows {
			v.dispatches += jsonInt(r[col["dispatches"]])
			if p.Unit == "ns" {
				v.deviceNs += jsonInt(r[col["total"]])
			}
		}
	}
	return v
}

func jsonInt(raw json.RawMessage) int64 {
	n, _ := strconv.ParseInt(string(raw), 10, 64)
	return n
}

// viewTimelineMeta reads a timeline's metadata (the Chrome file's
// otherData, or the Perfetto file's metadata bundle): the verdict, each
// tally_gap_KIND (notes among them: the metadata does not tell them
// apart) and the dispatches drawn. The timeline's verdict may be
// incomplete where the capture is complete when it draws less than the
// capture holds (not_drawn_*): that is returned as notDrawn.
func viewTimelineMeta(meta map[string]any) (v accountingView, all map[string]int64, notDrawn int64) {
	v = newView()
	all = map[string]int64{}
	if s, ok := meta["tally_verdict"].(string); ok {
		v.verdict = strings.SplitN(s, ":", 2)[0]
		if strings.HasPrefix(s, "complete") {
			v.verdict = "complete"
		}
	}
	num := func(k string) int64 {
		switch n := meta[k].(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
		return -1
	}
	for k := range meta {
		if kind, ok := strings.CutPrefix(k, "tally_gap_"); ok {
			all[kind] = num(k)
		}
	}
	for _, k := range []string{"tally_not_drawn_untimed", "tally_not_drawn_aggregated", "tally_not_drawn_before_base"} {
		notDrawn += max(num(k), 0)
	}
	v.dispatches = num("tally_slices")
	return v, all, notDrawn
}

// chromeMeta is a Chrome JSON timeline's otherData.
func chromeMeta(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
		OtherData   map[string]any    `json:"otherData"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.OtherData == nil {
		t.Fatalf("chrome timeline: %v (otherData %v), want JSON with otherData", err, doc.OtherData)
	}
	return doc.OtherData
}

// perfettoMeta is a Perfetto timeline's metadata: the ChromeEventBundle
// (TracePacket field 5) metadata entries (bundle field 2: name 1, string
// 2, int 4), as timeline/perfetto.go writes them.
func perfettoMeta(t *testing.T, data []byte) map[string]any {
	t.Helper()
	meta := map[string]any{}
	each := func(b []byte, f func(num protowire.Number, v uint64, b []byte)) {
		if err := protowalk.Fields(b, f); err != nil {
			t.Fatalf("perfetto: got error %v, want none", err)
		}
	}
	each(data, func(num protowire.Number, _ uint64, pkt []byte) {
		if num != 1 {
			t.Fatalf("perfetto: top-level field %d, want only packets (1)", num)
		}
		each(pkt, func(num protowire.Number, _ uint64, bundle []byte) {
			if num != 5 {
				return
			}
			each(bundle, func(num protowire.Number, _ uint64, m []byte) {
				if num != 2 {
					return
				}
				var name string
				var val any
				each(m, func(num protowire.Number, v uint64, b []byte) {
					switch num {
					case 1:
						name = string(b)
					case 2:
						val = string(b)
					case 4:
						val = int64(v)
					}
				})
				meta[name] = val
			})
		})
	})
	if len(meta) == 0 {
		t.Fatal("perfetto: got no metadata bundle, want one")
	}
	return meta
}

// exportView is a CSV or JSONL export's view before its files are read:
// the figures both forms carry (gaps with their sizes, the unfinished
// count among them, the table's dispatches and device time), at zero.
func exportView() accountingView {
	v := newView()
	v.addGap("", 0, false)
	v.unfinished = 0
	v.touches = map[string]touch{}
	v.dispatches, v.deviceNs = 0, 0
	return v
}

// viewExportCSV reads an export's CSV table (dispatches, device_ns) and its
// gaps file (record gap: kind, count, note).
func viewExportCSV(t *testing.T, table, gaps []byte) accountingView {
	t.Helper()
	v := exportView()
	for _, r := range readCSV(t, "export csv", table) {
		v.dispatches += atoi(r["dispatches"])
		v.deviceNs += atoi(r["device_ns"])
	}
	for _, r := range readCSV(t, "export csv gaps", gaps) {
		if r["record"] == "gap" {
			v.addGap(r["kind"], atoi(r["count"]), r["note"] == "true")
			if r["size_known"] != "" {
				v.addTouch(r["kind"], touch{r["size_known"] == "true", atoi(r["missing_device_time"]), atoi(r["unattributed_device_time"]), atoi(r["lost_dispatches"])})
			}
		}
	}
	return v
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// readCSV reads data as CSV with a header, every row as many fields as
// the header.
func readCSV(t *testing.T, what string, data []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v (%d records), want CSV with a header", what, err, len(recs))
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// viewExportJSONL reads an export's JSONL table and gaps file as
// viewExportCSV does; every line must be a JSON object.
func viewExportJSONL(t *testing.T, table, gaps []byte) accountingView {
	t.Helper()
	v := exportView()
	for _, r := range readJSONL(t, "export jsonl", table) {
		var d struct {
			Dispatches int64  `json:"dispatches"`
			DeviceNs   *int64 `json:"device_ns"`
		}
		if err := json.Unmarshal(r, &d); err != nil {
			t.Fatalf("export jsonl: got %v, want JSON", err)
		}
		v.dispatches += d.Dispatches
		if d.DeviceNs != nil {
			v.deviceNs += *d.DeviceNs
		}
	}
	for _, r := range readJSONL(t, "export jsonl gaps", gaps) {
		var g struct {
			Record, Kind string
			Count        int64
			Note         bool
			SizeKnown    *bool `json:"size_known"`
			Missing      int64 `json:"missing_device_time"`
			Unattributed int64 `json:"unattributed_device_time"`
			Lost         int64 `json:"lost_dispatches"`
		}
		if err := json.Unmarshal(r, &g); err != nil {
			t.Fatalf("export jsonl gaps: got %v, want JSON", err)
		}
		if g.Record == "gap" {
			v.addGap(g.Kind, g.Count, g.Note)
			if g.SizeKnown != nil {
				v.addTouch(g.Kind, touch{*g.SizeKnown, g.Missing, g.Unattributed, g.Lost})
			}
		}
	}
	return v
}

func readJSONL(t *testing.T, what string, data []byte) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 && len(data) == 0 {
			break
		}
		if !json.Valid(line) {
			t.Fatalf("%s: line %d: got %.200q, want JSON", what, i+1, line)
		}
		out = append(out, line)
	}
	return out
}
