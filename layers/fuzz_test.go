package layers

import "testing"

// FuzzNpyHeader: any bytes end in a header, a request for more bytes
// (never more than the header bound), or an error; never a panic, and a
// returned shape is bounded.
func FuzzNpyHeader(f *testing.F) {
	f.Add(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (512, 4096), }   \n"))
	f.Add(npyBytes(2, "{'descr': '<f2', 'fortran_order': False, 'shape': (7,), }\n"))
	f.Add(npyBytes(3, "{'descr': '<f8', 'fortran_order': True, 'shape': (), }\n"))
	f.Add(npyBytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (9223372036854775807, 2), }\n"))
	f.Add(npyBytes(3, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, need, err := parseNpyHeader(data)
		if err != nil {
			return
		}
		if need > 0 {
			if need <= len(data) || need > 12+maxNpyHeader {
				t.Fatalf("got need %d with %d bytes, want more than the bytes held and at most 12+maxNpyHeader", need, len(data))
			}
			return
		}
		if h.offset > int64(len(data)) || len(h.shape) > maxDims {
			t.Fatalf("got header %+v from %d bytes, want its offset within them and at most maxDims dimensions", h, len(data))
		}
		n := int64(1)
		for _, d := range h.shape {
			if d < 0 {
				t.Fatal("got a negative dimension, want none")
			}
			n *= d
			if n < 0 {
				t.Fatal("got a shape product that overflows, want it refused")
			}
		}
	})
}
