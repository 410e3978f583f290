package export

import (
	"compress/gzip"
	"fmt"
	"io"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// The profile is written with protowire, field by field
// (github.com/google/pprof/proto/profile.proto), not with
// github.com/google/pprof/profile: that package compiles regexps and builds
// tables when the program starts, a cost every tally command paid for an
// export few run. Only what tally writes is modelled; `go tool pprof` and
// profile.Parse read it (pprof_test.go).

// ppProfile is a profile.proto Profile, as tally fills it.
type ppProfile struct {
	SampleType        []ppValueType
	Sample            []*ppSample
	Location          []*ppLocation
	Function          []*ppFunction
	TimeNanos         int64
	DurationNanos     int64
	Comments          []string
	DefaultSampleType string
	DocURL            string
}

type ppValueType struct{ Type, Unit string }

type ppSample struct {
	Location []*ppLocation
	Value    []int64
	Label    map[string][]string
}

// ppLocation has one line, in one function.
type ppLocation struct {
	ID       uint64
	Function *ppFunction
}

type ppFunction struct {
	ID   uint64
	Name string
}

// check is what pprof's CheckValid would find wrong in what tally builds.
func (p *ppProfile) check() error {
	for i, s := range p.Sample {
		if len(s.Value) != len(p.SampleType) {
			return fmt.Errorf("sample %d has %d values, want %d", i, len(s.Value), len(p.SampleType))
		}
	}
	for i, l := range p.Location {
		if l.ID != uint64(i+1) || l.Function == nil {
			return fmt.Errorf("location %d: id %d", i, l.ID)
		}
	}
	for i, f := range p.Function {
		if f.ID != uint64(i+1) {
			return fmt.Errorf("function %d: id %d", i, f.ID)
		}
	}
	return nil
}

// Field numbers of profile.proto.
const (
	pfSampleType    = 1
	pfSample        = 2
	pfLocation      = 4
	pfFunction      = 5
	pfStringTable   = 6
	pfTimeNanos     = 9
	pfDurationNanos = 10
	pfComment       = 13
	pfDefaultType   = 14
	pfDocURL        = 15
)

// write writes the profile gzipped, as profile.Profile.Write does.
func (p *ppProfile) write(w io.Writer) error {
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(p.encode()); err != nil {
		return err
	}
	return zw.Close()
}

func (p *ppProfile) encode() []byte {
	strs := []string{""}
	index := map[string]int64{"": 0}
	str := func(s string) int64 {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = int64(len(strs))
		strs = append(strs, s)
		return index[s]
	}
	var b []byte
	msg := func(field protowire.Number, body []byte) {
		b = protowire.AppendTag(b, field, protowire.BytesType)
		b = protowire.AppendBytes(b, body)
	}
	varint := func(dst []byte, field protowire.Number, v uint64) []byte {
		if v == 0 {
			return dst
		}
		dst = protowire.AppendTag(dst, field, protowire.VarintType)
		return protowire.AppendVarint(dst, v)
	}
	for _, vt := range p.SampleType {
		var m []byte
		m = varint(m, 1, uint64(str(vt.Type)))
		m = varint(m, 2, uint64(str(vt.Unit)))
		msg(pfSampleType, m)
	}
	for _, s := range p.Sample {
		var m, packed []byte
		for _, l := range s.Location {
			packed = protowire.AppendVarint(packed, l.ID)
		}
		m = protowire.AppendTag(m, 1, protowire.BytesType)
		m = protowire.AppendBytes(m, packed)
		packed = packed[:0]
		for _, v := range s.Value {
			packed = protowire.AppendVarint(packed, uint64(v))
		}
		m = protowire.AppendTag(m, 2, protowire.BytesType)
		m = protowire.AppendBytes(m, packed)
		keys := make([]string, 0, len(s.Label))
		for k := range s.Label {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range s.Label[k] {
				var l []byte
				l = varint(l, 1, uint64(str(k)))
				l = varint(l, 2, uint64(str(v)))
				m = protowire.AppendTag(m, 3, protowire.BytesType)
				m = protowire.AppendBytes(m, l)
			}
		}
		msg(pfSample, m)
	}
	for _, l := range p.Location {
		var m, line []byte
		m = varint(m, 1, l.ID)
		line = varint(line, 1, l.Function.ID)
		m = protowire.AppendTag(m, 4, protowire.BytesType)
		m = protowire.AppendBytes(m, line)
		msg(pfLocation, m)
	}
	for _, f := range p.Function {
		var m []byte
		m = varint(m, 1, f.ID)
		m = varint(m, 2, uint64(str(f.Name)))
		msg(pfFunction, m)
	}
	b = varint(b, pfTimeNanos, uint64(p.TimeNanos))
	b = varint(b, pfDurationNanos, uint64(p.DurationNanos))
	for _, c := range p.Comments {
		b = protowire.AppendTag(b, pfComment, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(str(c)))
	}
	b = varint(b, pfDefaultType, uint64(str(p.DefaultSampleType)))
	b = varint(b, pfDocURL, uint64(str(p.DocURL)))
	// The string table last: every index above is known by now.
	for _, s := range strs {
		b = protowire.AppendTag(b, pfStringTable, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	return b
}
