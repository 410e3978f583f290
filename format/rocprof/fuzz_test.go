package rocprof

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// FuzzCSV feeds arbitrary text after a kernel_trace header: the reader must
// never panic, keep its accounting, and split every single-line record
// exactly as encoding/csv does (the reference).
//
//	go test -run '^$' -fuzz FuzzCSV -fuzztime 60s ./format/rocprof/
func FuzzCSV(f *testing.F) {
	f.Add([]byte(krow("1", "a", 1, 5) + krow("1", "b", 9, 3)))
	f.Add([]byte(`"KERNEL_DISPATCH","Agent 4",1,1,7,3,3,"x""y, z",1,10,20` + "\n\n" + `"a` + "\n" + `b",1`))
	f.Add([]byte("1,2,3\r\n\"\"\"\",\"\n"))
	for _, name := range []string{"docs2025_kernel_trace.csv", "docs2024_kernel_trace.csv", "v1_results.csv"} {
		data, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 4000)])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data := body
		if !bytes.HasPrefix(body, []byte(`"Kind"`)) && !bytes.HasPrefix(body, []byte(`"Index"`)) {
			data = append([]byte(hdr), body...)
		}
		var col capture.Collect
		c, err := readCSV(bytes.NewReader(data), "fuzz.csv", &col)
		if err != nil {
			var fe *format.Error
			if !errorsAs(err, &fe) {
				t.Fatalf("unpositioned error %v", err)
			}
			return
		}
		checkModel(t, c, col.Dispatches)
		if int64(len(col.Dispatches)) > c.Accounting.InputFor("lines").Used {
			t.Fatal("more dispatches than lines used")
		}
		for _, line := range strings.Split(string(body), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || strings.ContainsAny(line, "\r") {
				continue
			}
			got, _, ok := splitFields([]byte(line), nil, nil)
			want, err := csv.NewReader(strings.NewReader(line)).Read()
			if ok != (err == nil) {
				t.Fatalf("%q: split ok %v, encoding/csv %v", line, ok, err)
			}
			if ok && !equalFields(got, want) {
				t.Fatalf("%q: %q, encoding/csv %q", line, got, want)
			}
		}
	})
}

func equalFields(got [][]byte, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if string(got[i]) != want[i] {
			return false
		}
	}
	return true
}

// FuzzJSON feeds arbitrary bytes to the JSON reader: no panic, accounting
// kept, and a result or a positioned error for every input.
//
//	go test -run '^$' -fuzz FuzzJSON -fuzztime 60s ./format/rocprof/
func FuzzJSON(f *testing.F) {
	f.Add([]byte(miniJSON))
	f.Add([]byte(`{"rocprofiler-sdk-tool": []}`))
	f.Add([]byte(`{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [{"start_timestamp": 1, "end_timestamp": 2}]}}]}`))
	f.Add([]byte(`{"rocprofiler-sdk-tool": [{"strings": {"buffer_records": [{"kind": 5}]}, "buffer_records": {"kernel_dispatch": [{"kind": 0, "operation": -1, "start_timestamp": 1, "end_timestamp": 2}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var col capture.Collect
		c, err := readJSON(bytes.NewReader(data), "fuzz.json", &col)
		if err != nil {
			var fe *format.Error
			if !errorsAs(err, &fe) || fe.Offset < 0 {
				t.Fatalf("unpositioned error %v", err)
			}
			return
		}
		checkModel(t, c, col.Dispatches)
		if in := c.Accounting.InputFor("bytes"); in.Read != int64(len(data)) {
			t.Fatalf("bytes read %d of %d", in.Read, len(data))
		}
	})
}
