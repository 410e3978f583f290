package layers

import (
	"math"
	"path/filepath"
	"runtime"
	"testing"
)

// A header or sidecar saying shape (1, N) makes one row of the whole file:
// each side's row buffers were the size of the file (and its float64
// decoding twice that), per worker. Rows wider than maxPiece are now read
// in pieces: memory stays small whatever the header says, and the figures
// are those of the same values read as narrow rows.
func TestWideRowStreamsInPieces(t *testing.T) {
	const n = 1<<21 + 1000 // 8 MiB per side (the old buffers took 24 MiB), no multiple of maxPiece: the last piece straddles blocks
	ref, ours := t.TempDir(), t.TempDir()
	v := func(i int) float64 { return math.Sin(float64(i) * 0.001) }
	w := func(i int) float64 { return v(i) + 1e-3*math.Cos(float64(i)*0.37) }
	for _, d := range []struct {
		dir string
		f   func(int) float64
	}{{ref, v}, {ours, w}} {
		writeNpy(t, filepath.Join(d.dir, "layer_0.npy"), 1, "<f4", []int{1, n}, d.f)
		writeNpy(t, filepath.Join(d.dir, "layer_1.npy"), 1, "<f4", []int{n / 8, 8}, d.f)
	}
	rt, err := openTensor(filepath.Join(ref, "layer_0.npy"), 0)
	if err != nil {
		t.Fatal(err)
	}
	ot, err := openTensor(filepath.Join(ours, "layer_0.npy"), 0)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wide, rs, _, err := compare(rt, ot, n)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("comparing a (1, %d) pair: got %d bytes allocated, want under 4 MiB (pieces, not the whole row)", n, got)
	}
	rep := run(t, ref, ours, Options{})
	narrow := byLayer(rep, 1).Metrics
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if wide.Rows != 1 || wide.FinitePairs != n || !near(*wide.Cosine, *narrow.Cosine) || !near(*wide.RelL2, *narrow.RelL2) ||
		*wide.MaxAbsDiff != *narrow.MaxAbsDiff || !near(*wide.RowCosineMin, *wide.Cosine) {
		t.Errorf("wide row: got cosine %v rel L2 %v max |diff| %v row minimum %v, want the narrow rows' %v %v %v and the row minimum = cosine",
			*wide.Cosine, *wide.RelL2, *wide.MaxAbsDiff, *wide.RowCosineMin, *narrow.Cosine, *narrow.RelL2, *narrow.MaxAbsDiff)
	}
	var sum, mx float64
	for i := 0; i < n; i++ {
		a := math.Abs(float64(float32(v(i))))
		sum += a
		mx = max(mx, a)
	}
	if rs.Row0MeanAbs == nil || !near(*rs.Row0MeanAbs, sum/n) || *rs.Row0AbsMax != mx {
		t.Errorf("row 0 over pieces: got mean %v max %v, want %v %v", rs.Row0MeanAbs, rs.Row0AbsMax, sum/n, mx)
	}
}

// Half-precision rows a little wider than maxPiece: a block holds two
// pieces, so the short last piece of row 0 leaves the start of row 1
// straddling two blocks. Its figures are those of the same values read as
// narrow rows.
func TestWideRowPieceStraddlesBlocks(t *testing.T) {
	const w, rows = maxPiece + 5, 3
	ref, ours := t.TempDir(), t.TempDir()
	v := func(i int) float64 { return math.Sin(float64(i) * 0.001) }
	u := func(i int) float64 { return v(i) + 0.01*math.Cos(float64(i)*0.37) }
	for _, d := range []struct {
		dir string
		f   func(int) float64
	}{{ref, v}, {ours, u}} {
		writeNpy(t, filepath.Join(d.dir, "layer_0.npy"), 1, "<f2", []int{rows, w}, d.f)
		writeNpy(t, filepath.Join(d.dir, "layer_1.npy"), 1, "<f2", []int{rows * w}, d.f)
	}
	rep := run(t, ref, ours, Options{})
	wide, flat := byLayer(rep, 0).Metrics, byLayer(rep, 1).Metrics
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if wide.Rows != rows || wide.FinitePairs != rows*w || !near(*wide.Cosine, *flat.Cosine) || !near(*wide.RelL2, *flat.RelL2) || *wide.MaxAbsDiff != *flat.MaxAbsDiff {
		t.Errorf("rows of %d: got cosine %v rel L2 %v max |diff| %v over %d, want the figures read flat: %v %v %v", w,
			*wide.Cosine, *wide.RelL2, *wide.MaxAbsDiff, wide.FinitePairs, *flat.Cosine, *flat.RelL2, *flat.MaxAbsDiff)
	}
}
