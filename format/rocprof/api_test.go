package rocprof

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// apiExpect is the independent computation: encoding/csv over both files,
// columns by header name, the join done with plain maps.
type apiExpect struct {
	orphans, orphanNS, inside int64
	launch                    map[int64][2]int64 // kernel row's line → its API call's [start, end]
	unlaunched                map[string]int64
	shared, most              int64
}

func expectAPI(t *testing.T, kernelPath, apiPath string) apiExpect {
	t.Helper()
	type call struct {
		name       string
		start, end int64
	}
	calls := map[int64]call{}
	lo, hi := int64(-1), int64(-1)
	if apiPath != "" {
		recs := looseRecords(t, apiPath)
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		for _, r := range recs[1:] {
			if len(r) != len(recs[0]) {
				continue
			}
			id, _ := strconv.ParseInt(r[col["Correlation_Id"]], 10, 64)
			s, _ := strconv.ParseInt(r[col["Start_Timestamp"]], 10, 64)
			e, _ := strconv.ParseInt(r[col["End_Timestamp"]], 10, 64)
			calls[id] = call{r[col["Function"]], s, e}
			if lo < 0 || id < lo {
				lo = id
			}
			hi = max(hi, id)
		}
	}
	recs := csvRecords(t, kernelPath)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	x := apiExpect{launch: map[int64][2]int64{}, unlaunched: map[string]int64{}}
	per := map[int64]int64{}
	for i, r := range recs[1:] {
		id, _ := strconv.ParseInt(r[col["Correlation_Id"]], 10, 64)
		s, _ := strconv.ParseInt(r[col["Start_Timestamp"]], 10, 64)
		e, _ := strconv.ParseInt(r[col["End_Timestamp"]], 10, 64)
		per[id]++
		c, ok := calls[id]
		switch {
		case ok && (strings.Contains(c.name, "Launch") || strings.HasPrefix(c.name, "hipMemcpy") || strings.HasPrefix(c.name, "hipMemset")):
			x.launch[int64(i)] = [2]int64{c.start, c.end}
		case !ok && apiPath != "":
			x.orphans++
			x.orphanNS += e - s
			if id >= lo && id <= hi {
				x.inside++
			}
		}
	}
	for _, n := range per {
		if n > 1 {
			x.shared++
			x.most = max(x.most, n)
		}
	}
	for id, c := range calls {
		switch c.name {
		case "hipLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel", "hipGraphLaunch":
			if per[id] == 0 {
				x.unlaunched[c.name]++
			}
		}
	}
	return x
}

// checkAPI compares a read with the independent computation.
func checkAPI(t *testing.T, r result, x apiExpect) {
	t.Helper()
	a := &r.c.Accounting
	if g := a.Find(capture.GPUEventWithoutLaunch); x.orphans == 0 {
		if g != nil {
			t.Errorf("got an orphans gap, want none:\n%s", gapText(r.c))
		}
	} else if g == nil || g.Count != x.orphans || figure(g, "total_ns") != x.orphanNS || figure(g, "inside_api_range") != x.inside {
		t.Errorf("orphans: want %d (%d ns, %d inside the id range):\n%s", x.orphans, x.orphanNS, x.inside, gapText(r.c))
	}
	var unl int64
	for _, n := range x.unlaunched {
		unl += n
	}
	if g := a.Find(capture.LaunchWithoutGPUEvent); unl == 0 {
		if g != nil {
			t.Errorf("got an unlaunched gap, want none:\n%s", gapText(r.c))
		}
	} else if g == nil || g.Count != unl {
		t.Errorf("unlaunched: want %v:\n%s", x.unlaunched, gapText(r.c))
	} else {
		for name, n := range x.unlaunched {
			if figure(g, name) != n {
				t.Errorf("%s: %d, want %d", name, figure(g, name), n)
			}
		}
	}
	if g := a.Find(capture.GraphLaunch); x.shared == 0 {
		if g != nil {
			t.Errorf("got a shared-ids gap, want none:\n%s", gapText(r.c))
		}
	} else if g == nil || g.Count != x.shared || figure(g, "max_kernels_per_launch") != x.most {
		t.Errorf("shared ids: want %d, max %d:\n%s", x.shared, x.most, gapText(r.c))
	}
	// Dispatches arrive in file order here (no marker file).
	for i, d := range r.disp {
		want, ok := x.launch[int64(i)]
		if ok != d.Launch.Valid || (ok && (d.Launch.Begin != want[0] || d.Launch.End != want[1])) {
			t.Errorf("dispatch %d: launch %+v, want %v (%v)", i, d.Launch, want, ok)
		}
	}
}

const apiHdr = `"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"

func arow(fn string, corr, start, end int) string {
	return `"HIP_RUNTIME_API_EXT","` + fn + `",9,9,` + strconv.Itoa(corr) + "," + strconv.Itoa(start) + "," + strconv.Itoa(end) + "\n"
}

func crow(dispatch, corr, start, end int) string {
	return `"KERNEL_DISPATCH","Agent 4",1,1,9,` + strconv.Itoa(dispatch) + `,3,"k",` + strconv.Itoa(corr) + "," + strconv.Itoa(start) + "," + strconv.Itoa(end) + "\n"
}

func TestHIPAPIJoin(t *testing.T) {
	// API ids 1..20 with 7 and 8 missing (filtered in the middle);
	// dispatches for 1..12 (two for 10: a blit pair of a hipMemcpy), one
	// for 30 (after the API trace ended); a graph launch 12 with three
	// kernels; launches 13..16 and a graph launch 17 without dispatches;
	// the rest are calls that enqueue nothing.
	api := apiHdr
	for i := 1; i <= 20; i++ {
		fn := "hipLaunchKernel"
		switch {
		case i == 7 || i == 8:
			continue
		case i == 10:
			fn = "hipMemcpyAsync"
		case i == 11:
			fn = "hipGetLastError"
		case i == 12 || i == 17:
			fn = "hipGraphLaunch"
		case i == 15:
			fn = "hipModuleLaunchKernel"
		case i == 16:
			fn = "hipExtModuleLaunchKernel"
		case i >= 18:
			fn = "hipFree"
		}
		api += arow(fn, i, 1000*i, 1000*i+300)
	}
	api += "not,a,row\n"
	kt := hdr
	d := 1
	for i := 1; i <= 12; i++ {
		n := 1
		switch i {
		case 10:
			n = 2
		case 12:
			n = 3
		}
		for j := 0; j < n; j++ {
			kt += crow(d, i, 1000*i+500+10*j, 1000*i+505+10*j)
			d++
		}
	}
	kt += crow(d, 30, 40000, 40100)
	dir := writeFiles(t, map[string]string{"5_kernel_trace.csv": kt, "5_hip_api_trace.csv": api})
	kp, ap := filepath.Join(dir, "5_kernel_trace.csv"), filepath.Join(dir, "5_hip_api_trace.csv")
	r := readPath(t, kp, "")
	x := expectAPI(t, kp, ap)
	if x.orphans != 3 || x.inside != 2 || x.unlaunched["hipLaunchKernel"] != 2 || x.shared != 2 || x.most != 3 {
		t.Fatalf("the generated data changed: got %+v, want 3 orphans, 2 inside, 2 unlaunched hipLaunchKernel, 2 shared, most 3", x)
	}
	checkAPI(t, r, x)
	g := r.c.Accounting.Find(capture.GPUEventWithoutLaunch)
	if g == nil || !strings.Contains(g.Summary, "sub-sampled") {
		t.Errorf("want a GPUEventWithoutLaunch gap saying sub-sampled, got:\n%s", gapText(r.c))
	}
	// Links: the graph launch's kernels are graph-linked, hipGetLastError's
	// id gives a link without an interval, orphans are unlinked.
	links := map[capture.Link]int{}
	for _, d := range r.disp {
		links[d.Link]++
	}
	if links[capture.LinkGraph] != 3 || links[capture.LinkNoLaunch] != 3 || links[capture.LinkLaunched] != 10 {
		t.Errorf("got links %v, want 3 graph, 3 no-launch, 10 launched", links)
	}
	if in := r.c.Accounting.InputFor("API lines"); in.Read != 20 || in.Used != 19 || in.SkippedTotal() != 1 {
		t.Errorf("got API lines %+v, want 20 read, 19 used, 1 skipped", in)
	}
	if r.c.Accounting.Complete() {
		t.Error("got complete, want incomplete with orphans and unlaunched calls")
	}

	// Orphans only at the edges: not called sub-sampled.
	api = apiHdr + arow("hipLaunchKernel", 2, 100, 200) + arow("hipLaunchKernel", 3, 300, 400)
	kt = hdr + crow(1, 1, 50, 60) + crow(2, 2, 250, 260) + crow(3, 3, 450, 460) + crow(4, 4, 650, 660)
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": kt, "hip_runtime_trace.csv": api})
	kp, ap = filepath.Join(dir, "kernel_trace.csv"), filepath.Join(dir, "hip_runtime_trace.csv")
	r = readPath(t, kp, "")
	checkAPI(t, r, expectAPI(t, kp, ap))
	if g := r.c.Accounting.Find(capture.GPUEventWithoutLaunch); g == nil || strings.Contains(g.Summary, "sub-sampled") || g.Count != 2 {
		t.Errorf("edges: want a GPUEventWithoutLaunch gap of 2, not sub-sampled, got:\n%s", gapText(r.c))
	}

	// Negative arms: no API file — no linkage gaps, no launches; an API
	// file without the needed columns — named, not used.
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": kt})
	r = readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	for _, d := range r.disp {
		if d.Launch.Valid || d.Link != capture.LinkNone {
			t.Fatalf("launch without an API trace: got %+v, want no launch and no link", d)
		}
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("want complete, got:\n%s", gapText(r.c))
	}
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": kt, "hip_api_trace.csv": "a,b\n1,2\n"})
	r = readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	if !r.c.Accounting.Complete() || !strings.Contains(fmt.Sprint(r.c.Inventory[0].Fields), "no domain column") {
		t.Errorf("bad API file: want complete and a note of no domain column, got:\n%s\n%s", gapText(r.c), r.c.Inventory[0].Fields)
	}
}

// AMD's docs files: a hipLaunchKernel in hip_runtime_trace.csv beside a
// kernel file with no dispatch is "kernel tracing recorded nothing"
// (rocprofiler-sdk#58), not "no kernels ran".
func TestAPIEvidenceForEmptyKernelTrace(t *testing.T) {
	api := fixture.Read(t, "testdata/hip_runtime_trace.docs2025.csv")
	dir := writeFiles(t, map[string]string{"238_kernel_trace.csv": hdr, "238_hip_runtime_trace.csv": string(api)})
	kp := filepath.Join(dir, "238_kernel_trace.csv")
	r := readPath(t, kp, "")
	g := r.c.Accounting.Find(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Summary, "holds 1 kernel launch calls") {
		t.Fatalf("want an EmptyCapture gap saying it holds 1 kernel launch calls, got:\n%s", gapText(r.c))
	}
	x := expectAPI(t, kp, filepath.Join(dir, "238_hip_runtime_trace.csv"))
	if x.unlaunched["hipLaunchKernel"] != 1 {
		t.Fatalf("independent: got %+v, want 1 unlaunched hipLaunchKernel", x)
	}
	checkAPI(t, r, x)
	if in := r.c.Accounting.InputFor("API lines"); in.Read != 9 || in.Used != 9 {
		t.Errorf("got API lines %+v, want 9 read, 9 used", in)
	}
	// hip_trace.csv (compiler and runtime rows, no launch) beside the docs
	// kernel file. The docs files come from different runs, so the join
	// is whatever the ids say; the independent computation agrees.
	kt := fixture.Read(t, "testdata/docs2025_kernel_trace.csv")
	ht := fixture.Read(t, "testdata/hip_trace.docs2025.csv")
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": string(kt), "hip_trace.csv": string(ht)})
	kp = filepath.Join(dir, "kernel_trace.csv")
	r = readPath(t, kp, "")
	checkAPI(t, r, expectAPI(t, kp, filepath.Join(dir, "hip_trace.csv")))
}

// The fixtures' shared correlation ids (graph-style launches): prefill has
// 1,123 rows under one id, decode 4 ids with 24 each (spec facts).
func TestSharedCorrelationIDs(t *testing.T) {
	for _, tc := range []struct {
		file         string
		shared, most int64
	}{
		{"prefill_kernel_trace.csv", -1, 1123},
		{"decode_kernel_trace.csv", 4, 24},
		{"docs2025_kernel_trace.csv", 0, 0},
	} {
		path := "testdata/" + tc.file
		x := expectAPI(t, path, "")
		if x.most != tc.most || (tc.shared >= 0 && x.shared != tc.shared) {
			t.Fatalf("%s: independent: got %d shared ids, max %d; want %d, max %d", tc.file, x.shared, x.most, tc.shared, tc.most)
		}
		checkAPI(t, readPath(t, path, ""), x)
	}
}

// rocpd: HIP API regions (category HIP_*) carry the internal correlation
// id in their event's stack_id, as dispatches do.
func TestRocpdAPIJoin(t *testing.T) {
	s := runSuffix
	path := genRocpd(t,
		// API calls for correlation ids 1..80 except 50..52, and two
		// launches (95, 96) without a dispatch; dispatch 90 shares id 89.
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 96) INSERT INTO rocpd_event`+s+` SELECT 1000+i, 'g1', 6, i, 0, 0, '', '', '{}' FROM c WHERE (i <= 80 AND i NOT BETWEEN 50 AND 52) OR i >= 95`,
		`INSERT INTO rocpd_region`+s+` SELECT 100+e.id, 'g1', 1, 1, 1, 1000*e.stack_id-300, 1000*e.stack_id-100, 7, e.id, '{}' FROM rocpd_event`+s+` e WHERE e.id > 1000`,
		`UPDATE rocpd_event`+s+` SET stack_id = 89 WHERE id = 90`,
	)
	r := readPath(t, path, "")
	// Independent: SQL over the raw tables.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	api := `(SELECT e.stack_id AS corr, r.start, r."end" FROM rocpd_region` + s + ` r JOIN rocpd_event` + s + ` e ON e.id = r.event_id
		JOIN rocpd_string` + s + ` c ON c.id = e.category_id WHERE c.string LIKE 'HIP%' AND e.stack_id > 0)`
	var orphans, orphanNS, unlaunched, launched, inside int64
	if err := db.QueryRow(`SELECT count(*), sum(k."end" - k.start), sum(e.stack_id BETWEEN (SELECT min(corr) FROM `+api+`) AND (SELECT max(corr) FROM `+api+`)) FROM rocpd_kernel_dispatch`+s+` k JOIN rocpd_event`+s+` e ON e.id = k.event_id
		WHERE e.stack_id NOT IN (SELECT corr FROM `+api+`)`).Scan(&orphans, &orphanNS, &inside); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM ` + api + ` a WHERE a.corr NOT IN (SELECT e.stack_id FROM rocpd_kernel_dispatch` + s + ` k JOIN rocpd_event` + s + ` e ON e.id = k.event_id)`).Scan(&unlaunched); err != nil {
		t.Fatal(err)
	}
	want := map[int64][2]int64{} // dispatch start → launch
	rows, err := db.Query(`SELECT k.start, a.start, a."end" FROM rocpd_kernel_dispatch` + s + ` k JOIN rocpd_event` + s + ` e ON e.id = k.event_id JOIN ` + api + ` a ON a.corr = e.stack_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, b, e int64
		if err := rows.Scan(&k, &b, &e); err != nil {
			t.Fatal(err)
		}
		want[k] = [2]int64{b, e}
		launched++
	}
	rows.Close()
	if orphans != 13 || unlaunched != 2 || launched != 77 || inside != 13 {
		t.Fatalf("the generated data changed: got %d orphans, %d unlaunched, %d launched, %d inside; want 13, 2, 77, 13", orphans, unlaunched, launched, inside)
	}
	a := &r.c.Accounting
	g := a.Find(capture.GPUEventWithoutLaunch)
	if g == nil || g.Count != orphans || figure(g, "total_ns") != orphanNS || figure(g, "inside_api_range") != inside {
		t.Errorf("orphans: want %d, %d ns\n%s", orphans, orphanNS, gapText(r.c))
	}
	if g := a.Find(capture.LaunchWithoutGPUEvent); g == nil || g.Count != unlaunched || figure(g, "hipLaunchKernel") != unlaunched {
		t.Errorf("unlaunched: want %d\n%s", unlaunched, gapText(r.c))
	}
	if g := a.Find(capture.GraphLaunch); g == nil || g.Count != 1 || figure(g, "max_kernels_per_launch") != 2 {
		t.Errorf("shared id: want one GraphLaunch gap with max_kernels_per_launch 2, got:\n%s", gapText(r.c))
	}
	for _, d := range r.disp {
		w, ok := want[d.Device.Begin]
		if ok != d.Launch.Valid || (ok && (w[0] != d.Launch.Begin || w[1] != d.Launch.End)) {
			t.Errorf("dispatch at %d: launch %+v, want %v", d.Device.Begin, d.Launch, w)
		}
	}
	if in := a.InputFor("API regions"); in.Used != 79 || in.Read != 80 {
		t.Errorf("got API regions %+v, want 80 read, 79 used", in)
	}
	// Negative arm: the plain generated database (one HIP region without
	// a correlation id) has no API trace to join.
	r = readPath(t, genRocpd(t), "")
	if a := &r.c.Accounting; a.Find(capture.GPUEventWithoutLaunch) != nil || a.Find(capture.LaunchWithoutGPUEvent) != nil || !a.Complete() {
		t.Errorf("want complete with no launch gaps, got:\n%s", gapText(r.c))
	}
}

// idSet.has and idSet.missing against plain maps on random sets.
func TestIDSetMissing(t *testing.T) {
	rnd := uint64(42)
	next := func(n uint64) uint64 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return (rnd >> 33) % n
	}
	for round := 0; round < 300; round++ {
		var a, b idSet
		inA, inB := map[uint64]bool{}, map[uint64]bool{}
		for i := 0; i < int(next(60)); i++ {
			x := next(80)
			a.add(x)
			inA[x] = true
		}
		for i := 0; i < int(next(60)); i++ {
			x := next(80)
			b.add(x)
			inB[x] = true
		}
		lo, hi := next(80), next(80)
		var n, inside uint64
		for x := range inA {
			if !inB[x] {
				n++
				if x >= lo && x <= hi {
					inside++
				}
			}
		}
		gn, gi := a.missing(&b, lo, hi)
		if gn != n || gi != inside {
			t.Fatalf("round %d: missing %d/%d, want %d/%d (a %v b %v, range %d-%d)", round, gn, gi, n, inside, a.runs, b.runs, lo, hi)
		}
		for x := uint64(0); x < 80; x++ {
			if a.has(x) != inA[x] {
				t.Fatalf("has(%d): got %v, want %v", x, a.has(x), inA[x])
			}
		}
	}
}
