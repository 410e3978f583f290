package rocprof

import "bytes"

// A hand-written RFC 4180 field splitter: encoding/csv allocates a string
// per record and runs at about a quarter of the speed this reader needs
// (issue 11 asks for ≥ 400 MB/s on kernel_trace.csv). The fuzz target
// checks it against encoding/csv on every input.

// splitFields splits one record (without its line ending) into fields,
// appending to dst. Quoted fields are unquoted; a field with doubled quotes
// is unescaped into scratch. ok is false when a quote is unterminated or a
// quoted field is followed by something other than a comma.
func splitFields(rec []byte, dst [][]byte, scratch []byte) (fields [][]byte, buf []byte, ok bool) {
	buf = scratch[:0]
	for {
		if len(rec) > 0 && rec[0] == '"' {
			rec = rec[1:]
			start := len(buf)
			escaped := false
			var field []byte
			for {
				q := bytes.IndexByte(rec, '"')
				if q < 0 {
					return dst, buf, false
				}
				if q+1 < len(rec) && rec[q+1] == '"' {
					if !escaped {
						escaped = true
					}
					buf = append(buf, rec[:q+1]...)
					rec = rec[q+2:]
					continue
				}
				if escaped {
					buf = append(buf, rec[:q]...)
					field = buf[start:len(buf):len(buf)]
				} else {
					field = rec[:q:q]
				}
				rec = rec[q+1:]
				break
			}
			dst = append(dst, field)
			if len(rec) == 0 {
				return dst, buf, true
			}
			if rec[0] != ',' {
				return dst, buf, false
			}
			rec = rec[1:]
			continue
		}
		c := bytes.IndexByte(rec, ',')
		if c < 0 {
			if bytes.IndexByte(rec, '"') >= 0 {
				return dst, buf, false
			}
			return append(dst, rec), buf, true
		}
		if bytes.IndexByte(rec[:c], '"') >= 0 {
			return dst, buf, false // a bare quote inside an unquoted field
		}
		dst = append(dst, rec[:c:c])
		rec = rec[c+1:]
	}
}
