package npuprof

import "bytes"

// lineKind is what an engine line is, by its tag.
type lineKind uint8

const (
	kindOther  lineKind = iota
	kindGemm            // [prof] npu_gemm n=… (NPU_PROFILE, cumulative means) [src]
	kindRow             // [prof] <family> … (per-family window rows) [PR]
	kindLayer           // [L] <layer> <mean|x|> <absmax> [src]
	kindMLA             // [mla] L<l> … (an MLA/MoE layer, position 0) [src]
	kindStep            // [mla] final xn: / [mla] pre-norm x: (every step) [src]
	kindLinear          // [G] l=<l> … (linear-attention layers, every position) [src]
	kindHidden          // [debug] hidden pos <p> … (NPU_INFER_DUMP_HIDDEN) [src]
)

var (
	gemmPrefix   = []byte("[prof] npu_gemm ")
	profPrefix   = []byte("[prof] ")
	layerPrefix  = []byte("[L] ")
	mlaPrefix    = []byte("[mla] ")
	linearPrefix = []byte("[G] ")
	hiddenPrefix = []byte("[debug] hidden pos ")
)

// classify returns the kind of an unstamped line and its text from the tag
// on. Leading blanks are ignored: the engine indents its [L] lines by two
// spaces, and a reader must tolerate other indentation.
func classify(line []byte) (lineKind, []byte) {
	b := bytes.TrimLeft(line, " \t")
	if len(b) == 0 || b[0] != '[' {
		return kindOther, b
	}
	switch {
	case bytes.HasPrefix(b, gemmPrefix):
		return kindGemm, b
	case bytes.HasPrefix(b, profPrefix):
		return kindRow, b
	case bytes.HasPrefix(b, layerPrefix):
		return kindLayer, b
	case bytes.HasPrefix(b, mlaPrefix):
		rest := b[len(mlaPrefix):]
		if len(rest) > 1 && rest[0] == 'L' && rest[1] >= '0' && rest[1] <= '9' {
			return kindMLA, b
		}
		return kindStep, b
	case bytes.HasPrefix(b, linearPrefix):
		return kindLinear, b
	case bytes.HasPrefix(b, hiddenPrefix):
		return kindHidden, b
	}
	return kindOther, b
}

// gemm is one `[prof] npu_gemm` line: calls so far and the running means.
type gemm struct {
	n      int64
	places int      // the fewest decimals any mean was printed with
	means  [4]int64 // ps: pack, quant+launch, wait, readback
	width  int64    // N of the current call; -1 when absent
}

// gemmKeys are the mean fields in the order of gemm.means.
var gemmKeys = [4]string{"pack", "quant+launch", "wait", "readback"}

// parseGemm reads `[prof] npu_gemm n=<calls> pack=<ms> quant+launch=<ms>
// wait=<ms> readback=<ms> ms (N=<width>)`. Fields are found by key, so
// their order and extra tokens do not matter; n and the four means must be
// there.
func parseGemm(b []byte) (g gemm, ok bool) {
	g.width = -1
	var have [5]bool
	for _, tok := range bytes.Fields(b[len(gemmPrefix):]) {
		tok = bytes.TrimPrefix(tok, []byte("("))
		tok = bytes.TrimSuffix(tok, []byte(")"))
		eq := bytes.IndexByte(tok, '=')
		if eq < 0 {
			continue // "ms"
		}
		key, val := string(tok[:eq]), tok[eq+1:]
		switch key {
		case "n":
			if g.n, ok = parseUint(val); !ok || have[4] {
				return g, false
			}
			have[4] = true
		case "N":
			w, okw := parseUint(val)
			if !okw {
				return g, false
			}
			g.width = w
		default:
			for i, k := range gemmKeys {
				if key != k {
					continue
				}
				ps, places, okv := parseTime(val)
				if !okv || have[i] {
					return g, false
				}
				if !have[0] && !have[1] && !have[2] && !have[3] || places < g.places {
					g.places = places
				}
				g.means[i], have[i] = ps, true
			}
		}
	}
	for _, h := range have {
		if !h {
			return g, false
		}
	}
	return g, g.n > 0
}

// row is one per-family profiler row.
type row struct {
	family, role []byte
	m, launches  int64
	times        [5]int64 // ps per launch: pack, launch, wait, readback, total
	places       [5]int
}

// parseRow reads `[prof] FAMILY ROLE M LAUNCHES PACK LAUNCH WAIT READBACK
// TOTAL`: nine fields after the tag, split on blanks (spec §2).
func parseRow(b []byte) (r row, ok bool) {
	f := bytes.Fields(b[len(profPrefix):])
	if len(f) != 9 {
		return r, false
	}
	r.family, r.role = f[0], f[1]
	if r.m, ok = parseUint(f[2]); !ok {
		return r, false
	}
	if r.launches, ok = parseUint(f[3]); !ok {
		return r, false
	}
	for i := range r.times {
		if r.times[i], r.places[i], ok = parseTime(f[4+i]); !ok {
			return r, false
		}
	}
	return r, true
}

// sums reports whether pack+launch+wait+readback equals total within the
// rounding of the five printed values, and the difference in ps.
func (r *row) sums() (diff int64, tol2 int64, ok bool) {
	var parts int64
	for i := 0; i < 4; i++ {
		parts += r.times[i]
	}
	for i := 0; i < 5; i++ {
		tol2 += halfUlp2(r.places[i])
	}
	diff = parts - r.times[4]
	ad := diff
	if ad < 0 {
		ad = -ad
	}
	// Twice the half-ulps against twice the difference: exact in integers.
	return diff, tol2, 2*ad <= tol2
}

// layer is one `[L] <layer> <mean|x|> <absmax>` line.
type layer struct {
	l            int64
	mean, absmax []byte // kept as printed for the inventory
}

// maxLayer bounds layer numbers: larger ones are malformed, so a set of
// seen layers stays small whatever the input.
const maxLayer = 1 << 20

func parseLayer(b []byte) (ly layer, ok bool) {
	f := bytes.Fields(b[len(layerPrefix):])
	if len(f) != 3 {
		return ly, false
	}
	if ly.l, ok = parseInt(f[0]); !ok || ly.l < -1 || ly.l >= maxLayer {
		return ly, false
	}
	if !isFloat(f[1]) || !isFloat(f[2]) {
		return ly, false
	}
	return layer{l: ly.l, mean: f[1], absmax: f[2]}, true
}

// isFloat accepts what printf's %f writes: digits with an optional sign
// and point, or nan/inf.
func isFloat(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) <= 8 {
		switch string(bytes.ToLower(b)) {
		case "nan", "inf", "infinity":
			return true
		}
	}
	digits, points := 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}
