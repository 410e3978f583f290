package kineto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// guessed and unguessed reads of the same trace must agree.
func sameGuessed(t testing.TB, data string) {
	t.Helper()
	cfg := defaultConfig
	want := readWith(t, data, nil, config{bufSize: cfg.bufSize, logRecords: cfg.logRecords, noGuess: true})
	got := readWith(t, data, nil, cfg)
	if d := diffResults(want, got); d != "" {
		t.Fatalf("key guesses: got a result that differs from the read without, want the same: %s", d)
	}
	if a, b := fmt.Sprint(want.c.Inventory), fmt.Sprint(got.c.Inventory); a != b {
		t.Fatalf("key guesses: got inventory\n%s\nwant the one without\n%s", b, a)
	}
}

// The key guesses change nothing but the speed: every sample, and a
// generated trace, reads the same with them and without.
func TestGuessSame(t *testing.T) {
	for _, path := range samples(t) {
		if testing.Short() && strings.Contains(path, "mtia") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) { sameGuessed(t, string(decompress(t, path))) })
	}
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 3, TargetBytes: 2 << 20}); err != nil {
		t.Fatal(err)
	}
	sameGuessed(t, b.String())
}

// Near misses of a learned key: another key with the same start, other
// blanks, an escaped key, a key too long to guess, a value that is not
// where the guess puts it. Each event must be read as if nothing had been
// guessed, and the guess must still work after them.
func TestGuessNearMisses(t *testing.T) {
	n := 0
	ev := func(sep, rest string) string {
		n++
		return fmt.Sprintf(`{"ph": "X",`+sep+rest+`, "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": %d}}`, 10*n, n)
	}
	var events []string
	for _, e := range []string{
		ev(" ", `"cat": "kernel"`),
		ev(" ", `"cat": "kernel"`), // guessed
		ev(" ", `"cats": "kernel"`),
		ev("  ", `"cat": "kernel"`),
		ev(" ", `"cat" : "kernel"`),
		ev(" ", `"cat":"kernel"`),
		ev(" ", `"c\u0061t": "kernel"`),
		ev(" ", `"cat":  "kernel"`),
		ev(" ", `"cat": "kernel"`),
		ev("\n          ", `"cat": "kernel"`),
		ev(" ", `"categories of this event": "kernel"`),
		ev(" ", `"cat": "kernel"`),
	} {
		events = append(events, e)
	}
	for i := range n {
		events = append(events, fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 1, "args": {"correlation": %d}}`, 10*i+9, i+1))
	}
	data := `{"traceEvents": [` + strings.Join(events, ",\n") + `]}`
	sameGuessed(t, data)
	r := readWith(t, data, nil, defaultConfig)
	if len(r.disp) != 10 {
		t.Fatalf("got %d dispatches, want 10 (every kernel event; the two without a cat key have no category)", len(r.disp))
	}
}

// FuzzGuess: any input reads the same with the key guesses and without.
func FuzzGuess(f *testing.F) {
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 1, TargetBytes: 64 << 10}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes()[:min(b.Len(), 6000)])
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := defaultConfig
		cfg.noGuess = true
		want, werr := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{}, nil, cfg)
		got, gerr := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{}, nil, defaultConfig)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("got error %v with guesses, %v without; want both or neither", gerr, werr)
		}
		if werr == nil && (!reflect.DeepEqual(want.Accounting, got.Accounting) || !reflect.DeepEqual(want.Inventory, got.Inventory)) {
			t.Fatalf("key guesses: got a read whose accounting or inventory differs from the one without, want the same; inventories:\n%v\nvs\n%v", got.Inventory, want.Inventory)
		}
	})
}

// learn takes the text the general path consumed only when it is still in
// the buffer as it was read: with any buffer size, what it learns is the
// key's text as written, or nothing (a key read across a refill).
func TestLearn(t *testing.T) {
	// A key long enough that, refilled, the general path ends past where
	// it began in the moved buffer.
	const text = `, "a_longer_key": `
	learned := 0
	for size := 16; size <= 80; size++ {
		s := newScanner(strings.NewReader(`{"ph": "X"`+text+`"kernel", "name": "k"}`), size)
		if _, _, more := s.objectFirst(); !more {
			t.Fatal("got no first key, want \"ph\"")
		}
		if _, ok := s.oneChar(); !ok {
			t.Fatal("got a ph value that is not one character, want \"X\"")
		}
		var g keyGuess
		start, off := s.pos, s.off
		k, esc, _ := s.nextMember()
		s.learn(&g, start, off, k, esc, ekOther)
		if g.n == 0 {
			continue
		}
		learned++
		var w [guessLen]byte
		copy(w[:], text)
		if g.n != len(text) || g.w[0] != binary.LittleEndian.Uint64(w[:]) || g.w[1]&g.m[1] != binary.LittleEndian.Uint64(w[8:])&g.m[1] ||
			string(g.key[:g.klen]) != "a_longer_key" || g.id != ekOther {
			t.Errorf("buffer %d: learned %d bytes %x %x, key %q id %d; want %q, key a_longer_key, id %d", size, g.n, g.w[0], g.w[1], g.key[:g.klen], g.id, text, ekOther)
		}
	}
	if learned == 0 {
		t.Fatal("got nothing learned with any buffer size, want the key learned with some")
	}
}
