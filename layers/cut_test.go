package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutLayer is the layer every cut test cuts, between two whole ones.
const cutLayer = 1

// wantCut checks a report in which ours' layer cutLayer was cut: the layer
// is malformed in the text and the JSON, the verdict is a finding (so
// --strict fails), and it is neither "not written" nor compared on the
// part that is left as if it were whole.
func wantCut(t *testing.T, what string, rep *Report) {
	t.Helper()
	ly := byLayer(rep, cutLayer)
	if ly == nil || ly.Status != "malformed" || ly.Metrics != nil {
		t.Fatalf("%s: layer %d got %+v, want malformed without figures", what, cutLayer, ly)
	}
	if !rep.Findings() {
		t.Errorf("%s: Findings() got false, want true (--strict must fail)", what)
	}
	out := text(t, rep)
	if !strings.Contains(out, fmt.Sprintf("MALFORMED layer %d: ", cutLayer)) || !strings.HasPrefix(out[strings.LastIndex(out, "\n\n")+2:], "FINDINGS: ") {
		t.Errorf("%s: text got\n%s\nwant MALFORMED layer %d and a FINDINGS verdict", what, out, cutLayer)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Layers []struct {
			Layer  int64  `json:"layer"`
			Status string `json:"status"`
		} `json:"layers"`
		Totals Totals `json:"totals"`
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	for _, l := range j.Layers {
		if l.Layer == cutLayer && l.Status != "malformed" {
			t.Errorf("%s: JSON layer %d status got %q, want malformed", what, cutLayer, l.Status)
		}
	}
	if j.Totals.Malformed != 1 || j.Totals.NotWritten != 0 || j.Totals.Compared != 2 {
		t.Errorf("%s: JSON totals got %+v, want 1 malformed, 0 not written, 2 compared", what, j.Totals)
	}
}

// cutEvery writes three layers on both sides with write, then for every
// length shorter than whole less tail (bytes whose loss loses nothing)
// cuts ours' file named name of layer
// cutLayer to it and wants the layer malformed.
func cutEvery(t *testing.T, name string, tail int, opt Options, write func(dir string, l int)) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < 3; l++ {
		write(ref, l)
		write(ours, l)
	}
	p := filepath.Join(ours, name)
	whole, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(whole)-tail; n++ {
		if err := os.WriteFile(p, whole[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ref, ours, opt)
		if err != nil {
			t.Fatalf("%s cut to %d bytes: got error %v, want a report", name, n, err)
		}
		wantCut(t, fmt.Sprintf("%s cut to %d of %d bytes", name, n, len(whole)), rep)
	}
}

const (
	cm, ch = 3, 4 // a small dump: 3 rows of 4
)

func cutValue(r, c int) float64 { return value(cutLayer, r, c) }

// The probe's sidecar, as probe.WriteLayer writes it (newline included).
func probeSidecar(t *testing.T, dir string, l int) {
	writeFile(t, filepath.Join(dir, fmt.Sprintf("layer_%d.json", l)), fmt.Sprintf("{\"shape\":[%d,%d],\"dtype\":\"f32\"}\n", cm, ch))
}

func TestCutF32WithSidecar(t *testing.T) {
	cutEvery(t, "layer_1.f32", 0, Options{}, func(dir string, l int) {
		writeF32(t, dir, l, cm, ch, cutValue)
		probeSidecar(t, dir, l)
	})
}

// Without a sidecar or --hidden, a cut at a multiple of 4 is only seen
// against the other side's size: still malformed, never compared on the
// values left.
func TestCutBareF32(t *testing.T) {
	cutEvery(t, "layer_1.f32", 0, Options{}, func(dir string, l int) { writeF32(t, dir, l, cm, ch, cutValue) })
	cutEvery(t, "layer_1.f32", 0, Options{Hidden: ch}, func(dir string, l int) { writeF32(t, dir, l, cm, ch, cutValue) })
}

// A sidecar cut anywhere but its final newline (tail 1) is malformed JSON,
// and the layer with it (an empty sidecar too).
func TestCutSidecar(t *testing.T) {
	cutEvery(t, "layer_1.json", 1, Options{}, func(dir string, l int) {
		writeF32(t, dir, l, cm, ch, cutValue)
		probeSidecar(t, dir, l)
	})
}

func TestCutNpy(t *testing.T) {
	for _, major := range []byte{1, 2} {
		cutEvery(t, "layer_1.npy", 0, Options{}, func(dir string, l int) {
			writeNpy(t, filepath.Join(dir, fmt.Sprintf("layer_%d.npy", l)), major, "<f4", []int{cm, ch}, func(i int) float64 { return cutValue(i/ch, i%ch) })
		})
	}
}
