package kineto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// rawCases are record_shapes values and the length rawValue gives them:
// 0 where canon must read them (too long, nested too deep, escapes,
// objects, fractions, invalid JSON, or cut by the end of the buffer).
var rawCases = []struct {
	in string
	n  int
}{
	{`[[8, 16], [32, 16], [32]], "x"`, 25},
	{`[[8,16],[32,16],[32]]}`, 21},
	{"[\n  [8, 16],\t[32]\r\n]}", 20},
	{`["c10::BFloat16", "float", "", "Scalar"]}`, 40},
	{`["", "1", "[0, 1]", "False"]}`, 28},
	{`[[], [0], [-1, 0]]}`, 18},
	{`[true, false, null]}`, 19},
	{`[]}`, 2},
	{`[ ]}`, 3},
	{`17}`, 2},
	{`-3,`, 2},
	{`""}`, 2},
	{`[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`, 33}, // maxRawNest
	// canon reads these.
	{`[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}`, 0}, // deeper
	{`[[8, 16]]`, 0}, // no byte after it in the buffer
	{`17`, 0},
	{`[[8, 16]`, 0},
	{`["fl\u006fat"]}`, 0},
	{`[{"a": 1}]}`, 0},
	{`[1.5]}`, 0},
	{`[1e3]}`, 0},
	{`[016]}`, 0},
	{`[-]}`, 0},
	{`[1,]}`, 0},
	{`[,1]}`, 0},
	{`[1 2]}`, 0},
	{`[tru]}`, 0},
	{`[nul]}`, 0},
	{`["x]}`, 0},
	{`x}`, 0},
	{`}`, 0},
	{`[[8, 16]]]`, 9}, // what follows is the caller's to check
	{`[` + strings.Repeat(`1, `, maxCanon/3) + `1]}`, 0}, // longer than canon keeps
}

// TestRawValue checks rawValue's verdicts and lengths, and for each value
// it accepts that canon reads those bytes exactly, without error, to the
// compact form: the cache of raw spellings may then stand for canon.
func TestRawValue(t *testing.T) {
	for _, tc := range rawCases {
		if got := rawValue([]byte(tc.in)); got != tc.n {
			t.Errorf("rawValue(%.60q): got %d, want %d", tc.in, got, tc.n)
		}
		checkRaw(t, []byte(tc.in))
	}
}

// FuzzRawValue checks checkRaw's property on arbitrary bytes.
//
//	go test -run '^$' -fuzz FuzzRawValue ./format/kineto/
func FuzzRawValue(f *testing.F) {
	for _, tc := range rawCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkRaw(t, b) })
}

// checkRaw: where rawValue accepts b's first n bytes, canon reads exactly
// them, without stopping and without a refill, to their compact form.
func checkRaw(t *testing.T, b []byte) {
	n := rawValue(b)
	if n == 0 {
		return
	}
	if n < 0 || n >= len(b) {
		t.Fatalf("rawValue(%q): got %d, want 0 or less than the %d bytes", b, n, len(b))
	}
	r := &reader{s: newScanner(bytes.NewReader(b), len(b)+16)}
	var out []byte
	func() {
		defer func() {
			if x := recover(); x != nil {
				t.Fatalf("rawValue(%q) accepted %d bytes: got canon stopping (%v), want it to read them", b, n, x)
			}
		}()
		out = r.canon(nil)
	}()
	if r.s.off != 0 || r.s.pos != n {
		t.Fatalf("rawValue(%q): got canon reading %d bytes (buffer moved by %d), want %d as rawValue accepted (not moved)", b, r.s.pos, r.s.off, n)
	}
	if want := compactJSON(b[:n]); string(out) != want {
		t.Fatalf("canon(%q): got %s, want %s", b[:n], out, want)
	}
}

// compactJSON drops the whitespace outside strings (no escapes in them).
func compactJSON(b []byte) string {
	var sb strings.Builder
	in := false
	for _, c := range b {
		if c == '"' {
			in = !in
		}
		if !in && (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// One signature written every way a writer might: spaced, compact, over
// lines, with a long run of blanks (past what rawValue takes), and the
// first spelling again (a cache hit). Each is one call of one op; a dims
// value of the same bytes under another key is not confused with it, nor
// a spelling of other shapes that starts alike.
func TestOpsArgSpellings(t *testing.T) {
	types := `["float", "float"]`
	spellings := []string{
		`[[8, 16], [16, 32]]`,
		`[[8,16],[16,32]]`,
		"[\n  [8, 16],\n  [16, 32]\n]",
		`[[8, 16],` + strings.Repeat(" ", maxCanon) + `[16, 32]]`,
		`[[8, 16], [16, 32]]`,
	}
	var ev []string
	at := 0
	add := func(name, dims, types string) {
		at += 100
		ts := fmt.Sprint(at)
		corr := fmt.Sprint(at / 100)
		ev = append(ev,
			hostEv("cpu_op", name, 100, ts, "50", fmt.Sprintf(`{"External id": %s, "Input Dims": %s, "Input type": %s, "Concrete Inputs": ["", ""]}`, corr, dims, types)),
			call("cudaLaunchKernel", corr, fmt.Sprint(at+10), "5"),
			kernel("k", corr, fmt.Sprint(100000+at), "10"))
	}
	for _, s := range spellings {
		add("aten::mm", s, types)
	}
	add("aten::mm", types, `[[8, 16], [16, 32]]`) // the dims' bytes as types
	add("aten::mm", `[[8, 16], [16, 33]]`, types)
	for _, cfg := range []config{{bufSize: 1 << 16, logRecords: 1 << 10}, tinyConfig} {
		r := readWith(t, trace(ev), &format.Options{Ops: true}, cfg)
		if len(r.disp) != len(spellings)+2 {
			t.Fatalf("buffer %d: got %d dispatches, want %d", cfg.bufSize, len(r.disp), len(spellings)+2)
		}
		mm := r.c.Op(r.disp[0].Op)
		if mm == nil || mm.Dims != "[[8,16],[16,32]]" || mm.Types != `["float","float"]` || mm.Calls != int64(len(spellings)) {
			t.Fatalf("buffer %d: got %+v, want aten::mm of dims [[8,16],[16,32]] with %d calls", cfg.bufSize, mm, len(spellings))
		}
		for i := range spellings {
			if r.disp[i].Op != r.disp[0].Op {
				t.Errorf("buffer %d: spelling %d: got op %+v, want the one of the first", cfg.bufSize, i, r.c.Op(r.disp[i].Op))
			}
		}
		swapped, other := r.c.Op(r.disp[len(spellings)].Op), r.c.Op(r.disp[len(spellings)+1].Op)
		if swapped == nil || swapped.Dims != `["float","float"]` || swapped.Types != "[[8,16],[16,32]]" {
			t.Errorf("buffer %d: dims and types swapped: got %+v, want dims [\"float\",\"float\"] and types [[8,16],[16,32]]", cfg.bufSize, swapped)
		}
		if other == nil || other.Dims != "[[8,16],[16,33]]" {
			t.Errorf("buffer %d: other shapes: got %+v, want dims [[8,16],[16,33]]", cfg.bufSize, other)
		}
		if len(r.c.Ops) != 3 {
			t.Errorf("buffer %d: got %d op signatures, want 3", cfg.bufSize, len(r.c.Ops))
		}
	}
}

// A spelling seen before, then the same bytes with an invalid number: the
// read stops there, at the number, as without the cache.
func TestOpsArgCachedThenInvalid(t *testing.T) {
	ev := []string{
		hostEv("cpu_op", "aten::mm", 100, "100", "50", `{"Input Dims": [[8, 16]], "Input type": ["float"], "Concrete Inputs": [""]}`),
		hostEv("cpu_op", "aten::mm", 100, "200", "50", `{"Input Dims": [[8, 016]], "Input type": ["float"], "Concrete Inputs": [""]}`),
	}
	data := trace(ev)
	at := strings.Index(data, "016")
	for _, ops := range []bool{false, true} {
		c, err := readFrom(strings.NewReader(data), "test.json", &format.Options{Ops: ops}, capture.Discard, defaultConfig)
		if err != nil {
			t.Fatal(err)
		}
		g := c.Accounting.Find(capture.TruncatedInput)
		if g == nil || !strings.Contains(g.Summary, "malformed") {
			t.Fatalf("ops %v: got %+v, want a malformed-input stop", ops, g)
		}
		if want := fmt.Sprintf("byte %d", at); !strings.Contains(gapText(c), want) {
			t.Errorf("ops %v: got gaps\n%s\nwant the stop to say %s", ops, gapText(c), want)
		}
	}
}
