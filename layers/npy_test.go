package layers

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestNpyHeader(t *testing.T) {
	h, need, err := parseNpyHeader(npyBytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }\n"))
	if err != nil || need != 0 || h.dtype != f16 || len(h.shape) != 2 || h.shape[1] != 4 || h.offset != 10+60 {
		t.Fatalf("got %+v need %d err %v, want f16 shape (3, 4) at offset 70, need 0, no error", h, need, err)
	}
	if h, _, err := parseNpyHeader(npyBytes(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }")); err != nil || h.dtype != f64 || len(h.shape) != 0 {
		t.Fatalf("scalar: got %+v %v, want f64 with no dimensions, no error", h, err)
	}
	if _, need, _ := parseNpyHeader(npyBytes(2, "{'descr': '<f4'")[:14]); need != 12+len("{'descr': '<f4'") {
		t.Fatalf("a cut header: got need %d bytes, want %d", need, 12+len("{'descr': '<f4'"))
	}
	for dict, want := range map[string]string{
		"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }":       `dtype ">f4" is not supported`,
		"{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }":       `dtype "<i8" is not supported`,
		"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }":      "Fortran (column-major) order",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }":    "is not a dimension",
		"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 2], }":     "is not a tuple",
		"{'descr': '<f4', 'fortran_order': False, }":                      "no 'shape'",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (1<<40, 9), }": "is not a dimension",
	} {
		if _, _, err := parseNpyHeader(npyBytes(1, dict)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", dict, err, want)
		}
	}
	if _, _, err := parseNpyHeader(npyBytes(4, "{}")); err == nil || !strings.Contains(err.Error(), "versions 1-3") {
		t.Errorf("version 4: got %v, want an error naming versions 1-3", err)
	}
	b := npyBytes(2, "{}")
	binary.LittleEndian.PutUint32(b[8:], 1<<30)
	if _, _, err := parseNpyHeader(b); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("huge header length: got %v, want an error saying corrupt", err)
	}
	if _, _, err := parseNpyHeader([]byte("PK\x03\x04 not npy")); err == nil {
		t.Error("a zip: got no error, want one")
	}
}
