package layers

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// namesDirs writes whole layers 0 and 1 on both sides.
func namesDirs(t *testing.T) (ref, ours string) {
	ref, ours = t.TempDir(), t.TempDir()
	for l := 0; l < 2; l++ {
		writeF32(t, ref, l, cm, ch, cutValue)
		writeF32(t, ours, l, cm, ch, cutValue)
	}
	return ref, ours
}

// A name that matches the pattern with a layer number out of range is
// named and a finding, never dropped as if the file were not there.
func TestOutOfRangeLayerNames(t *testing.T) {
	ref, ours := namesDirs(t)
	bad := []string{"layer_-2.f32", "layer_99999999999999999999.f32", "layer_1048576.npy"}
	for _, n := range bad {
		writeF32(t, ours, 0, cm, ch, cutValue) // the same bytes under a bad name
		writeFile(t, filepath.Join(ours, n), "abcd")
	}
	rep := run(t, ref, ours, Options{})
	if rep.Totals.Unusable != len(bad) || len(rep.Unusable) != len(bad) || !rep.Findings() {
		t.Fatalf("got %d unusable (%+v), findings %v; want %d and a finding", rep.Totals.Unusable, rep.Unusable, rep.Findings(), len(bad))
	}
	out := text(t, rep)
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, n := range bad {
		if !strings.Contains(out, "UNUSABLE FILE "+filepath.Join(ours, n)+": layer number") {
			t.Errorf("got text without %s named unusable, want \"UNUSABLE FILE …: layer number\" in:\n%s", n, out)
		}
		if !bytes.Contains(b.Bytes(), []byte(`"file": "`+filepath.Join(ours, n)+`"`)) {
			t.Errorf("got JSON without %s in unusable_files, want it there:\n%s", n, b.String())
		}
	}
	if !strings.Contains(out, "\nFINDINGS: ") {
		t.Errorf("verdict got\n%s\nwant FINDINGS", out)
	}
	// The negative arm: -1 (the embedding row) and the largest number are
	// layers, not unusable names.
	ref, ours = namesDirs(t)
	writeF32(t, ref, -1, cm, ch, cutValue)
	writeF32(t, ours, -1, cm, ch, cutValue)
	rep = run(t, ref, ours, Options{})
	if rep.Totals.Unusable != 0 || rep.Totals.Compared != 3 || rep.Findings() {
		t.Errorf("layers -1, 0, 1: got %+v, want 3 compared and no finding", rep.Totals)
	}
	// Only unusable names: nothing compared, and the reason names the file.
	ref, ours = t.TempDir(), t.TempDir()
	writeF32(t, ref, 0, cm, ch, cutValue)
	writeFile(t, filepath.Join(ours, "layer_-7.f32"), "abcd")
	rep = run(t, ref, ours, Options{})
	if !strings.Contains(rep.NothingCompared, "layer_-7.f32") {
		t.Errorf("nothing compared got %q, want it to name layer_-7.f32", rep.NothingCompared)
	}
}

// A zero-length dump is what a writer whose fopen worked and whose fwrite
// failed leaves; a tensor of no values on both sides compares nothing.
// Either is malformed, never "ok" with figures over nothing.
func TestEmptyDumps(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(ref, ours string)
		want string
	}{
		{"zero-length .f32 both sides", func(ref, ours string) {
			writeFile(t, filepath.Join(ref, "layer_2.f32"), "")
			writeFile(t, filepath.Join(ours, "layer_2.f32"), "")
		}, "layer_2.f32 is empty (0 bytes): the dump was created but not written"},
		{"zero-length .f32 against a whole one", func(ref, ours string) {
			writeF32(t, ref, 2, cm, ch, cutValue)
			writeFile(t, filepath.Join(ours, "layer_2.f32"), "")
		}, "layer_2.f32 is empty (0 bytes)"},
		{".npy of shape (0, 4) both sides", func(ref, ours string) {
			writeNpy(t, filepath.Join(ref, "layer_2.npy"), 1, "<f4", []int{0, ch}, nil)
			writeNpy(t, filepath.Join(ours, "layer_2.npy"), 1, "<f4", []int{0, ch}, nil)
		}, "both tensors hold no values"},
	} {
		ref, ours := namesDirs(t)
		c.make(ref, ours)
		rep := run(t, ref, ours, Options{})
		ly := byLayer(rep, 2)
		if ly == nil || ly.Status != "malformed" || !strings.Contains(ly.Problem, c.want) || !rep.Findings() {
			t.Errorf("%s: got %+v, want malformed %q and a finding", c.name, ly, c.want)
		}
	}
	// The negative arm: one value on each side is compared.
	ref, ours := namesDirs(t)
	writeF32(t, ref, 2, 1, 1, cutValue)
	writeF32(t, ours, 2, 1, 1, cutValue)
	if ly := byLayer(run(t, ref, ours, Options{}), 2); ly.Status != "compared" {
		t.Errorf("one value each: got %s %q, want compared", ly.Status, ly.Problem)
	}
}

// Two files for one layer on one side (.f32 and .npy, or layer_3 and
// layer_03) are malformed, naming both, never one picked.
func TestDuplicateLayerFiles(t *testing.T) {
	for _, second := range []string{"layer_1.npy", "layer_01.f32"} {
		ref, ours := namesDirs(t)
		writeNpy(t, filepath.Join(ours, second), 1, "<f4", []int{cm, ch}, nil)
		rep := run(t, ref, ours, Options{})
		ly := byLayer(rep, 1)
		if ly.Status != "malformed" || !strings.Contains(ly.Problem, "more than one file for layer 1") || !strings.Contains(ly.Problem, second) {
			t.Errorf("%s: got %s %q, want malformed naming both files", second, ly.Status, ly.Problem)
		}
	}
}

// Spaces and non-ASCII text in names matched by * are files like any
// other; the JSON keeps the names as they are.
func TestOddNamesPaired(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < 2; l++ {
		writeF32(t, ref, l, cm, ch, cutValue)
	}
	for _, n := range []string{"blk é 0.f32", "blk é 1.f32"} {
		writeFile(t, filepath.Join(ours, n), string(f32Row()))
	}
	rep := run(t, ref, ours, Options{Map: "layer_{l}.f32=blk*{l}.f32"})
	if rep.Totals.Compared != 2 || rep.Findings() {
		t.Fatalf("got %+v, want 2 compared", rep.Totals)
	}
	var b bytes.Buffer
	rep.WriteJSON(&b)
	var j struct {
		Layers []struct{ Ours struct{ File string } }
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil || !strings.HasSuffix(j.Layers[0].Ours.File, "blk é 0.f32") {
		t.Errorf("JSON ours file got %+v (%v), want …blk é 0.f32", j.Layers, err)
	}
}

// f32Row is cm×ch values of cutValue as raw float32.
func f32Row() []byte {
	var v []float64
	for r := 0; r < cm; r++ {
		for c := 0; c < ch; c++ {
			v = append(v, cutValue(r, c))
		}
	}
	return f32Bytes(v...)
}

// A sidecar without its .f32 — on both sides, past every layer the other
// side has — is a dump whose data was not written: named as unusable and
// a finding, never left out as a layer that did not run. A sidecar with
// its data file is the dump's, and no finding.
func TestSidecarWithoutData(t *testing.T) {
	ref, ours := namesDirs(t)
	sidecar(t, ref, 0, cm, ch)
	sidecar(t, ours, 0, cm, ch)
	rep := run(t, ref, ours, Options{})
	if rep.Totals.Unusable != 0 || rep.Findings() {
		t.Fatalf("sidecars with their data: got %+v, want no finding", rep.Totals)
	}
	sidecar(t, ref, 5, cm, ch)
	sidecar(t, ours, 5, cm, ch)
	rep = run(t, ref, ours, Options{})
	if rep.Totals.Unusable != 2 || !rep.Findings() {
		t.Fatalf("layer 5's sidecars alone: got %d unusable (%+v), findings %v; want 2 and a finding", rep.Totals.Unusable, rep.Unusable, rep.Findings())
	}
	if out := text(t, rep); !strings.Contains(out, "UNUSABLE FILE "+filepath.Join(ours, "layer_5.json")+": the sidecar of layer 5 without its data file layer_5.f32") {
		t.Errorf("got text without layer 5's lone sidecar named unusable, want it in:\n%s", out)
	}
}

// A JSON file beside a layer's .npy is no lone sidecar: the layer has its
// data file.
func TestJSONBesideNpyIsNoSidecar(t *testing.T) {
	ref, ours := namesDirs(t)
	writeNpy(t, filepath.Join(ref, "layer_2.npy"), 1, "<f4", []int{cm, ch}, func(i int) float64 { return cutValue(i/ch, i%ch) })
	writeF32(t, ours, 2, cm, ch, cutValue)
	writeFile(t, filepath.Join(ref, "layer_2.json"), `{"note": "metadata"}`)
	rep := run(t, ref, ours, Options{})
	for _, u := range rep.Unusable {
		if strings.HasSuffix(u.File, "layer_2.json") {
			t.Errorf("got layer_2.json beside layer_2.npy named unusable %+v, want it not", u)
		}
	}
}
