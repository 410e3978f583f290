package kineto

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
)

// TestSpillLimit: a read whose dispatch log would spill more than
// Options.SpillLimit ends in a *format.Error naming the input, the spill
// file and the limit, and saying how to raise it; no spill file is left
// behind. With room for the spill, the same read succeeds (and spills).
func TestSpillLimit(t *testing.T) {
	var ev []string
	for i := 1; i <= 200; i++ {
		ts := fmt.Sprint(1000 * i)
		ev = append(ev, call("cudaLaunchKernel", fmt.Sprint(i), ts, "5"), kernel("k", fmt.Sprint(i), fmt.Sprint(1000*i+10), "5"))
	}
	data := trace(ev)
	cfg := config{bufSize: 1 << 10, logRecords: 8, tmpDir: t.TempDir()}
	// 200 records, 8 in memory: about 192 spilled, drecSize bytes each.
	_, err := readFrom(strings.NewReader(data), "big.json", &format.Options{SpillLimit: 20 * drecSize}, nil, cfg)
	var fe *format.Error
	var sl *format.SpillLimitError
	if !errors.As(err, &fe) || !errors.As(err, &sl) || fe.Path != "big.json" || sl.Limit != 20*drecSize {
		t.Fatalf("got %v, want a *format.Error for big.json wrapping a *format.SpillLimitError of %d bytes", err, 20*drecSize)
	}
	for _, want := range []string{"big.json", sl.File, "spill limit of 1.4 KiB (1460 bytes)", "--spill-limit", "TMPDIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got error %q, want it to say %q", err, want)
		}
	}
	if left, _ := os.ReadDir(cfg.tmpDir); len(left) != 0 {
		t.Errorf("got %v left in TMPDIR, want nothing", left)
	}
	// Negative arm: a limit the spill fits under, and none.
	for _, limit := range []int64{200 * drecSize, 0} {
		res := readWith(t, data, &format.Options{SpillLimit: limit}, cfg)
		if v, ok := field(res.c, "launch linkage", "device records spilled to a temporary file"); !ok || v.(int64) == 0 || len(res.disp) != 200 {
			t.Errorf("limit %d: %d dispatches, spilled %v; want 200 and a spill", limit, len(res.disp), v)
		}
	}
}
