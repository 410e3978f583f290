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
		c, err := readCSV(bytes.NewReader(data), "fuzz.csv", &col, 0)
		if err != nil {
			var fe *format.Error
			if !errorsAs(err, &fe) {
				t.Fatalf("got unpositioned error %v, want a *format.Error", err)
			}
			return
		}
		checkModel(t, c, col.Dispatches)
		lines := c.Accounting.InputFor("lines")
		if int64(len(col.Dispatches)) > lines.Used {
			t.Fatalf("got %d dispatches from %d lines used, want at most one a line", len(col.Dispatches), lines.Used)
		}
		// Every physical line is counted, also inside multi-line records.
		phys := int64(bytes.Count(data, []byte{'\n'}))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			phys++
		}
		if lines.Read != phys || lines.Read != lines.Used+lines.SkippedTotal() {
			t.Fatalf("got lines %+v, want the input's %d read, each used or skipped", lines, phys)
		}
		for _, line := range strings.Split(string(body), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || strings.ContainsAny(line, "\r") {
				continue
			}
			got, _, ok := splitFields([]byte(line), nil, nil)
			want, err := csv.NewReader(strings.NewReader(line)).Read()
			if ok != (err == nil) {
				t.Fatalf("%q: got split ok %v, want it to agree with encoding/csv (error %v)", line, ok, err)
			}
			if ok && !equalFields(got, want) {
				t.Fatalf("%q: got %q, want encoding/csv's %q", line, got, want)
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
	f.Add([]byte(genJSON([]uint64{1, 2, 2, 5}, []jsonCall{{"hipLaunchKernel", 1}, {"hipGraphLaunch", 2}, {"hipLaunchKernel", 3}}, []uint64{1, 0}, false)))
	f.Add([]byte(genJSON([]uint64{1, 4}, []jsonCall{{"hipMemcpyAsync", 1}, {"hipModuleLaunchKernel", 3}}, []uint64{1}, true)))
	f.Add([]byte(`{"rocprofiler-sdk-tool": [{"buffer_records": {"hip_api": [{"kind": 99, "operation": 7, "correlation_id": {"internal": 3}, "start_timestamp": 1, "end_timestamp": 0}], "memory_copy": [{"kind": -1, "start_timestamp": 5, "end_timestamp": 1}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var col capture.Collect
		c, err := readJSON(bytes.NewReader(data), "fuzz.json", &col, 0)
		if err != nil {
			var fe *format.Error
			if !errorsAs(err, &fe) || fe.Offset < 0 {
				t.Fatalf("got unpositioned error %v, want a *format.Error with an offset", err)
			}
			return
		}
		checkModel(t, c, col.Dispatches)
		if in := c.Accounting.InputFor("bytes"); in.Read != int64(len(data)) {
			t.Fatalf("got bytes read %d, want all %d", in.Read, len(data))
		}
	})
}

// FuzzSideFiles feeds arbitrary text as a HIP API trace and as a
// memory_copy_trace.csv beside a kernel file: no panic, every line
// accounted, the model valid, and the linkage counts within bounds.
//
//	go test -run '^$' -fuzz FuzzSideFiles -fuzztime 60s ./format/rocprof/
func FuzzSideFiles(f *testing.F) {
	f.Add([]byte(apiHdr+arow("hipLaunchKernel", 1, 10, 20)+arow("hipGraphLaunch", 2, 30, 40)+"x,\"y\n"), []byte(`"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n"+`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,5,9`+"\n"))
	for _, name := range []string{"hip_runtime_trace.docs2025.csv", "hip_trace.docs2025.csv"} {
		api, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		cp, err := readTestdata("memory_copy_trace.docs2025.csv")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(api, cp)
	}
	f.Fuzz(func(t *testing.T, api, copies []byte) {
		var col capture.Collect
		c := &capture.Capture{Clock: boottimeClock}
		cr := &csvReader{path: "k.csv", b: newBuilder(c, &col, "lines")}
		c.Inventory = append(c.Inventory, capture.Section{Title: "rocprof CSV"})
		if err := readAPI(bytes.NewReader(api), cr.b.link, c.Accounting.InputFor("API lines")); err != nil && !strings.HasPrefix(err.Error(), "no ") {
			t.Fatal(err)
		}
		for i := uint64(1); i <= 4; i++ {
			r := row{prog: cr.b.program(wholeCapture), queue: capture.NoQueue, start: int64(i), end: int64(i + 1), corr: i % 3}
			r.kernel = cr.b.kernel(r.prog, []byte("k"), 1, true, "kernel")
			cr.b.unit.Read++
			cr.b.emit(&r, pos{"line", int64(i)})
		}
		if err := cr.copies(bytes.NewReader(copies), "memory_copy_trace.csv"); err != nil && !strings.HasPrefix(err.Error(), "no ") {
			t.Fatal(err)
		}
		cr.b.linkDone(&c.Inventory[0], "fuzz")
		cr.b.finish("fuzz")
		checkModel(t, c, col.Dispatches)
		if g := c.Accounting.Find(capture.GPUEventWithoutLaunch); g != nil && g.Count > 4 {
			t.Fatalf("got %d orphans, want at most the 4 dispatches", g.Count)
		}
		for _, unit := range []string{"API lines", "copy lines"} {
			in := c.Accounting.InputFor(unit)
			if in.Read != in.Used+in.SkippedTotal() {
				t.Fatalf("%s: got read %d, used %d, skipped %d; want read = used + skipped", unit, in.Read, in.Used, in.SkippedTotal())
			}
		}
	})
}
