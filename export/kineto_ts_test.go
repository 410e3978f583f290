package export

import (
	"math"
	"path/filepath"
	"testing"
)

// Times further apart than int64 reaches still write exact µs: an
// unfinished dispatch at -2^63 ns makes the base, and a kernel at 200 ns is
// 2^63+200 ns after it. The difference wrapped, and "ts" read like
// -9223371124454638.-829, which no JSON reader takes (found by the output
// sweep, on a kept trace whose stamps passed 2^63).
func TestKinetoTimesFarApart(t *testing.T) {
	for _, c := range []struct {
		name                    string
		at                      *int64
		kernelTS, unfTS, unfDur string
	}{
		{"at -2^63", ptr(int64(math.MinInt64)), "9223372036854776.008", "0.000", "9223372036854777.108"},
		// The negative arm: times close together, as every real capture.
		{"at 5 ns", nil, "0.200", "0.005", "1.295"},
	} {
		dir := t.TempDir()
		in := writeSynth(t, dir, "u.synth", synthSpec{N: 2, Kernels: 1, Unfinished: true, UnfinishedAt: c.at, SourceRank: "0"})
		out := filepath.Join(dir, "u.json")
		run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat})
		evs, _ := decodeKineto(t, read(t, out))
		var kernel, unf *kEvent
		for i, e := range evs {
			switch {
			case e.Cat != nil && *e.Cat == "kernel" && kernel == nil:
				kernel = &evs[i]
			case e.Cat != nil && *e.Cat == "tally_unfinished":
				unf = &evs[i]
			}
		}
		if kernel == nil || unf == nil {
			t.Fatalf("%s: got kernel %v, unfinished %v, want both events", c.name, kernel, unf)
		}
		if got := kernel.Ts.String(); got != c.kernelTS {
			t.Errorf("%s: got the first kernel at ts %s, want %s", c.name, got, c.kernelTS)
		}
		if got, gotDur := unf.Ts.String(), unf.Dur.String(); got != c.unfTS || gotDur != c.unfDur {
			t.Errorf("%s: got the unfinished dispatch at ts %s dur %s, want ts %s dur %s", c.name, got, gotDur, c.unfTS, c.unfDur)
		}
	}
}

func ptr[T any](v T) *T { return &v }
