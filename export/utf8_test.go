package export

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// parquetStrings returns every byte-array value of every Parquet file
// under dir.
func parquetStrings(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, rel := range files(t, dir) {
		if !strings.HasSuffix(rel, ".parquet") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		r := parquet.NewReader(f)
		buf := make([]parquet.Row, 64)
		for {
			n, err := r.ReadRows(buf)
			for _, row := range buf[:n] {
				for _, v := range row {
					if v.Kind() == parquet.ByteArray {
						out = append(out, string(v.ByteArray()))
					}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
		}
		r.Close()
		f.Close()
	}
	return out
}

// A kernel name that is not UTF-8 (a Kineto or rocprof trace holds any
// bytes) is written with U+FFFD for each bad byte, as the JSON and timeline
// outputs write it: DuckDB refused the whole dataset ("Invalid string
// encoding found in Parquet file … is not valid UTF8!"). Found by the
// output sweep (a kernel name with bytes ff fe, export --to parquet).
func TestParquetNamesUTF8(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"bad\xff\xfe(\xed\xa0\x80end", "bad\uFFFD\uFFFD(\uFFFD\uFFFD\uFFFDend"},
		// The negative arm: valid UTF-8, ASCII or not, is written as it is.
		{"kern·é<\u202e>", "kern·é<\u202e>"},
	} {
		dir := t.TempDir()
		in := writeSynth(t, dir, "a.synth", synthSpec{N: 4, Kernels: 2, Kernel0: []byte(c.name)})
		out := filepath.Join(dir, "ds")
		run(t, []string{in}, Options{To: Parquet, Out: out, Format: synthFormat})
		found := 0
		for _, s := range parquetStrings(t, out) {
			if !utf8.ValidString(s) {
				t.Errorf("got the value %q in the dataset, want UTF-8", s)
			}
			if s == c.want {
				found++
			}
		}
		// The dispatch rows of kernel 0 (2 of 4) and its kernels row.
		if found != 3 {
			t.Errorf("%q: got %d values %q, want 3 (2 dispatch rows, 1 kernels row)", c.name, found, c.want)
		}
	}
}

// The pprof profile's strings are proto3 strings, UTF-8 (a strict decoder
// refuses the profile otherwise): a kernel name's invalid bytes are U+FFFD
// there too. Found by the output
// sweep (export --to pprof of the same traces).
func TestPProfNamesUTF8(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"bad\xff\xfe(\xed\xa0\x80end", "bad\uFFFD\uFFFD(\uFFFD\uFFFD\uFFFDend"},
		{"kern·é<\u202e>", "kern·é<\u202e>"}, // the negative arm: valid, kept
	} {
		dir := t.TempDir()
		in := writeSynth(t, dir, "a.synth", synthSpec{N: 4, Kernels: 2, Kernel0: []byte(c.name)})
		out := filepath.Join(dir, "p.pb.gz")
		run(t, []string{in}, Options{To: PProf, Out: out, Format: synthFormat})
		p := parseProfile(t, out)
		found := false
		for _, f := range p.Function {
			if !utf8.ValidString(f.Name) {
				t.Errorf("got function %q, want UTF-8", f.Name)
			}
			found = found || f.Name == c.want
		}
		if !found {
			t.Errorf("%q: got no function %q, want one", c.name, c.want)
		}
	}
}
