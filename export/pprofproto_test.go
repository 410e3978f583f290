package export

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/pprof/profile"
)

// TestPProfEncoding: every field tally writes by hand reads back through
// github.com/google/pprof/profile as written.
func TestPProfEncoding(t *testing.T) {
	f1, f2 := &ppFunction{ID: 1, Name: "kernel<float>(a, b)"}, &ppFunction{ID: 2, Name: "program p"}
	l1, l2 := &ppLocation{ID: 1, Function: f1}, &ppLocation{ID: 2, Function: f2}
	p := &ppProfile{
		SampleType: []ppValueType{{"dispatches", "count"}, {"gpu_time", "nanoseconds"}},
		Sample: []*ppSample{
			{Location: []*ppLocation{l1, l2}, Value: []int64{3, 1 << 40}, Label: map[string][]string{"rank": {"0"}, "status": {"launched"}}},
			{Location: []*ppLocation{l2}, Value: []int64{0, -5}, Label: map[string][]string{"queue": {"stream 7"}}},
		},
		Location:          []*ppLocation{l1, l2},
		Function:          []*ppFunction{f1, f2},
		TimeNanos:         1700000000000000000,
		DurationNanos:     12345,
		Comments:          []string{"first", "second", "first"},
		DefaultSampleType: "gpu_time",
		DocURL:            "https://example.com/doc",
	}
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := got.CheckValid(); err != nil {
		t.Fatalf("CheckValid: %v", err)
	}
	if len(got.SampleType) != 2 || got.SampleType[1].Type != "gpu_time" || got.SampleType[1].Unit != "nanoseconds" || got.DefaultSampleType != "gpu_time" {
		t.Errorf("sample types %v default %q", got.SampleType, got.DefaultSampleType)
	}
	if got.TimeNanos != p.TimeNanos || got.DurationNanos != p.DurationNanos || got.DocURL != p.DocURL || !reflect.DeepEqual(got.Comments, p.Comments) {
		t.Errorf("got time %d duration %d doc %q comments %q, want %d %d %q %q", got.TimeNanos, got.DurationNanos, got.DocURL, got.Comments, p.TimeNanos, p.DurationNanos, p.DocURL, p.Comments)
	}
	if len(got.Sample) != 2 {
		t.Fatalf("got %d samples, want 2", len(got.Sample))
	}
	for i, s := range got.Sample {
		want := p.Sample[i]
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		var wantNames []string
		for _, l := range want.Location {
			wantNames = append(wantNames, l.Function.Name)
		}
		if !reflect.DeepEqual(names, wantNames) || !reflect.DeepEqual(s.Value, want.Value) || !reflect.DeepEqual(s.Label, want.Label) {
			t.Errorf("sample %d: got %v %v %v, want %v %v %v", i, names, s.Value, s.Label, wantNames, want.Value, want.Label)
		}
	}
	// A sample whose values do not match the sample types is refused.
	p.Sample[0].Value = p.Sample[0].Value[:1]
	if p.check() == nil {
		t.Error("check passed a sample with 1 value for 2 sample types")
	}
}
