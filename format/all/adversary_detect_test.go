package all

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/probefile"
)

// Detection without evidence, attacked: near-miss inputs (one format's
// head on another's body, a Chrome trace that is not Kineto's, a CSV with
// rocprof's header and another tool's rows, a database that only names a
// reader's table, encodings the readers do not take) either are refused
// as no format, or are claimed and end in a positioned error or a capture
// whose gaps say why — never COMPLETE with nothing read.

// detectOutcome reads data with detection and checks the promise above;
// want is the reader that must claim it ("" for none; "*" for any, the
// mixtures whose claim is not the point).
func detectOutcome(t *testing.T, name string, data []byte, want string) {
	t.Helper()
	detectRead(t, name, data, want, nil)
}

// detectRead is detectOutcome with options, returning the capture and its
// dispatch count when a reader read it.
func detectRead(t *testing.T, name string, data []byte, want string, opts *format.Options) (*capture.Capture, int) {
	t.Helper()
	path := fixture.Write(t, t.TempDir(), "in", data)
	var got capture.Collect
	c, err := format.ReadPath(path, "", opts, &got)
	var fe *format.Error
	switch {
	case errors.Is(err, format.ErrUnknownFormat):
		if want != "" && want != "*" {
			t.Errorf("%s: got no reader, want %s to claim it", name, want)
		}
		return nil, 0
	case err != nil:
		if !errors.As(err, &fe) {
			t.Errorf("%s: got error %v, want a positioned *format.Error", name, err)
		}
		if want == "" {
			t.Errorf("%s: got %v, want no reader to claim it", name, err)
		}
		return nil, 0
	}
	if want == "" {
		t.Errorf("%s: got %s claiming it (%d dispatches, gaps %s), want no reader", name, c.Source.Format, len(got.Dispatches), gapKinds(c))
	} else if want != "*" && c.Source.Format != want {
		t.Errorf("%s: got %s claiming it, want %s", name, c.Source.Format, want)
	}
	if len(got.Dispatches) == 0 && c.Accounting.Complete() {
		t.Errorf("%s: got %s COMPLETE with no dispatch (gaps %s), want an empty_capture or a gap saying why", name, c.Source.Format, gapKinds(c))
	}
	return c, len(got.Dispatches)
}

// fileBase is a promise fixture's base input that is a file.
type fileBase struct {
	data []byte
	opts *format.Options
}

// fileBases are the promise fixtures' base inputs that are files, by
// reader/variant (a directory reader's base is left out).
func fileBases(t *testing.T) map[string]fileBase {
	t.Helper()
	out := map[string]fileBase{}
	for reader, fxs := range promiseFixtures {
		for _, fx := range fxs {
			p := fx.base(t, t.TempDir())
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				continue
			}
			out[strings.Trim(reader+"/"+fx.variant, "/")] = fileBase{fixture.Read(t, p), fx.opts}
		}
	}
	return out
}

func readerOf(key string) string { return strings.SplitN(key, "/", 2)[0] }

// headLen is the length of data's first line, or of its first 16 bytes
// for a binary input.
func headLen(data []byte) int {
	if i := bytes.IndexByte(data, '\n'); i >= 0 && i < 4096 && !bytes.Contains(data[:i], []byte{0}) {
		return i + 1
	}
	return min(16, len(data))
}

func utf16LE(s []byte) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(string(s))) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func TestDetectNearMisses(t *testing.T) {
	bases := fileBases(t)
	if len(bases) < 5 {
		t.Fatalf("got %d file bases, want the promise fixtures' files", len(bases))
	}
	for key, b := range bases {
		detectRead(t, key, b.data, readerOf(key), b.opts)
		// UTF-16 is no encoding any reader takes: refused.
		if bytes.IndexByte(b.data, 0) < 0 {
			detectRead(t, key+" as UTF-16", utf16LE(b.data), "", b.opts)
		}
	}
	// One format's head on another's body.
	for ka, a := range bases {
		for kb, b := range bases {
			if ka == kb || a.opts != nil || b.opts != nil {
				continue
			}
			head := a.data[:headLen(a.data)]
			body := b.data[headLen(b.data):]
			detectOutcome(t, ka+" head on "+kb+" body", append(append([]byte{}, head...), body...), "*")
		}
	}
	nuls := make([]byte, 8<<10)
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"empty file", "*", nil},
		{"NULs", "", nuls},
		{"BOM only", "", []byte{0xEF, 0xBB, 0xBF}},
		{"UTF-16 BOM only", "", []byte{0xFF, 0xFE}},
		{"chrome trace object", "*", []byte(`{"traceEvents": [{"name": "frame", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 1}], "displayTimeUnit": "ms"}`)},
		{"chrome trace array", "*", []byte(`[{"name": "frame", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 1}, {"name": "gc", "ph": "i", "ts": 20, "pid": 1, "tid": 1}]`)},
		{"chrome trace empty", "*", []byte(`{"traceEvents": []}`)},
		{"rocprof header, other rows", "*", []byte("Kernel_Name,Start_Timestamp,End_Timestamp\nname,age,city\nbob,31,Oslo\n")},
		{"rocprof header, no rows", "*", []byte("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n")},
		{"rocprof header, hrx rows", "*", []byte("Kernel_Name,Start_Timestamp,End_Timestamp\nhrx debug serial: begin phase=command-program main_commands=1\nhrx debug serial: end phase=command-program main_commands=1\n")},
		{"hrx non-dispatch lines", "hrx-serial", []byte("hrx debug serial: begin phase=command-program main_commands=1\nhrx debug serial: end phase=command-program main_commands=1\n")},
		{"probe magic only", "*", []byte(probefile.Magic)},
		{"IRPF magic only", "*", []byte("IRPF")},
		{"iree-jsonl other types", "", []byte("{\"type\": \"device\", \"id\": 0}\n{\"type\": \"queue\", \"id\": 1}\n")},
		{"iree-jsonl summary only", "*", []byte("{\"type\": \"dispatch_summary\"}\n")},
	}
	for _, tc := range cases {
		detectOutcome(t, tc.name, tc.data, tc.want)
	}
	// A database of another program that names a reader's table or string
	// in its rows: claimed on that word, it must end in a positioned error
	// or an empty capture, never an empty COMPLETE.
	for _, word := range []string{"rocpd_kernel_dispatch", "CUPTI_ACTIVITY_KIND_KERNEL", "StringIds", "META_DATA_EXPORT"} {
		p := fixture.SQLite(t, filepath.Join(t.TempDir(), "other.db"),
			`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`, `INSERT INTO notes (body) VALUES ('`+word+`')`)
		detectOutcome(t, "sqlite naming "+word, fixture.Read(t, p), "*")
		p = fixture.SQLite(t, filepath.Join(t.TempDir(), "other.db"), `CREATE TABLE `+word+` (id INTEGER PRIMARY KEY)`)
		detectOutcome(t, "sqlite table "+word, fixture.Read(t, p), "*")
	}
}

// A UTF-8 BOM before a text input (a file saved by an editor on Windows)
// is read as the input without it, by the same reader, with the same
// dispatches: never refused, never a report that lost the first line's
// dispatch, COMPLETE.
func TestDetectBOM(t *testing.T) {
	for key, b := range fileBases(t) {
		if b.data[0] == 0x1f || bytes.IndexByte(b.data[:min(len(b.data), 512)], 0) >= 0 {
			continue // gzip or binary: a BOM is no part of such a file
		}
		_, want := detectRead(t, key, b.data, readerOf(key), b.opts)
		c, got := detectRead(t, key+" with BOM", append([]byte{0xEF, 0xBB, 0xBF}, b.data...), "*", b.opts)
		if c == nil {
			t.Errorf("%s with a BOM: refused, want the %d dispatches read without it", key, want)
		} else if got != want || c.Source.Format != readerOf(key) {
			t.Errorf("%s with a BOM: got %s, %d dispatches (gaps %s), want %s and the %d read without it", key, c.Source.Format, got, gapKinds(c), readerOf(key), want)
		}
	}
}
