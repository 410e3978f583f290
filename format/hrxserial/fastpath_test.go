package hrxserial

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// bothPaths reads data with the fast path and without it and fails unless
// the captures and the dispatch streams are the same.
func bothPaths(t *testing.T, data []byte) {
	t.Helper()
	read := func(fast bool) (*capture.Capture, []capture.Dispatch, error) {
		var all capture.Collect
		c, err := readStream(bytes.NewReader(data), "same", catalog.New(), &all, fast)
		return c, all.Dispatches, err
	}
	fc, fd, ferr := read(true)
	gc, gd, gerr := read(false)
	if (ferr == nil) != (gerr == nil) || (ferr != nil && ferr.Error() != gerr.Error()) {
		t.Fatalf("fast path error %v, general path error %v", ferr, gerr)
	}
	if !reflect.DeepEqual(fc, gc) {
		t.Fatalf("fast path capture differs from the general path's:\ngot  %+v\nwant %+v", fc, gc)
	}
	if !reflect.DeepEqual(fd, gd) {
		t.Fatalf("fast path: %d dispatches, general path: %d; got %+v, want %+v", len(fd), len(gd), fd, gd)
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

// fastLine takes exactly the five lines that continue a command, each to
// its '\n', and leaves every other line to the general path.
func TestFastLine(t *testing.T) {
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
	start := func() *state {
		s := newState("t", catalog.New(), capture.Discard)
		for _, l := range bytes.SplitAfter([]byte(head), []byte("\n")) {
			if len(l) > 0 {
				if err := s.line(l[:len(l)-1]); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s
	}
	s := start()
	for i, l := range next {
		if n := s.fastLine([]byte(l + "more")); n != len(l) {
			t.Fatalf("line %d: fastLine took %d bytes, want %d", i+4, n, len(l))
		}
	}
	if s.dispatches != 1 || s.traceLines != 8 || s.timed != 7 || s.untimed != 1 || s.lineNo != 8 {
		t.Fatalf("after the command: %d dispatches, %d trace lines (%d timed, %d untimed), line %d; want 1, 8 (7, 1), 8",
			s.dispatches, s.traceLines, s.timed, s.untimed, s.lineNo)
	}
	// Lines that are not the expected continuation, each after the
	// command's first line: nothing taken, nothing changed.
	for _, l := range []string{
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\r\n", // CR
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + " \n",  // trailing blank
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "",     // no '\n' in the block
		"103 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "9\n",  // longer detail
		"103 hrx debug serial: sync-end phase=command-post-dispatch " + det + "\n",  // wrong phase
		"103 hrx debug serial: begin phase=command-dispatch " + det + "\n",          // skips a line
		"103  hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",  // two blanks
		"103x hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",
		"103xhrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n",                  // not a stamp
		"184467440737095516160 hrx debug serial: sync-end phase=command-pre-dispatch\n",            // 21 digits
		"18446744073709551616 hrx debug serial: sync-end phase=command-pre-dispatch " + det + "\n", // overflow
		"# end=1\n",
	} {
		s := start()
		before := *s
		if n := s.fastLine([]byte(l)); n != 0 || s.lineNo != before.lineNo || s.cmd.stage != before.cmd.stage || s.traceLines != before.traceLines {
			t.Errorf("fastLine(%q) took %d bytes (line %d, stage %d); want 0, nothing changed", l, n, s.lineNo, s.cmd.stage)
		}
	}
	// After the end record every line goes the general way (it counts
	// lines after the end).
	s = start()
	s.end.Seen = true
	if n := s.fastLine([]byte(next[0])); n != 0 {
		t.Errorf("fastLine after the end record took %d bytes, want 0", n)
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
