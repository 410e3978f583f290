package jsoncap

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/testfile"
)

func filter(t *testing.T, in string, oneByte bool) (string, *Reader, []int64) {
	t.Helper()
	var fulls []int64
	var src io.Reader = strings.NewReader(in)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	r := &Reader{R: src, OnCut: func(off, full int64, head []byte) {
		if in[off] != '"' {
			t.Errorf("OnCut offset %d is %q, want the opening quote", off, in[off])
		}
		fulls = append(fulls, full)
	}}
	var out io.Reader = r
	if oneByte {
		out = iotest.OneByteReader(r)
	}
	b, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), r, fulls
}

func TestShortStringsPassThrough(t *testing.T) {
	in := `{"a": "b\"c\\", "k\u00e9y": [1, "x\ud83d\ude00", {"": "é😀"}], "n": null}` + "\n" + strings.Repeat(`"s",`, 1000)
	for _, one := range []bool{false, true} {
		out, r, fulls := filter(t, in, one)
		if out != in || len(fulls) != 0 {
			t.Errorf("oneByte %v: output differs from the input (%d cuts), want it unchanged", one, len(fulls))
		}
		if r.Offset(123) != 123 {
			t.Errorf("Offset(123) = %d without a cut, want 123", r.Offset(123))
		}
	}
}

// Each unit kind straddles the cut at every position: the cut string
// decodes to clean UTF-8 within capture.MaxName, its head is the input's,
// and the marker names the length as written.
func TestCutKeepsUnitsWhole(t *testing.T) {
	for _, unit := range []string{`\u00e9`, `\ud83d\ude00`, `\"q`, "é", "😀", `\\`, "a", `\n`} {
		for shift := 0; shift < 12; shift++ {
			raw := strings.Repeat("x", shift) + strings.Repeat(unit, capture.MaxName/len(unit)+20)
			in := `{"name": "` + raw + `", "after": 7}`
			for _, one := range []bool{false, true} {
				out, r, fulls := filter(t, in, one)
				var v struct {
					Name  string `json:"name"`
					After int    `json:"after"`
				}
				dec := json.NewDecoder(strings.NewReader(out))
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("unit %q shift %d: got output that is not JSON (%v), want JSON", unit, shift, err)
				}
				if v.After != 7 {
					t.Errorf("unit %q shift %d: after = %d, want 7", unit, shift, v.After)
				}
				var full string
				json.Unmarshal([]byte(`"`+raw+`"`), &full)
				marker := "…[truncated from " + strconv.Itoa(len(raw)) + " bytes]"
				kept, ok := strings.CutSuffix(v.Name, marker)
				if !ok || !strings.HasPrefix(full, kept) || len(kept) < capture.MaxName/2/len(unit) {
					t.Fatalf("unit %q shift %d: name ends %q, want a prefix of the name then %q", unit, shift, v.Name[max(0, len(v.Name)-60):], marker)
				}
				if len(v.Name) > capture.MaxName || !utf8.ValidString(v.Name) || strings.ContainsRune(v.Name, utf8.RuneError) {
					t.Fatalf("unit %q shift %d: cut name of %d bytes, valid UTF-8 %v: want clean UTF-8 within %d", unit, shift, len(v.Name), utf8.ValidString(v.Name), capture.MaxName)
				}
				if len(fulls) != 1 || fulls[0] != int64(len(raw)) {
					t.Errorf("unit %q shift %d: OnCut lengths %v, want [%d]", unit, shift, fulls, len(raw))
				}
				if got, want := r.Offset(dec.InputOffset()), int64(len(in)); got != want {
					t.Errorf("unit %q shift %d: Offset(end of output) = %d, want the input's end %d", unit, shift, got, want)
				}
			}
		}
	}
}

// Offsets after a cut map back to the input: a decoder's position past
// the second of two cut strings is the input's.
func TestOffsetAfterCuts(t *testing.T) {
	long := strings.Repeat("z", capture.MaxName+5000)
	in := `["` + long + `", "` + long + long + `", 12345, "tail"]`
	out, r, _ := filter(t, in, false)
	dec := json.NewDecoder(strings.NewReader(out))
	for i := 0; i < 4; i++ { // [ s s 12345
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := r.Offset(dec.InputOffset()), int64(strings.Index(in, "12345")+5); got != want {
		t.Errorf("Offset after 12345 = %d, want %d", got, want)
	}
}

// A 64 MiB string streams through in bounded memory.
func TestHugeStringBounded(t *testing.T) {
	const n = 64 << 20
	src := io.MultiReader(strings.NewReader(`{"name": "`), fixture.Repeat('k', n), strings.NewReader(`"}`))
	var v map[string]string
	var err error
	got := testfile.Allocated(func() { err = json.NewDecoder(&Reader{R: src}).Decode(&v) })
	if err != nil {
		t.Fatal(err)
	}
	if got > 4<<20 {
		t.Errorf("decoding a %d-byte string through the Reader allocated %d bytes, want under 4 MiB", n, got)
	}
	if !strings.HasSuffix(v["name"], "[truncated from "+strconv.Itoa(n)+" bytes]") {
		t.Errorf("name ends %q, want the marker", v["name"][len(v["name"])-40:])
	}
}

// A text cut inside a long string ends as the input does: the decoder
// sees the string unterminated.
func TestCutInsideLongString(t *testing.T) {
	in := `{"name": "` + strings.Repeat("q", capture.MaxName*2)
	out, _, fulls := filter(t, in, false)
	if len(fulls) != 0 || strings.Contains(out, "truncated") {
		t.Errorf("an unterminated string was marked cut (%d), want it left open", len(fulls))
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err == nil {
		t.Error("the output of a cut text decodes, want an error as for the input")
	}
}

// BenchmarkReader passes a JSON text of short strings and numbers, as
// profiler exports are, through the Reader.
func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 8<<20 {
		sb.WriteString(`{"kind": 3, "operation": 1, "start_timestamp": 1751410836000000000, "end_timestamp": 1751410836000004000, "correlation_id": {"internal": 42, "external": 0}, "kernel_name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T, at::detail::Array<char*, 1>)"},` + "\n")
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, &Reader{R: strings.NewReader(data)}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReader: whatever the text, short strings pass through unchanged
// (a cut is the only change), and malformed escapes do not derail the
// tracking of where strings end.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a": "b"}`, `"\u12"x"`, `"\`, `["\ud83d\ude00", "\"", 1]`, `"a\u00"}"`, "\"\xff\xfe\"", `""""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := &Reader{R: iotest.HalfReader(strings.NewReader(in))}
		cuts := 0
		r.OnCut = func(int64, int64, []byte) { cuts++ }
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if cuts == 0 && string(out) != in {
			t.Fatalf("no cut: got output %q, want the input %q", out, in)
		}
		if r.Offset(int64(len(out))) != int64(len(in)) && cuts == 0 {
			t.Fatalf("Offset(end) = %d, want %d", r.Offset(int64(len(out))), len(in))
		}
	})
}

// A long string after a malformed \u escape: the escape ends at the
// first byte that is not a hex digit, so the quote there closes its
// string and the long string after it is the one cut.
func TestMalformedEscapeThenLong(t *testing.T) {
	long := strings.Repeat("w", capture.MaxName+10)
	in := `["\u12", "` + long + `"]`
	out, _, fulls := filter(t, in, false)
	if len(fulls) != 1 || fulls[0] != int64(len(long)) {
		t.Errorf("cuts %v, want the long string's length [%d]", fulls, len(long))
	}
	if !strings.HasPrefix(out, `["\u12", "www`) {
		t.Errorf("output starts %q, want the malformed string unchanged", out[:20])
	}
}
