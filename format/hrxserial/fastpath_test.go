package hrxserial

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// bothPaths reads data the general way, one line after the other in one
// block, and fails unless every other way reads the same captures and
// dispatch streams: the continuations applied from the scan workers'
// tokens or not, in blocks that cut lines anywhere, by one worker or
// several.
func bothPaths(t *testing.T, data []byte) {
	t.Helper()
	read := func(o readOptions) (*capture.Capture, []capture.Dispatch, error) {
		var all capture.Collect
		c, err := readStream(bytes.NewReader(data), "same", catalog.New(), &all, o)
		return c, all.Dispatches, err
	}
	gc, gd, gerr := read(readOptions{})
	for _, o := range []readOptions{
		{fast: true},
		{fast: true, blockSize: 61, workers: 3},
		{fast: true, blockSize: 509, workers: 2},
		{fast: false, blockSize: 509, workers: 2},
		{fast: true, blockSize: 4096, workers: 1},
	} {
		fc, fd, ferr := read(o)
		if (ferr == nil) != (gerr == nil) || (ferr != nil && ferr.Error() != gerr.Error()) {
			t.Fatalf("%+v: got error %v, want the general path's %v", o, ferr, gerr)
		}
		if !reflect.DeepEqual(fc, gc) {
			t.Fatalf("%+v: capture differs from the general path's:\ngot  %+v\nwant %+v", o, fc, gc)
		}
		if !reflect.DeepEqual(fd, gd) {
			t.Fatalf("%+v: %d dispatches, general path: %d; got %+v, want %+v", o, len(fd), len(gd), fd, gd)
		}
	}
}

// mutate changes a few lines of a trace the ways real files go wrong: a
// line lost, repeated or swapped, a CR, a changed byte, a trailing blank, a
// stamp dropped or too long, an end record in the middle, a cut.
func mutate(data []byte, rng *rand.Rand) []byte {
	lines := bytes.Split(data, []byte("\n"))
	for n := 1 + rng.Intn(6); n > 0 && len(lines) > 3; n-- {
		i := 1 + rng.Intn(len(lines)-2)
		l := append([]byte{}, lines[i]...)
		switch rng.Intn(10) {
		case 0:
			lines = append(lines[:i], lines[i+1:]...)
		case 1:
			lines = append(lines[:i+1], lines[i:]...)
		case 2:
			lines[i], lines[i+1] = lines[i+1], lines[i]
		case 3:
			lines[i] = append(l, '\r')
		case 4:
			if len(l) > 0 {
				l[rng.Intn(len(l))] = "0 9=x\r"[rng.Intn(6)]
				lines[i] = l
			}
		case 5:
			lines[i] = append(l, ' ')
		case 6:
			if _, rest, ok := bytes.Cut(l, []byte(" ")); ok {
				lines[i] = rest
			}
		case 7:
			if _, rest, ok := bytes.Cut(l, []byte(" ")); ok {
				lines[i] = append([]byte("99999999999999999999999 "), rest...)
			}
		case 8:
			lines[i] = []byte("# end=1 status=0")
		case 9:
			lines = append(lines[:i+1], lines[i:]...)
			lines[i] = nil
		}
	}
	out := bytes.Join(lines, []byte("\n"))
	if rng.Intn(5) == 0 {
		out = out[:rng.Intn(len(out))]
	}
	return out
}

// The fast path changes nothing but the speed: generated traces of every
// kind, and a few hundred damaged ones, read the same with and without it.
func TestFastPathSame(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, opt := range []hrxgen.Options{
		{Seed: 1, Decode: 3, Prefill: 1},
		{Seed: 2, Decode: 2, Raw: true},
		{Seed: 3, Decode: 2, End: hrxgen.EndCut},
		{Seed: 4, Decode: 2, End: hrxgen.EndFault},
		{Seed: 5, Decode: 3, FailRun: 2, Foreign: 5, UnnamedKernel: true},
		{Seed: 6, Decode: 2, FilterStart: 5},
	} {
		var b bytes.Buffer
		if _, err := hrxgen.Write(&b, opt); err != nil {
			t.Fatal(err)
		}
		bothPaths(t, b.Bytes())
		for i := 0; i < 50; i++ {
			bothPaths(t, mutate(b.Bytes(), rng))
		}
	}
}

// scan marks exactly the five lines that continue a command, each to its
// '\n', with the command's first line as their reference, and leaves every
// other line to the general path; replay applies them from their tokens,
// and not after the end record.
func TestScanContinuations(t *testing.T) {
	const det = "list=main index=0 list_commands=1 ordinal=0 kind=Kernel kernel_id=7 bindings=3"
	head := "100 hrx debug serial: begin phase=command-program main_commands=1 init_commands=0 transient_arena=0\n" +
		"101 hrx debug serial: begin phase=command-list list=main list_commands=1 main_commands=1\n" +
		"102 hrx debug serial: sync-begin phase=command-pre-dispatch " + det + "\n"
	next := []string{
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",
		"104 hrx debug serial: begin phase=command-dispatch " + det + "\n",
		"hrx debug serial: end phase=command-dispatch " + det + "\n", // untimed
		"106 hrx debug serial: sync-begin phase=command-post-dispatch " + det + "\n",
		"107 hrx debug serial: sync-end phase=command-post-dispatch " + det + "\n",
	}
	// A block starts after its first '\n': "x\n" is the end of a line
	// begun in the block before.
	block := "x\n" + head + strings.Join(next, "")
	_, _, toks, ps := newScanner(true).scan([]byte(block), nil, nil)
	if len(toks) != 8 || len(ps) != 3 {
		t.Fatalf("%d tokens, %d parsed; want 8, 3", len(toks), len(ps))
	}
	for i, tk := range toks[:2] {
		if tk.ref != int32(i) || tk.form != contEvent || ps[i].ph != []phase{phProgram, phList}[i] || !ps[i].ok {
			t.Errorf("head line %d: ref %d, form %d, phase %d; want %d, %d, %d", i+1, tk.ref, tk.form, ps[i].ph, i, contEvent, []phase{phProgram, phList}[i])
		}
	}
	if tk := toks[2]; tk.form != contWhole || tk.ref != 2 || ps[2].d.kernelID != 7 || !tk.timed || tk.t != 102 {
		t.Errorf("the command's first line: form %d, ref %d, kernel_id %d, t %d; want %d, 2, 7, 102", tk.form, tk.ref, ps[2].d.kernelID, tk.t, contWhole)
	}
	for i, tk := range toks[3:] {
		wantT := uint64(103 + i)
		if tk.ref != 2 || tk.form != cont(i+1) || tk.timed != (i != 2) || (tk.timed && tk.t != wantT) {
			t.Errorf("line %d: ref %d, form %d, timed %v, t %d; want 2, %d, %v, %d", i+4, tk.ref, tk.form, tk.timed, tk.t, i+1, i != 2, wantT)
		}
	}
	start := func() (*state, []tok, int) {
		s := newState("t", catalog.New(), capture.Discard)
		_, _, toks, ps := newScanner(true).scan([]byte(block), nil, nil)
		if err := s.replay([]byte(block), 2, toks[:3], ps, true); err != nil {
			t.Fatal(err)
		}
		return s, toks[3:], 2 + len(head)
	}
	s, rest, at := start()
	if err := s.replay([]byte(block), at, rest, nil, true); err != nil {
		t.Fatal(err)
	}
	if s.dispatches != 1 || s.traceLines != 8 || s.timed != 7 || s.untimed != 1 || s.lineNo != 8 {
		t.Fatalf("after the command: %d dispatches, %d trace lines (%d timed, %d untimed), line %d; want 1, 8 (7, 1), 8",
			s.dispatches, s.traceLines, s.timed, s.untimed, s.lineNo)
	}
	// Lines that are not the expected continuation, each after the
	// command's first line: no continuation (the general path's, or a
	// line of another phase).
	for _, l := range []string{
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\r\n", // CR
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + " \n",  // trailing blank
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "9\n",  // longer detail
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det[1:] + "\n",
		"103 hrx debug serial: sync-end phase=command-pre-dispatch\n",              // no detail
		"103 hrx debug serial: sync-end phase=command-mid-dispatch " + det + "\n",  // unknown phase
		"103  hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n", // two blanks
		"103x hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",
		"103xhrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",                  // not a stamp
		"184467440737095516160 hrx debug serial: sync-end phase=command-pre-dispatch\n",            // 21 digits
		"18446744073709551616 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n", // overflow
		"# end=1\n",
	} {
		_, _, toks, _ := newScanner(true).scan([]byte("x\n"+head+l), nil, nil)
		if tk := toks[len(toks)-1]; tk.form != 0 && tk.form < contStart {
			t.Errorf("scan(%q): form %d (ref %d), want no continuation", l, tk.form, tk.ref)
		}
	}
	// A line the state does not expect, though its token says it
	// continues the command (one skipped), goes the general way: counted
	// as out of order.
	s, rest, at = start()
	if err := s.replay([]byte(block), at+len(next[0]), rest[1:], nil, true); err != nil {
		t.Fatal(err)
	}
	if s.inconsistent == nil || s.dispatches != 0 {
		t.Errorf("a skipped line: inconsistency %v, %d dispatches; want a gap, 0", s.inconsistent, s.dispatches)
	}
	// After the end record every line goes the general way (it counts
	// lines after the end).
	s, rest, at = start()
	s.end.Seen = true
	if err := s.replay([]byte(block), at, rest[:1], nil, true); err != nil {
		t.Fatal(err)
	}
	if s.end.After != 1 {
		t.Errorf("a continuation after the end record: %d lines after it counted, want 1", s.end.After)
	}
}

// FuzzFastPath: any input reads the same with and without the fast path.
func FuzzFastPath(f *testing.F) {
	var b bytes.Buffer
	if _, err := hrxgen.Write(&b, hrxgen.Options{Seed: 1, Decode: 1}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes()[:min(b.Len(), 4000)])
	f.Fuzz(func(t *testing.T, data []byte) { bothPaths(t, data) })
}

// Trace lines of phases this reader does not know, with and without a
// detail, repeated (the scan workers look them up by their text), read the
// same both ways: their names are counted, and their syncs paired, by
// where the scan found the name.
func TestFastPathUnknownPhases(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 hrx debug serial: begin phase=command-program main_commands=1 init_commands=0 transient_arena=0\n")
	for i := 0; i < 3; i++ {
		b.WriteString("2 hrx debug serial: begin phase=warm-up\n" +
			"3 hrx debug serial: sync-begin phase=host-staging-rebind-pre\n" +
			"4 hrx debug serial: sync-end phase=host-staging-rebind-pre\n" +
			"5 hrx debug serial: sync-begin phase=cool-down a=1\n" +
			"6 hrx debug serial: sync-end phase=cool-down a=1\n" +
			"7 hrx debug serial: sync-begin phase=command-pre-dispatchx\n" +
			"8 hrx debug serial: sync-end phase=command-pre-dispatchx\n" +
			"9 hrx debug serial: end phase=warm-up-too\n")
	}
	b.WriteString("10 hrx debug serial: end phase=command-program main_commands=1 init_commands=0 transient_arena=0\n")
	bothPaths(t, []byte(b.String()))
}

// scan marks a traced command's first line whole (contWhole) only when the
// next five lines of its block are its five continuations in order; replay
// then applies the six at once, and they read as the general path reads
// them: under a header whose clock is not monotonic ns, with a stamp that
// goes back inside the command, after a sync left open.
func TestScanWhole(t *testing.T) {
	const det = " list=main index=0 list_commands=1 ordinal=0 kind=Kernel kernel_id=7 bindings=3"
	head := "100 hrx debug serial: begin phase=command-program main_commands=1 init_commands=0 transient_arena=0\n" +
		"101 hrx debug serial: begin phase=command-list list=main list_commands=1 main_commands=1\n"
	lines := func(det string, stamps ...int) []string {
		var l []string
		for i, text := range []string{"sync-begin phase=command-pre-dispatch", "sync-end phase=command-pre-dispatch",
			"begin phase=command-dispatch", "end phase=command-dispatch",
			"sync-begin phase=command-post-dispatch", "sync-end phase=command-post-dispatch"} {
			l = append(l, fmt.Sprintf("%d hrx debug serial: %s%s\n", stamps[i], text, det))
		}
		return l
	}
	whole := lines(det, 102, 103, 104, 105, 106, 107)
	for _, c := range []struct {
		name  string
		lines []string
		want  cont
	}{
		{"the six lines", whole, contWhole},
		{"untraced", lines("", 102, 103, 104, 105, 106, 107), contStart},
		{"a foreign line among them", append(append(append([]string{}, whole[:3]...), "foreign\n"), whole[3:]...), contStart},
		{"the last one missing", whole[:5], contStart},
		{"two swapped", append(append(append([]string{}, whole[:1]...), whole[2], whole[1]), whole[3:]...), contStart},
		{"one repeated", append(append([]string{}, whole[:2]...), whole[1:]...), contStart},
	} {
		_, _, toks, _ := newScanner(true).scan([]byte("x\n"+head+strings.Join(c.lines, "")), nil, nil)
		if got := toks[2].form; got != c.want {
			t.Errorf("%s: the command's first line has form %d, want %d", c.name, got, c.want)
		}
	}
	for _, header := range []string{"", "# tally kept trace v1 clock=monotonic unit=ns\n", "# tally kept trace v1 clock=realtime unit=ns\n"} {
		for _, cmd := range [][]string{whole, lines(det, 102, 103, 99, 105, 101, 107), lines(det, 102, 103, 104, 105, 106, 1)} {
			open := header + head + "90 hrx debug serial: sync-begin phase=cool-down\n" + strings.Join(cmd, "")
			bothPaths(t, []byte(header+head+strings.Join(cmd, "")+strings.Join(cmd, "")))
			bothPaths(t, []byte(open))
		}
	}
}
