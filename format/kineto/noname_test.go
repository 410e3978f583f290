package kineto

import (
	"testing"
)

// A gpu_user_annotation whose "name" key is damaged (found by FuzzRead)
// names no program: its dispatches must still land in a program with a
// name — the model refuses an unnamed one, which the user would see as an
// internal error.
func TestAnnotationWithoutName(t *testing.T) {
	data := "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}], \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g\", \"pid\": 0, \"tid\": 7, \"ts\": 120, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 12, \"grid\": [1, 2, 3]}},\n" +
		"  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 100, \"tid\": 100, \"ts\": 100, \"dur\": 5, \"args\": {\"cbid\": 211, \"correlation\": 12}},\n" +
		"  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"nam\x84\": \"ProfilerStep#1\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 50, \"args\": {\"External id\": 1}},\n" +
		"  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": 0}]}"
	r := readT(t, data)
	if err := r.c.CheckValid(); err != nil {
		t.Fatalf("got a capture that breaks the model: %v; want a valid one", err)
	}
	for _, p := range r.c.Programs {
		if p.Name == "" {
			t.Fatalf("got an unnamed program in %+v, want every program named", r.c.Programs)
		}
	}
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1", len(r.disp))
	}
}
