package export

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// validUTF8 returns s with each byte that is not UTF-8 written as U+FFFD,
// as encoding/json and the timeline writers write it; s itself, without
// allocating, when it is valid. An input's names may be any bytes, but a
// Parquet string and a protobuf string are UTF-8: DuckDB refuses a whole
// dataset over one kernel name that is not.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as one RuneError
		b.WriteRune(r)
	}
	return b.String()
}

// validUTF8 makes the row's text columns UTF-8: the dispatch table's, by
// hand (a row per dispatch); validRow finds any other table's by reflection.
func (r *DispatchRow) validUTF8() {
	r.Rank, r.Program, r.Queue, r.Device, r.Link = validUTF8(r.Rank), validUTF8(r.Program), validUTF8(r.Queue), validUTF8(r.Device), validUTF8(r.Link)
	r.Kernel, r.Category, r.List = validUTF8(r.Kernel), validUTF8(r.Category), validUTF8(r.List)
}

// validRow makes every string of row *r UTF-8 (validUTF8).
func validRow[T any](r *T) {
	if d, ok := any(r).(*DispatchRow); ok {
		d.validUTF8()
		return
	}
	validStrings(reflect.ValueOf(r).Elem())
}

// validStrings makes every string field of v, a settable struct, UTF-8
// (embedded structs' too). Rows hold no slices or pointers to text: what
// they point to may be the model's, and is left alone.
func validStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !utf8.ValidString(s) {
			v.SetString(validUTF8(s))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				validStrings(f)
			}
		}
	}
}
