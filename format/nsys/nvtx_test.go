package nsys

import (
	"regexp"
	"testing"
)

// TestSamplePrograms recomputes each kernel's program from the raw tables
// by brute force: its launch (same correlation id and process), then of
// the NVTX ranges on the launching thread that contain the launch's start,
// the one that starts first.
func TestSamplePrograms(t *testing.T) {
	r := readPath(t, sample)
	got := map[string]int{}
	for _, d := range r.disp {
		if r.c.Kernels[d.Kernel].Category == "kernel" {
			got[r.c.Programs[d.Program].Name]++
		}
	}
	db := openRaw(t, sample)
	type rng struct {
		start, end int64
		name       string
	}
	byTid := map[int64][]rng{}
	rows, err := db.Query(`SELECT start, "end", globalTid, text FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND "end" IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var x rng
		var tid int64
		if err := rows.Scan(&x.start, &x.end, &tid, &x.name); err != nil {
			t.Fatal(err)
		}
		byTid[tid] = append(byTid[tid], x)
	}
	rows.Close()
	suffix := regexp.MustCompile(`, op_id = \d+$`)
	want := map[string]int{}
	rows, err = db.Query(`SELECT r.start, r.globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL k
		LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var start, tid *int64
		if err := rows.Scan(&start, &tid); err != nil {
			t.Fatal(err)
		}
		name := "(no NVTX range)"
		if start != nil {
			var best *rng
			for i, x := range byTid[*tid] {
				if x.start <= *start && *start <= x.end && (best == nil || x.start < best.start || (x.start == best.start && x.end > best.end)) {
					best = &byTid[*tid][i]
				}
			}
			if best != nil {
				name = suffix.ReplaceAllString(best.name, "")
			}
		}
		want[name]++
	}
	if len(want) != len(got) {
		t.Errorf("%d programs, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("program %q: %d kernels, want %d", k, got[k], v)
		}
	}
}
