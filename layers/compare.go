package layers

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// flatChunk is the piece a flat (H unknown) pair is streamed in.
const flatChunk = 4096

// maxPiece bounds the values read at once: a row wider than this (a
// header or sidecar saying shape (1, N) over a big file) is streamed in
// pieces, so memory does not grow with what a header says.
const maxPiece = 1 << 16

// SideStats are one side's facts about one layer.
type SideStats struct {
	File string `json:"file"`
	// Kind is "f32" (a raw dump) or "npy"; DType the element type.
	Kind  string  `json:"kind"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape,omitempty"`
	Bytes int64   `json:"bytes"`
	NaN   int64   `json:"nan"`
	Inf   int64   `json:"inf"`
	// Row0MeanAbs and Row0AbsMax are mean|x| and max|x| of row 0 (position
	// 0), what the engine's [L] line prints; over the first H values.
	Row0MeanAbs *float64 `json:"row0_mean_abs,omitempty"`
	Row0AbsMax  *float64 `json:"row0_absmax,omitempty"`
	// Row0NaN and Row0Inf count row 0's non-finite values: then its
	// mean|x| and max|x| are not numbers (absent above).
	Row0NaN int64 `json:"row0_nan,omitempty"`
	Row0Inf int64 `json:"row0_inf,omitempty"`
}

// Metrics compare one layer's two tensors.
type Metrics struct {
	Values int64 `json:"values"`
	// Rows and H are the shape compared; H 0 means unknown (compared as a
	// flat vector, no per-row figures).
	Rows int64 `json:"rows"`
	H    int64 `json:"h"`
	// Cosine, MaxAbsDiff and RelL2 (‖ours−ref‖/‖ref‖) cover the pairs where
	// both values are finite (FinitePairs); nil when undefined (RelL2 of a
	// zero reference with a non-zero difference, MaxAbsDiff past the
	// largest float64).
	Cosine      *float64 `json:"cosine"`
	MaxAbsDiff  *float64 `json:"max_abs_diff"`
	RelL2       *float64 `json:"rel_l2"`
	FinitePairs int64    `json:"finite_pairs"`
	// RowCosineMin is the lowest per-row (per-token) cosine and its row;
	// nil when H is unknown.
	RowCosineMin    *float64 `json:"row_cosine_min"`
	RowCosineMinRow int64    `json:"row_cosine_min_row"`
	// Overflow is true when finite values (a <f8 .npy holding numbers
	// past about 1e154) made a sum or a difference overflow float64: the
	// figures it touched are null, and the layer is unmeasured.
	Overflow bool `json:"overflow,omitempty"`
}

// rowReader streams a tensor's values a block of rows at a time, read
// straight into one buffer (no copy through a bufio layer): memory is one
// block (about 256 KiB, at least one row) and one decoded row.
type rowReader struct {
	t     *tensor
	f     *os.File
	raw   []byte // the block
	pos   int    // next unread byte of the block
	end   int    // bytes in the block
	left  int64  // bytes of the tensor not yet read into a block
	row   []float64
	width int64
}

const blockBytes = 256 << 10

func newRowReader(t *tensor, width int64) (*rowReader, error) {
	f, err := os.Open(t.path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	rowBytes := width * t.dtype.size()
	block := max(blockBytes/rowBytes, 1) * rowBytes
	return &rowReader{t: t, f: f, raw: make([]byte, block), left: t.values * t.dtype.size(),
		row: make([]float64, width), width: width}, nil
}

// nextRaw returns the bytes of the next n values (n ≤ width). A piece may
// straddle blocks (the last piece of a row wider than maxPiece is short):
// the unread rest of the block moves to its front before the next read.
func (r *rowReader) nextRaw(n int64) ([]byte, error) {
	size := int(n * r.t.dtype.size())
	if r.pos+size > r.end {
		rest := copy(r.raw, r.raw[r.pos:r.end])
		want := min(int64(len(r.raw)-rest), r.left)
		if _, err := io.ReadFull(r.f, r.raw[rest:rest+int(want)]); err != nil {
			return nil, fmt.Errorf("%s: reading values: %w (the file changed while being read?)", r.t.path, err)
		}
		r.left -= want
		r.pos, r.end = 0, rest+int(want)
	}
	b := r.raw[r.pos : r.pos+size]
	r.pos += size
	return b, nil
}

// values decodes raw into the reader's row.
func (r *rowReader) values(raw []byte) []float64 {
	n := int64(len(raw)) / r.t.dtype.size()
	decode(r.t.dtype, raw, r.row[:n])
	return r.row[:n]
}

// compare streams the two tensors of a layer side by side. h is the row
// width both agree on (0: unknown, compared flat).
func compare(ref, ours *tensor, h int64) (m Metrics, rs, os_ SideStats, err error) {
	width := h
	if width <= 0 {
		width = flatChunk
	}
	width = max(min(width, ref.values), 1)
	piece := min(width, maxPiece)
	a, err := newRowReader(ref, piece)
	if err != nil {
		return m, rs, os_, err
	}
	defer a.f.Close()
	b, err := newRowReader(ours, piece)
	if err != nil {
		return m, rs, os_, err
	}
	defer b.f.Close()

	m.Values, m.H = ref.values, max(h, 0)
	if h > 0 {
		m.Rows = ref.values / h
	}
	var dot, na, nb, d2, maxd float64
	rowMin, rowMinAt := math.Inf(1), int64(-1)
	rowOverflow := false // a row's cosine overflowed: no row minimum stands
	var r0a, r0b row0Sums
	for done, row := int64(0), int64(0); done < ref.values; row++ {
		n := min(width, ref.values-done)
		var s sums
		for got := int64(0); got < n; {
			k := min(piece, n-got)
			xb, err := a.nextRaw(k)
			if err != nil {
				return m, rs, os_, err
			}
			yb, err := b.nextRaw(k)
			if err != nil {
				return m, rs, os_, err
			}
			if row == 0 {
				r0a.add(a.values(xb))
				r0b.add(b.values(yb))
			}
			s.merge(pieceSums(ref, ours, a, b, xb, yb, &rs, &os_))
			got += k
		}
		if row == 0 {
			rs.Row0MeanAbs, rs.Row0AbsMax, rs.Row0NaN, rs.Row0Inf = r0a.result()
			os_.Row0MeanAbs, os_.Row0AbsMax, os_.Row0NaN, os_.Row0Inf = r0b.result()
		}
		dot += s.dot
		na += s.na
		nb += s.nb
		d2 += s.d2
		maxd = max(maxd, s.maxd)
		m.FinitePairs += s.finite
		if h > 0 && s.finite > 0 {
			c := cosine(s.dot, s.na, s.nb)
			switch {
			case s.maxd == 0:
				c = 1 // equal rows, also when their norms overflow
			case bad(c):
				rowOverflow = true
			}
			if c < rowMin {
				rowMin, rowMinAt = c, row
			}
		}
		done += n
	}
	if maxd == 0 {
		// Equal on every finite pair: cosine 1 and no error, also when the
		// norms overflow.
		dot, na, nb, d2 = 1, 1, 1, 0
	}
	// Finite values whose sums are not: only a <f8 file can hold them.
	m.Overflow = m.FinitePairs > 0 && (bad(dot) || bad(na) || bad(nb) || bad(d2) || bad(maxd) || rowOverflow)
	if m.FinitePairs > 0 {
		c := cosine(dot, na, nb)
		m.Cosine = &c
		switch {
		case na > 0:
			r := math.Sqrt(d2 / na)
			m.RelL2 = &r
		case d2 == 0:
			r := 0.0
			m.RelL2 = &r
		}
	}
	if m.FinitePairs > 0 {
		m.MaxAbsDiff = finite(maxd) // none over no pairs: 0 would read as agreement
	}
	if rowMinAt >= 0 && !rowOverflow {
		m.RowCosineMin, m.RowCosineMinRow = &rowMin, rowMinAt
	}
	return m, rs, os_, nil
}

type sums struct {
	dot, na, nb, d2, maxd float64
	finite                int64
}

func (s *sums) merge(o sums) {
	s.dot += o.dot
	s.na += o.na
	s.nb += o.nb
	s.d2 += o.d2
	s.maxd = max(s.maxd, o.maxd)
	s.finite += o.finite
}

// pieceSums sums one piece of a row: the fast path, then, when a sum is not
// finite, again over the pairs both finite, counting the others per side.
func pieceSums(ref, ours *tensor, a, b *rowReader, xb, yb []byte, rs, os_ *SideStats) sums {
	var s sums
	if ref.dtype == f32 && ours.dtype == f32 {
		s = sumsF32(xb, yb) // the common case, without a decoded copy
	} else {
		s = sumsOf(a.values(xb), b.values(yb))
	}
	if bad(s.na) || bad(s.nb) || bad(s.d2) {
		return finiteSums(a.values(xb), b.values(yb), rs, os_)
	}
	s.finite = int64(len(xb)) / ref.dtype.size()
	return s
}

// sumsOf is the fast path: every value finite (the caller checks the sums
// and falls back to finiteSums). Two interleaved sets of accumulators keep
// the floating-point adds from waiting on each other, and the absolute
// difference is taken without a branch: random signs mispredict.
func sumsOf(x, y []float64) sums {
	y = y[:len(x)]
	var dot0, dot1, na0, na1, nb0, nb1, d20, d21, m0, m1 float64
	n := len(x) &^ 1
	for i := 0; i < n; i += 2 {
		a0, b0, a1, b1 := x[i], y[i], x[i+1], y[i+1]
		e0, e1 := a0-b0, a1-b1
		dot0 += a0 * b0
		dot1 += a1 * b1
		na0 += a0 * a0
		na1 += a1 * a1
		nb0 += b0 * b0
		nb1 += b1 * b1
		d20 += e0 * e0
		d21 += e1 * e1
		if e0 = math.Abs(e0); e0 > m0 {
			m0 = e0
		}
		if e1 = math.Abs(e1); e1 > m1 {
			m1 = e1
		}
	}
	if n < len(x) {
		a, b := x[n], y[n]
		e := a - b
		dot0 += a * b
		na0 += a * a
		nb0 += b * b
		d20 += e * e
		m0 = max(m0, math.Abs(e))
	}
	return sums{dot: dot0 + dot1, na: na0 + na1, nb: nb0 + nb1, d2: d20 + d21, maxd: max(m0, m1)}
}

// sumsF32 is sumsOf over two rows of raw little-endian float32, four
// pairs per step: four sets of accumulators hide the add latency.
func sumsF32(xb, yb []byte) sums {
	n := len(xb) / 4
	xb, yb = xb[:4*n], yb[:4*n]
	var acc [4]struct{ dot, na, nb, d2, m float64 }
	i := 0
	for ; i+16 <= len(xb); i += 16 {
		x, y := xb[i:i+16], yb[i:i+16]
		for k := range 4 {
			a := float64(math.Float32frombits(binary.LittleEndian.Uint32(x[4*k:])))
			b := float64(math.Float32frombits(binary.LittleEndian.Uint32(y[4*k:])))
			e := a - b
			c := &acc[k]
			c.dot += a * b
			c.na += a * a
			c.nb += b * b
			c.d2 += e * e
			if e = math.Abs(e); e > c.m {
				c.m = e
			}
		}
	}
	for ; i < len(xb); i += 4 {
		a := float64(math.Float32frombits(binary.LittleEndian.Uint32(xb[i:])))
		b := float64(math.Float32frombits(binary.LittleEndian.Uint32(yb[i:])))
		e := a - b
		c := &acc[0]
		c.dot += a * b
		c.na += a * a
		c.nb += b * b
		c.d2 += e * e
		c.m = max(c.m, math.Abs(e))
	}
	var s sums
	for _, c := range acc {
		s.dot += c.dot
		s.na += c.na
		s.nb += c.nb
		s.d2 += c.d2
		s.maxd = max(s.maxd, c.m)
	}
	return s
}

// finiteSums counts non-finite values per side and sums the finite pairs.
func finiteSums(x, y []float64, rs, os_ *SideStats) (s sums) {
	for i, a := range x {
		b := y[i]
		fa, fb := count(a, rs), count(b, os_)
		if !fa || !fb {
			continue
		}
		d := a - b
		s.dot += a * b
		s.na += a * a
		s.nb += b * b
		s.d2 += d * d
		s.maxd = max(s.maxd, math.Abs(d))
		s.finite++
	}
	return s
}

func count(v float64, st *SideStats) bool {
	switch {
	case math.IsNaN(v):
		st.NaN++
	case math.IsInf(v, 0):
		st.Inf++
	default:
		return true
	}
	return false
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

func cosine(dot, na, nb float64) float64 {
	switch {
	case na == 0 && nb == 0:
		return 1
	case na == 0 || nb == 0:
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// row0 is mean|x| and max|x| over a row, as the engine's [L] line prints
// them, and the row's NaN and Inf counts; nil when the row holds a
// non-finite value.
func row0(x []float64) (mean, absmax *float64, nan, inf int64) {
	var r row0Sums
	r.add(x)
	return r.result()
}

// row0Sums gathers row0's figures over the pieces of a wide row.
type row0Sums struct {
	sum, mx  float64
	n        int64
	nan, inf int64
}

func (r *row0Sums) add(x []float64) {
	for _, v := range x {
		switch {
		case math.IsNaN(v):
			r.nan++
		case math.IsInf(v, 0):
			r.inf++
		}
		a := math.Abs(v)
		r.sum += a
		r.mx = max(r.mx, a)
	}
	r.n += int64(len(x))
}

func (r *row0Sums) result() (mean, absmax *float64, nan, inf int64) {
	if r.nan+r.inf > 0 || bad(r.sum) || r.n == 0 {
		return nil, nil, r.nan, r.inf
	}
	m, mx := r.sum/float64(r.n), r.mx
	return &m, &mx, 0, 0
}
