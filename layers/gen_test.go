package layers

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// value is a deterministic residual-like value: rows (tokens) differ,
// layers grow slowly.
func value(l, r, c int) float64 {
	return math.Sin(float64(l)*0.37+float64(r)*1.3+float64(c)*0.011) * (1 + float64(l)*0.05)
}

// writeF32 writes layer_<l>.f32 (M×H) with v(row, col).
func writeF32(t testing.TB, dir string, l, m, h int, v func(r, c int) float64) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("layer_%d.f32", l))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b [4]byte
	for r := 0; r < m; r++ {
		for c := 0; c < h; c++ {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(v(r, c))))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// npyBytes is a .npy header of the given version around dict (the magic,
// the version, the dict's length, the dict).
func npyBytes(major byte, dict string) []byte {
	b := append([]byte("\x93NUMPY"), major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	return append(b, dict...)
}

// writeNpy writes a .npy file of the given version, descr and shape.
func writeNpy(t testing.TB, path string, major byte, descr string, shape []int, v func(i int) float64) {
	t.Helper()
	sh := "("
	n := 1
	for i, d := range shape {
		if i > 0 {
			sh += ", "
		}
		sh += fmt.Sprint(d)
		n *= d
	}
	if len(shape) == 1 {
		sh += ","
	}
	sh += ")"
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, sh)
	pre := 10
	if major > 1 {
		pre = 12
	}
	for (pre+len(dict)+1)%64 != 0 {
		dict += " "
	}
	dict += "\n"
	b := npyBytes(major, dict)
	for i := 0; i < n; i++ {
		var x float64
		if v != nil {
			x = v(i)
		}
		switch descr {
		case "<f4":
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
		case "<f8":
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		case "<f2":
			b = binary.LittleEndian.AppendUint16(b, floatToHalf(float32(x)))
		default:
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
		}
	}
	writeFile(t, path, string(b))
}

// writeFile writes s to path and returns the path.
func writeFile(t testing.TB, path, s string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sidecar writes layer_<l>.json in dir saying the shape [m, h].
func sidecar(t testing.TB, dir string, l, m, h int) {
	t.Helper()
	writeFile(t, filepath.Join(dir, fmt.Sprintf("layer_%d.json", l)), fmt.Sprintf(`{"shape":[%d,%d],"dtype":"f32"}`, m, h))
}

// floatToHalf rounds toward zero to binary16 (normal range only): enough
// for test values in (-8, 8).
func floatToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23&0xff) - 127 + 15
	if f == 0 || exp <= 0 {
		return sign
	}
	return sign | uint16(exp)<<10 | uint16(bits>>13&0x3ff)
}
