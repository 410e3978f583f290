package layers

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// dtype is an element type a dump may hold.
type dtype uint8

const (
	f32 dtype = iota
	f16
	f64
)

func (d dtype) size() int64 {
	switch d {
	case f16:
		return 2
	case f64:
		return 8
	}
	return 4
}

func (d dtype) String() string {
	switch d {
	case f16:
		return "f16"
	case f64:
		return "f64"
	}
	return "f32"
}

// tensor is one layer file as described by its name, size, header or
// sidecar: where the values start, how many, and the row width when known.
type tensor struct {
	path   string
	kind   string // "f32" (raw) or "npy"
	dtype  dtype
	offset int64
	values int64
	bytes  int64 // file size
	// h is the row width (hidden size); 0 when unknown. hFrom says where
	// it came from: "--hidden", "sidecar", ".npy shape".
	h     int64
	hFrom string
	shape []int64 // as declared (.npy or sidecar), nil for a bare .f32
}

// Sidecar is the small JSON file a dump writer puts beside a raw dump
// (layer_<l>.f32 → layer_<l>.json) to state its shape: {"shape":[M,H],
// "dtype":"f32"} (docs/layers.md).
type Sidecar struct {
	Shape []int64 `json:"shape"`
	DType string  `json:"dtype"`
}

// maxSidecar bounds the sidecar read.
const maxSidecar = 64 << 10

// openTensor describes path. A problem with the file's contents is returned
// as a malformed error (errMalformed wraps it), an unreadable file as is.
func openTensor(path string, hidden int64) (*tensor, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	t := &tensor{path: path, bytes: st.Size()}
	if special(st) {
		return t, malformed("%s is %s, not a file: a dump is a file of known size", filepath.Base(path), kindOf(st))
	}
	if strings.HasSuffix(path, ".npy") {
		return t, t.npy()
	}
	t.kind, t.dtype = "f32", f32
	if t.bytes == 0 {
		// What a C writer whose fopen worked and fwrite failed leaves: a
		// dump not written, never an empty tensor that agrees.
		return t, malformed("%s is empty (0 bytes): the dump was created but not written", filepath.Base(path))
	}
	if t.bytes%4 != 0 {
		return t, malformed("%s is %d bytes, not a multiple of 4 (float32 values): the file is cut", filepath.Base(path), t.bytes)
	}
	t.values = t.bytes / 4
	side := strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
	sc, err := readSidecar(side)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return t, malformed("sidecar %s: %v", filepath.Base(side), err)
	default:
		if sc.DType != "f32" {
			return t, malformed("sidecar %s says dtype %q: raw dumps are f32", filepath.Base(side), sc.DType)
		}
		n := int64(1)
		for _, d := range sc.Shape {
			if d < 0 || d != 0 && n > (1<<62)/d {
				return t, malformed("sidecar %s: shape %v is not a shape", filepath.Base(side), sc.Shape)
			}
			n *= d
		}
		if len(sc.Shape) == 0 || n != t.values {
			return t, malformed("%s is %d bytes (%d float32 values), its sidecar says shape %v (%d values)", filepath.Base(path), t.bytes, t.values, sc.Shape, n)
		}
		t.shape = sc.Shape
		if len(sc.Shape) >= 2 {
			t.h, t.hFrom = sc.Shape[len(sc.Shape)-1], "sidecar"
		}
	}
	if hidden > 0 {
		if t.h > 0 && t.h != hidden {
			return t, malformed("%s: its sidecar says H = %d, --hidden says %d", filepath.Base(path), t.h, hidden)
		}
		if t.values%hidden != 0 {
			return t, malformed("%s is %d bytes, not a multiple of 4·H = %d (H = %d from --hidden)", filepath.Base(path), t.bytes, 4*hidden, hidden)
		}
		t.h, t.hFrom = hidden, "--hidden"
	}
	return t, nil
}

func readSidecar(path string) (*Sidecar, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if special(st) {
		return nil, fmt.Errorf("%s is %s, not a file", path, kindOf(st))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSidecar+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSidecar {
		return nil, fmt.Errorf("over %d bytes", maxSidecar)
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, err
	}
	return &sc, nil
}

// npy reads a .npy header.
func (t *tensor) npy() error {
	t.kind = "npy"
	f, err := os.Open(t.path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The header is at most 12 + maxNpyHeader bytes: read that much once.
	buf := make([]byte, min(t.bytes, 12+maxNpyHeader))
	if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
		return err
	}
	h, need, err := parseNpyHeader(buf)
	if err != nil {
		return malformed("%s: %v", filepath.Base(t.path), err)
	}
	if need > 0 {
		return malformed("%s is %d bytes: cut inside its .npy header (%d bytes needed)", filepath.Base(t.path), t.bytes, need)
	}
	t.dtype, t.shape, t.offset = h.dtype, h.shape, h.offset
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	t.values = n
	if n > t.bytes { // also keeps n × the element size below overflow
		return malformed("%s is %d bytes; its .npy header says shape %v: more values than bytes", filepath.Base(t.path), t.bytes, t.shape)
	}
	if want := t.offset + n*t.dtype.size(); want != t.bytes {
		return malformed("%s is %d bytes; its .npy header says shape %v of %s (%d bytes of data after a %d-byte header, %d in all)",
			filepath.Base(t.path), t.bytes, t.shape, t.dtype, n*t.dtype.size(), t.offset, want)
	}
	if len(t.shape) >= 2 {
		t.h, t.hFrom = t.shape[len(t.shape)-1], ".npy shape"
	}
	return nil
}

// errMalformed marks a file whose size or header does not describe a dump.
var errMalformed = errors.New("malformed")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// decode converts one row of raw bytes into dst.
func decode(dt dtype, src []byte, dst []float64) {
	switch dt {
	case f32:
		src = src[:4*len(dst)] // one bounds check for the loop
		for i := range dst {
			dst[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:])))
		}
	case f64:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
		}
	case f16:
		for i := range dst {
			dst[i] = halfToFloat(binary.LittleEndian.Uint16(src[2*i:]))
		}
	}
}

// halfToFloat converts an IEEE 754 binary16 value (NumPy's <f2). Written
// here rather than imported: it is a dozen lines and the only use.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24) // subnormal (or zero)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// special reports a named pipe, socket or device: opening or reading one
// may block for ever (a FIFO without a writer, a terminal), so a dump or
// sidecar that is one is malformed, never opened. (A directory fails its
// read with a message of its own.)
func special(st fs.FileInfo) bool {
	return !st.Mode().IsRegular() && !st.IsDir()
}

// kindOf names a special file's kind for a message.
func kindOf(st fs.FileInfo) string {
	switch m := st.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + st.Mode().Type().String() + ")"
}
