package layers

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// NumPy .npy files (format versions 1.0, 2.0, 3.0): a magic string, the
// version, a little-endian header length (2 bytes in v1, 4 in v2/v3), then
// a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (M, H), } padded with spaces and '\n'. Spec:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html

var npyMagic = []byte("\x93NUMPY")

// maxNpyHeader bounds the header length field: NumPy itself refuses headers
// over 10 000 bytes by default; a larger length is a corrupt file, never
// an allocation.
const maxNpyHeader = 1 << 16

// npyHeader is what the header says.
type npyHeader struct {
	dtype  dtype
	shape  []int64
	offset int64 // where the data starts
}

// parseNpyHeader reads the header from the first bytes of a file. need > 0
// means more bytes are needed (at least need in total).
func parseNpyHeader(b []byte) (h npyHeader, need int, err error) {
	if len(b) < 10 {
		return h, 10, nil
	}
	if !bytes.HasPrefix(b, npyMagic) {
		return h, 0, errors.New("not a NumPy .npy file (no \\x93NUMPY magic)")
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return h, 12, nil
		}
		l := binary.LittleEndian.Uint32(b[8:12])
		if l > maxNpyHeader {
			return h, 0, fmt.Errorf(".npy header length %d is over %d bytes: the file is corrupt", l, maxNpyHeader)
		}
		hlen, start = int(l), 12
	default:
		return h, 0, fmt.Errorf(".npy format version %d.%d: this tally reads versions 1-3", major, b[7])
	}
	if len(b) < start+hlen {
		return h, start + hlen, nil
	}
	dict := string(b[start : start+hlen])
	h.offset = int64(start + hlen)
	descr, ok := dictValue(dict, "descr")
	if !ok {
		return h, 0, errors.New(".npy header has no 'descr'")
	}
	descr = strings.Trim(descr, `'"`)
	switch descr {
	case "<f4":
		h.dtype = f32
	case "<f2":
		h.dtype = f16
	case "<f8":
		h.dtype = f64
	default:
		return h, 0, fmt.Errorf(".npy dtype %q is not supported: tally layers reads little-endian floats <f4, <f2 and <f8 (save with arr.astype('<f4'))", descr)
	}
	fo, ok := dictValue(dict, "fortran_order")
	if !ok {
		return h, 0, errors.New(".npy header has no 'fortran_order'")
	}
	switch fo {
	case "False":
	case "True":
		return h, 0, errors.New(".npy array is in Fortran (column-major) order: save it with np.ascontiguousarray")
	default:
		return h, 0, fmt.Errorf(".npy fortran_order %q is not True or False", fo)
	}
	sh, ok := dictValue(dict, "shape")
	if !ok {
		return h, 0, errors.New(".npy header has no 'shape'")
	}
	if h.shape, err = parseShape(sh); err != nil {
		return h, 0, err
	}
	return h, 0, nil
}

// dictValue finds 'key': VALUE in a header dict literal; VALUE ends at the
// next top-level comma or '}' (a tuple's commas are inside parentheses).
func dictValue(dict, key string) (string, bool) {
	i := strings.Index(dict, "'"+key+"'")
	if i < 0 {
		i = strings.Index(dict, `"`+key+`"`)
		if i < 0 {
			return "", false
		}
	}
	rest := dict[i+len(key)+2:]
	rest = strings.TrimLeft(rest, " ")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " ")
	depth := 0
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return "", false
			}
		case ',', '}':
			if depth == 0 {
				return strings.TrimSpace(rest[:j]), true
			}
		}
	}
	return "", false
}

// maxDims bounds the dimensions a shape may have.
const maxDims = 32

// parseShape reads a tuple literal "(512, 4096)", "(4096,)" or "()".
func parseShape(s string) ([]int64, error) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, fmt.Errorf(".npy shape %q is not a tuple", s)
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	shape := []int64{}
	if inner == "" {
		return shape, nil
	}
	parts := strings.Split(inner, ",")
	if strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > maxDims {
		return nil, fmt.Errorf(".npy shape %q has over %d dimensions", s, maxDims)
	}
	total := int64(1)
	for _, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(p), "L"), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf(".npy shape %q: %q is not a dimension", s, strings.TrimSpace(p))
		}
		if v != 0 && total > (1<<62)/v {
			return nil, fmt.Errorf(".npy shape %q is too large", s)
		}
		total *= v
		shape = append(shape, v)
	}
	return shape, nil
}
