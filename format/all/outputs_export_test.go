package all

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/parquet-go/parquet-go"

	"github.com/tallyprof/tally/capture"
)

// The exports TestOutputsAgree does not read back — the Parquet dataset,
// the pprof profile and the Kineto JSON — state the JSON report's
// accounting and tables, for every reader's promise fixture and arm: each
// is read with the library a user would (parquet-go, pprof's profile
// package) or, for Kineto, by tally itself (the round trip), and compared
// with tally report --json, kernel by kernel. --strict exits 1 exactly
// when the JSON report says incomplete.

func TestExportsAgree(t *testing.T) {
	eachArm(t, func(t *testing.T, flags []string, _, in, out string) { checkExportsAgree(t, flags, in, out) },
		func(t *testing.T, flags []string, _, in, out string) { checkExportsRefused(t, flags, in, out) })
}

// Real inputs with what the fixtures lack: unfinished dispatches and a
// device fault (an hrx kept trace), and an input of two ranks (a swimlane
// run directory, exported to kineto as one file per rank).
func TestExportsAgreeRealTraces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		path  string
	}{
		{"hrx-decode-fault", []string{"--manifests", "../../examples/kernels"}, "../../examples/decode-fault.kept"},
		{"swimlane-two-ranks", nil, "../swimlane/testdata/seed"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkExportsAgree(t, tc.flags, tc.path, t.TempDir()) })
	}
}

// exportTos are the exports read back here.
var exportTos = []string{"parquet", "pprof", "kineto"}

// checkExportsRefused: an input every command refuses is refused by these
// exports too (exit 2 and why), nothing written.
func checkExportsRefused(t *testing.T, flags []string, in, dir string) {
	for _, to := range exportTos {
		out := filepath.Join(dir, "e."+to)
		if to == "kineto" {
			out += ".json"
		}
		args := append(append([]string{"export", "--to", to, "--strict", "-o", out}, flags...), in)
		if code, _, errOut := tallyRun(args...); code != 2 || errOut == "" {
			t.Errorf("export --to %s of a refused input: exit %d (%q), want 2 and why", to, code, errOut)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("export --to %s of a refused input: %s exists (%v), want nothing written", to, out, err)
		}
	}
}

// kernelFig is one kernel's (or program's) figures in a table: its
// dispatches, those timed, and their device time in ns (0 on a ticks
// clock, where the tables hold no ns).
type kernelFig struct{ dispatches, timed, ns int64 }

func (f kernelFig) String() string {
	return fmt.Sprintf("%d dispatches (%d timed), %d ns", f.dispatches, f.timed, f.ns)
}

// kernelKey names a kernel by program and name (kernels of one name in
// two lists of a program add up on both sides).
type kernelKey struct{ program, kernel string }

// reportTables are the JSON report's tables: each program's unit and
// figures, each kernel's figures.
type reportTables struct {
	unit     map[string]string
	programs map[string]kernelFig
	kernels  map[kernelKey]kernelFig
}

type jsonProgram struct {
	Name       string  `json:"name"`
	Unit       *string `json:"unit"`
	Dispatches int64   `json:"dispatches"`
	Timed      int64   `json:"timed_dispatches"`
	TotalNs    *int64  `json:"total_ns"`
	Kernels    []struct {
		Name       string `json:"name"`
		Dispatches int64  `json:"dispatches"`
		Timed      int64  `json:"timed_dispatches"`
		TotalNs    *int64 `json:"total_ns"`
	} `json:"kernels"`
}

func newTables() reportTables {
	return reportTables{unit: map[string]string{}, programs: map[string]kernelFig{}, kernels: map[kernelKey]kernelFig{}}
}

func (rt reportTables) addPrograms(ps []jsonProgram) {
	for _, p := range ps {
		if p.Unit != nil {
			rt.unit[p.Name] = *p.Unit
		} else if _, ok := rt.unit[p.Name]; !ok {
			rt.unit[p.Name] = ""
		}
		pf := rt.programs[p.Name]
		pf.dispatches += p.Dispatches
		pf.timed += p.Timed
		if p.TotalNs != nil {
			pf.ns += *p.TotalNs
		}
		rt.programs[p.Name] = pf
		for _, k := range p.Kernels {
			key := kernelKey{p.Name, k.Name}
			kf := rt.kernels[key]
			kf.dispatches += k.Dispatches
			kf.timed += k.Timed
			if k.TotalNs != nil {
				kf.ns += *k.TotalNs
			}
			rt.kernels[key] = kf
		}
	}
}

// jsonTables reads the tables of a one-input tally report --json.
func jsonTables(t *testing.T, js string) reportTables {
	t.Helper()
	var doc struct {
		Programs []jsonProgram `json:"programs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("report --json: got %v, want JSON", err)
	}
	rt := newTables()
	rt.addPrograms(doc.Programs)
	return rt
}

// compareKernels reports every kernel whose figures in got differ from
// want's.
func compareKernels(t *testing.T, what string, got, want map[kernelKey]kernelFig) {
	t.Helper()
	for _, k := range slices.SortedFunc(maps.Keys(want), cmpKernelKey) {
		if got[k] != want[k] {
			t.Errorf("%s: kernel %q of program %q: got %v, want %v", what, k.kernel, k.program, got[k], want[k])
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(got), cmpKernelKey) {
		if _, ok := want[k]; !ok && got[k] != (kernelFig{}) {
			t.Errorf("%s: kernel %q of program %q: got %v, want no such kernel", what, k.kernel, k.program, got[k])
		}
	}
}

func cmpKernelKey(a, b kernelKey) int {
	if c := strings.Compare(a.program, b.program); c != 0 {
		return c
	}
	return strings.Compare(a.kernel, b.kernel)
}

// checkExportsAgree exports in (flags before it) to parquet, pprof and
// kineto under dir, reads each back and compares it with tally report
// --json.
func checkExportsAgree(t *testing.T, flags []string, in, dir string) {
	cmd := func(args ...string) []string { return append(append(args, flags...), in) }
	js, want, _, strictCode := reportJSON(t, cmd("report", "--json"))
	tables := jsonTables(t, js)
	export := func(to, out string) (stderr string) {
		t.Helper()
		code, _, errOut := tallyRun(cmd("export", "--to", to, "--strict", "-o", out)...)
		if code != strictCode {
			t.Errorf("export --to %s --strict: exit %d, want %d (the JSON says %s): %s", to, code, strictCode, want.verdict, errOut)
		}
		return errOut
	}

	ds := filepath.Join(dir, "e.parquet")
	export("parquet", ds)
	checkParquet(t, ds, want, tables)

	prof := filepath.Join(dir, "e.pb.gz")
	export("pprof", prof)
	checkPProf(t, prof, want, tables)

	kin := filepath.Join(dir, "e.json")
	code, _, errOut := tallyRun(cmd("export", "--to", "kineto", "--strict", "-o", kin)...)
	if code == 2 && strings.Contains(errOut, "ranks: kineto writes one rank per file") {
		// An input of several ranks is a directory of rank files.
		kin = filepath.Join(dir, "e-kineto")
		export("kineto", kin)
	} else if code != strictCode {
		t.Errorf("export --to kineto --strict: exit %d, want %d (the JSON says %s): %s", code, strictCode, want.verdict, errOut)
	}
	checkKineto(t, kin, want, tables)
}

// Parquet columns as docs/export.md names them (the tables' own structs
// are not used: a renamed column must fail here).
type (
	pqDispatch struct {
		Rank       string `parquet:"rank"`
		Device     string `parquet:"device"`
		Program    string `parquet:"program"`
		Kernel     string `parquet:"kernel"`
		Dispatches int64  `parquet:"dispatches"`
		DeviceNs   *int64 `parquet:"device_ns,optional"`
	}
	pqKernel struct {
		Program    string `parquet:"program"`
		Kernel     string `parquet:"kernel"`
		Dispatches int64  `parquet:"dispatches"`
		Timed      int64  `parquet:"timed"`
		DeviceNs   *int64 `parquet:"device_ns,optional"`
	}
	pqProgram struct {
		Program    string `parquet:"program"`
		Dispatches int64  `parquet:"dispatches"`
		Timed      int64  `parquet:"timed"`
		DeviceNs   *int64 `parquet:"device_ns,optional"`
		ClockUnit  string `parquet:"clock_unit"`
	}
	pqGap struct {
		Input        int32  `parquet:"input"`
		Record       string `parquet:"record"`
		Kind         string `parquet:"kind"`
		Count        int64  `parquet:"count"`
		Note         bool   `parquet:"note"`
		SizeKnown    *bool  `parquet:"size_known,optional"`
		Missing      *int64 `parquet:"missing_device_time,optional"`
		Unattributed *int64 `parquet:"unattributed_device_time,optional"`
		Lost         *int64 `parquet:"lost_dispatches,optional"`
	}
	pqInput struct {
		Complete   bool  `parquet:"complete"`
		Gaps       int64 `parquet:"gaps"`
		Unfinished int64 `parquet:"unfinished"`
		Dispatches int64 `parquet:"dispatches"`
	}
)

func readParquet[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatalf("parquet %s: got error %v, want none", path, err)
	}
	return rows
}

// checkParquet reads the dataset ds: its dispatch rows and kernels and
// programs tables against the report's tables, its gaps table's gaps and
// notes (with what they touch), its inputs table's and marker's verdict and
// unfinished count against the report's accounting.
func checkParquet(t *testing.T, ds string, want accountingView, tables reportTables) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(ds, "dispatches", "*", "*.parquet"))
	programs := readParquet[pqProgram](t, filepath.Join(ds, "programs.parquet"))
	unit := map[string]string{}
	gotProg := map[string]kernelFig{}
	for _, p := range programs {
		unit[p.Program] = p.ClockUnit
		f := gotProg[p.Program]
		f.dispatches += p.Dispatches
		f.timed += p.Timed
		if p.DeviceNs != nil {
			f.ns += *p.DeviceNs
		}
		gotProg[p.Program] = f
	}
	ns := func(program string, v *int64) int64 {
		if v == nil || unit[program] != "ns" {
			return 0
		}
		return *v
	}
	v := newView()
	v.addGap("", 0, false)
	v.touches = map[string]touch{}
	v.dispatches, v.deviceNs = 0, 0
	byRows := map[kernelKey]kernelFig{}
	for _, f := range files {
		for _, r := range readParquet[pqDispatch](t, f) {
			r.Program = splitProgram(tables, r.Rank, r.Device, r.Program)
			k := kernelKey{r.Program, r.Kernel}
			kf := byRows[k]
			kf.dispatches += r.Dispatches
			kf.ns += ns(r.Program, r.DeviceNs)
			byRows[k] = kf
			v.dispatches += r.Dispatches
			v.deviceNs += ns(r.Program, r.DeviceNs)
		}
	}
	kernels := map[kernelKey]kernelFig{}
	for _, r := range readParquet[pqKernel](t, filepath.Join(ds, "kernels.parquet")) {
		k := kernelKey{r.Program, r.Kernel}
		kf := kernels[k]
		kf.dispatches += r.Dispatches
		kf.timed += r.Timed
		kf.ns += ns(r.Program, r.DeviceNs)
		kernels[k] = kf
	}
	compareKernels(t, "parquet kernels.parquet", kernels, tables.kernels)
	// Dispatch rows carry no timed count: compared without it.
	wantRows := map[kernelKey]kernelFig{}
	for k, f := range tables.kernels {
		f.timed = 0
		if tables.unit[k.program] != "ns" {
			f.ns = 0
		}
		wantRows[k] = f
	}
	compareKernels(t, "parquet dispatches/", byRows, wantRows)
	for name, f := range tables.programs {
		if tables.unit[name] != "ns" {
			f.ns = 0
		}
		if g := gotProg[name]; g != f || unit[name] != tables.unit[name] {
			t.Errorf("parquet programs.parquet: program %q: got %v in %q, want %v in %q", name, g, unit[name], f, tables.unit[name])
		}
	}

	for _, g := range readParquet[pqGap](t, filepath.Join(ds, "gaps.parquet")) {
		if g.Record != "gap" {
			continue
		}
		v.addGap(g.Kind, g.Count, g.Note)
		if g.SizeKnown != nil {
			v.addTouch(g.Kind, touch{*g.SizeKnown, deref(g.Missing), deref(g.Unattributed), deref(g.Lost)})
		}
	}
	inputs := readParquet[pqInput](t, filepath.Join(ds, "inputs.parquet"))
	if len(inputs) != 1 {
		t.Fatalf("parquet inputs.parquet: got %d rows, want 1", len(inputs))
	}
	in := inputs[0]
	v.verdict = verdictOf(in.Complete)
	if in.Unfinished != v.gaps["unfinished_dispatch"] {
		t.Errorf("parquet inputs.parquet: unfinished %d, gaps.parquet's unfinished_dispatch %d, want the same", in.Unfinished, v.gaps["unfinished_dispatch"])
	}
	var sum int64
	for _, n := range v.gaps {
		sum += n
	}
	if in.Gaps != sum {
		t.Errorf("parquet inputs.parquet: gaps %d, want the gaps table's non-note counts summed, %d", in.Gaps, sum)
	}
	if in.Dispatches != v.dispatches {
		t.Errorf("parquet inputs.parquet: dispatches %d, want the dispatch rows' %d", in.Dispatches, v.dispatches)
	}
	var marker struct {
		Schema string `json:"schema"`
		Inputs []struct {
			Complete bool `json:"complete"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(readOut(t, filepath.Join(ds, "_tally_export.json")), &marker); err != nil || marker.Schema != "tally.export/v1" || len(marker.Inputs) != 1 {
		t.Errorf("parquet _tally_export.json: %v, schema %q, %d inputs; want tally.export/v1 of 1 input", err, marker.Schema, len(marker.Inputs))
	} else if marker.Inputs[0].Complete != in.Complete {
		t.Errorf("parquet _tally_export.json: complete %v, inputs.parquet %v, want the same", marker.Inputs[0].Complete, in.Complete)
	}
	for _, d := range v.disagreements(want) {
		t.Errorf("parquet: %s", d)
	}
}

// splitProgram is the report's program of a dispatch row: a dispatch is
// read before its program is split by device (docs/export.md, "The
// dispatch table"), so its row names the reader's program, and the report
// names that program's part on each device "rank R · DEVICE · PROGRAM".
func splitProgram(tables reportTables, rank, device, program string) string {
	part := capture.Queue{Rank: rank, Device: device}.Label() + " · " + program
	if _, ok := tables.programs[part]; ok {
		return part
	}
	return program
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

var (
	ppGapComment     = regexp.MustCompile(`^input 0 (GAP|note) (\S+) \((\d+)\)`)
	ppVerdictComment = regexp.MustCompile(`^input 0: .*\(from [^)]*\): (complete|INCOMPLETE)`)
)

// checkPProf reads the profile: its samples per (program, kernel) frame
// against the report's tables (status=unfinished samples apart: they are
// the unfinished dispatches), its comments' verdict, gaps and notes
// against the report's accounting.
func checkPProf(t *testing.T, path string, want accountingView, tables reportTables) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("pprof: got error %v, want none", err)
	}
	idx := map[string]int{}
	for i, st := range p.SampleType {
		idx[st.Type] = i
	}
	if len(idx) != 3 || p.SampleType[idx["gpu_time"]].Unit != "nanoseconds" {
		t.Fatalf("pprof: sample types %v, want dispatches, gpu_time (nanoseconds), unfinished", p.SampleType)
	}
	v := newView()
	v.addGap("", 0, false)
	v.dispatches, v.deviceNs = 0, 0
	kernels := map[kernelKey]kernelFig{}
	var unfinished, unfinishedDispatches int64
	for _, s := range p.Sample {
		if len(s.Location) != 3 {
			t.Fatalf("pprof: a sample of %d frames, want kernel, program, rank", len(s.Location))
		}
		name := func(i int) string { return s.Location[i].Line[0].Function.Name }
		program, ok := strings.CutPrefix(name(1), "program ")
		if !ok && name(1) != "(no program)" {
			t.Errorf("pprof: program frame %q, want \"program P\"", name(1))
		}
		d, ns, u := s.Value[idx["dispatches"]], s.Value[idx["gpu_time"]], s.Value[idx["unfinished"]]
		unfinished += u
		if slices.Equal(s.Label["status"], []string{"unfinished"}) {
			unfinishedDispatches += d
			if ns != 0 || u != d {
				t.Errorf("pprof: unfinished sample %q: %d dispatches, %d unfinished, %d ns; want one unfinished a dispatch and no time", name(0), d, u, ns)
			}
			continue
		}
		if u != 0 {
			t.Errorf("pprof: sample %q (status %v): %d unfinished, want 0", name(0), s.Label["status"], u)
		}
		k := kernelKey{program, name(0)}
		kf := kernels[k]
		kf.dispatches += d
		kf.ns += ns
		kernels[k] = kf
		v.dispatches += d
		v.deviceNs += ns
	}
	wantK := map[kernelKey]kernelFig{}
	for k, f := range tables.kernels {
		f.timed = 0 // a sample does not tell
		if tables.unit[k.program] != "ns" {
			f.ns = 0 // status=ticks: no time
		}
		wantK[k] = f
	}
	compareKernels(t, "pprof samples", kernels, wantK)
	if unfinishedDispatches != unfinished {
		t.Errorf("pprof: %d unfinished dispatches, %d unfinished in all, want the same", unfinishedDispatches, unfinished)
	}
	for _, c := range p.Comments {
		if m := ppVerdictComment.FindStringSubmatch(c); m != nil {
			v.verdict = strings.ToLower(m[1])
		}
		// The export's own lines ("input 0 export aggregated_records (N)")
		// are no gap of the capture: labelled GAP or note, they would be
		// one more kind than the report holds.
		if m := ppGapComment.FindStringSubmatch(c); m != nil {
			n, _ := strconv.ParseInt(m[3], 10, 64)
			v.addGap(m[2], n, m[1] == "note")
		}
	}
	if v.verdict == "" {
		t.Errorf("pprof: want a comment stating input 0's verdict, got:\n%s", strings.Join(p.Comments, "\n"))
	}
	if v.unfinished != -1 && v.unfinished != unfinished {
		t.Errorf("pprof: comments count %d unfinished dispatches, samples %d, want the same", v.unfinished, unfinished)
	}
	if v.unfinished < 0 {
		v.unfinished = unfinished
	}
	for _, d := range v.disagreements(want) {
		t.Errorf("pprof: %s", d)
	}
}

// kinetoBlock is what the check reads of the exported file's "tally"
// block (docs/export.md, "Reading it back").
type kinetoBlock struct {
	Schema   string `json:"schema"`
	Complete bool   `json:"complete"`
	Gaps     []struct {
		Kind  string `json:"kind"`
		Count int64  `json:"count"`
		Note  bool   `json:"note"`
	} `json:"gaps"`
	Events   map[string]int64 `json:"events"`
	File     map[string]int64 `json:"file"`
	Programs []struct {
		Name       string `json:"name"`
		Events     int64  `json:"events"`
		NotWritten int64  `json:"not_written"`
	} `json:"programs"`
}

// checkKineto reads the export at path (a .json file, or a directory of
// rank files) with tally report --json, as a user would, and compares it
// with the input's report. The differences docs/export.md states, and only
// those, are expected: dispatches the export wrote no event for are a
// skipped_input gap of their program and not in the tables (a file holding
// no kernel event is an empty_capture saying so); the input's gaps are
// carried as they were. Each rank file of a directory carries the whole
// input's gaps.
func checkKineto(t *testing.T, path string, want accountingView, tables reportTables) {
	t.Helper()
	var files []string
	if st, err := os.Stat(path); err != nil {
		t.Fatalf("kineto: got error %v, want none", err)
	} else if st.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "rank-*.json"))
		if len(files) < 2 {
			t.Fatalf("kineto: %s holds %d rank files, want one per rank (2 or more)", path, len(files))
		}
	} else {
		files = []string{path}
	}
	got := newTables()
	notWritten := map[string]int64{}
	var allEvents, fileEvents int64
	for _, f := range files {
		var doc struct {
			Tally kinetoBlock `json:"tally"`
		}
		if err := json.Unmarshal(readOut(t, f), &doc); err != nil || doc.Tally.Schema != "tally.kineto/v2" {
			t.Fatalf("kineto %s: %v, tally block schema %q, want tally.kineto/v2", f, err, doc.Tally.Schema)
		}
		b := doc.Tally
		// The block states the input's accounting as the report does.
		bv := newView()
		bv.verdict = verdictOf(b.Complete)
		bv.addGap("", 0, false)
		for _, g := range b.Gaps {
			bv.addGap(g.Kind, g.Count, g.Note)
		}
		for _, d := range bv.disagreements(want) {
			t.Errorf("kineto %s: tally block: %s", filepath.Base(f), d)
		}
		var events int64
		fileNotWritten := map[string]int64{}
		for _, p := range b.Programs {
			events += p.Events
			fileNotWritten[p.Name] += p.NotWritten
		}
		// events counts the whole input's, file this file's.
		if events != b.File["kernels"] {
			t.Errorf("kineto %s: programs hold %d events, file.kernels %d, want the same", filepath.Base(f), events, b.File["kernels"])
		}
		allEvents, fileEvents = b.Events["kernels"], fileEvents+events

		// The read-back: the input's gaps carried as they were, what was
		// not written, the kernels written.
		code, js, errOut := tallyRun("report", "--json", f)
		wantCode := 0
		if events == 0 {
			wantCode = 2 // an empty capture, as any
		}
		if code != wantCode {
			t.Errorf("kineto %s read back: exit %d, want %d: %s", filepath.Base(f), code, wantCode, errOut)
		}
		checkReadBackGaps(t, "kineto "+filepath.Base(f)+" read back", js, want, fileNotWritten, events)
		var doc2 struct {
			Programs []jsonProgram `json:"programs"`
		}
		if err := json.Unmarshal([]byte(js), &doc2); err != nil {
			t.Fatalf("kineto %s read back: got %v, want JSON", filepath.Base(f), err)
		}
		got.addPrograms(doc2.Programs)
		for name, n := range fileNotWritten {
			notWritten[name] += n
		}
	}
	if fileEvents != allEvents {
		t.Errorf("kineto: the files hold %d kernel events, events.kernels (the whole input's) %d, want the same", fileEvents, allEvents)
	}
	// Every dispatch is an event of the read-back or counted not written,
	// program by program; kernels of programs written whole read back
	// with their counts and device time.
	wantK := map[kernelKey]kernelFig{}
	for k, f := range tables.kernels {
		if tables.unit[k.program] != "ns" {
			continue // device ticks: no event (docs/export.md, "Units")
		}
		if notWritten[k.program] == 0 {
			wantK[k] = f
		}
	}
	gotK := map[kernelKey]kernelFig{}
	for k, f := range got.kernels {
		if _, ok := tables.programs[k.program]; ok && notWritten[k.program] == 0 && tables.unit[k.program] == "ns" {
			gotK[k] = f
		}
	}
	compareKernels(t, "kineto read back", gotK, wantK)
	for name, f := range tables.programs {
		g := got.programs[name]
		if g.dispatches+notWritten[name] != f.dispatches {
			t.Errorf("kineto read back: program %q: %d dispatches + %d not written, want the input's %d", name, g.dispatches, notWritten[name], f.dispatches)
		}
	}
	for name, g := range got.programs {
		if _, ok := tables.programs[name]; !ok && g.dispatches > 0 {
			t.Errorf("kineto read back: program %q with %v, want no such program", name, g)
		}
	}
}

// Summaries of the read-back's own gaps (format/kineto/tallyfinish.go), and
// of those it carries.
const (
	carriedPrefix    = "in the exported input: "
	notWrittenPrefix = "tally export wrote no event for these dispatches"
	noEventPrefix    = "no kernel event in this file: tally export wrote none"
)

// checkReadBackGaps compares a Kineto read-back's gaps (tally report --json
// js) with the exported input's (want): every gap of the input is carried
// (its kind, count and note, its summary marked), and the read-back adds
// exactly what docs/export.md states: one skipped_input per program with
// dispatches not written (their count), and an empty_capture when the file
// holds no kernel event and the input itself was not empty. Its verdict is
// the input's, or incomplete for those.
func checkReadBackGaps(t *testing.T, what, js string, want accountingView, notWritten map[string]int64, events int64) {
	t.Helper()
	var doc struct {
		Accounting struct {
			Complete bool `json:"complete"`
			Gaps     []struct {
				Kind    string `json:"kind"`
				Program string `json:"program"`
				Count   int64  `json:"count"`
				Note    bool   `json:"note"`
				Summary string `json:"summary"`
			} `json:"gaps"`
		} `json:"accounting"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%s: got %v, want JSON", what, err)
	}
	carried := newView()
	carried.addGap("", 0, false)
	own := map[string]int64{} // "kind program" → count
	for _, g := range doc.Accounting.Gaps {
		switch {
		case strings.HasPrefix(g.Summary, carriedPrefix):
			carried.addGap(g.Kind, g.Count, g.Note)
		case g.Kind == "skipped_input" && strings.HasPrefix(g.Summary, notWrittenPrefix) && !g.Note:
			own[g.Kind+" "+g.Program] += g.Count
		case g.Kind == "empty_capture" && strings.HasPrefix(g.Summary, noEventPrefix) && !g.Note:
			own[g.Kind] += g.Count
		default:
			t.Errorf("%s: gap %s (%d, note %v) in program %q: %.200q; want only the input's gaps (carried) and what the export did not write", what, g.Kind, g.Count, g.Note, g.Program, g.Summary)
		}
	}
	if carried.unfinished < 0 {
		carried.unfinished = 0
	}
	cw := want
	cw.verdict, cw.touches, cw.empty, cw.dispatches, cw.deviceNs = "", nil, -1, -1, -1
	for _, d := range carried.disagreements(cw) {
		t.Errorf("%s: carried gaps: %s", what, d)
	}
	wantOwn := map[string]int64{}
	for p, n := range notWritten {
		if n > 0 {
			wantOwn["skipped_input "+p] = n
		}
	}
	if events == 0 && want.empty != 1 {
		wantOwn["empty_capture"] = 1
	}
	if !mapsEqual(own, wantOwn) {
		t.Errorf("%s: its own gaps %v, want %v (docs/export.md, \"Reading it back\")", what, own, wantOwn)
	}
	wantVerdict := want.verdict
	if len(wantOwn) > 0 {
		wantVerdict = "incomplete"
	}
	if got := verdictOf(doc.Accounting.Complete); got != wantVerdict {
		t.Errorf("%s: verdict %s, want %s", what, got, wantVerdict)
	}
}
