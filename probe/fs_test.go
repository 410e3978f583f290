package probe_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/probe"
)

// readOnlyDir returns a directory this process cannot create files in. Root
// ignores permission bits, so as root it is /sys, which root cannot write
// either.
func readOnlyDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		os.Remove(f.Name())
		if _, err := os.Stat("/sys/kernel"); err != nil {
			t.Skip("running as root and no /sys: no read-only directory to test with")
		}
		return "/sys"
	}
	return dir
}

func TestOpenDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	_, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: "/dev/full"})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("/dev/full: got %v, want an error saying no space left", err)
	}
}

func TestOpenReadOnlyDir(t *testing.T) {
	_, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: filepath.Join(readOnlyDir(t), "run.probe")})
	if err == nil || !strings.Contains(err.Error(), "cannot create") {
		t.Fatalf("read-only directory: got %v, want an error saying cannot create", err)
	}
}

func TestWriteLayer(t *testing.T) {
	dir := t.TempDir()
	s, _ := probe.Open(probe.Options{Log: &bytes.Buffer{}})
	data := []float32{1, -2.5, float32(math.Inf(1)), 0, 3, 4}
	if err := s.WriteLayer(dir, 7, data, [2]int{2, 3}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "layer_7.f32"))
	if err != nil || len(b) != 24 {
		t.Fatalf("got %d bytes, %v; want 24, no error", len(b), err)
	}
	for i, v := range data {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])); got != v {
			t.Fatalf("value %d: got %v, want %v", i, got, v)
		}
	}
	side, _ := os.ReadFile(filepath.Join(dir, "layer_7.json"))
	if string(side) != `{"shape":[2,3],"dtype":"f32"}`+"\n" {
		t.Fatalf("got sidecar %q, want %q", side, `{"shape":[2,3],"dtype":"f32"}`+"\n")
	}
	if err := s.WriteLayer(dir, 8, data, [2]int{4, 3}); err == nil {
		t.Fatal("shape mismatch: got no error, want one")
	}
	// 4 × (2⁶²+2) wraps to 8 in int: never a sidecar claiming that shape.
	if err := s.WriteLayer(dir, 9, make([]float32, 8), [2]int{4, 1<<62 + 2}); err == nil {
		t.Fatal("overflowing shape: got no error, want one")
	}
	r, err := s.Close()
	if !errors.Is(err, probe.ErrLayers) || len(r.LayersNotWritten) != 2 || r.LayersNotWritten[0].Layer != 8 {
		t.Fatalf("got %+v %v, want ErrLayers and layers 8 and 9 not written", r, err)
	}
}

// Every layer into a read-only directory fails; the failure is printed once,
// the caller goes on, and Close lists all of them.
func TestWriteLayerReadOnlyDir(t *testing.T) {
	dir := readOnlyDir(t)
	var log bytes.Buffer
	s, _ := probe.Open(probe.Options{Log: &log})
	for l := 0; l < 3; l++ {
		if err := s.WriteLayer(dir, l, []float32{1}, [2]int{1, 1}); err == nil {
			t.Fatal("write into a read-only directory: got no error, want one")
		}
	}
	if n := strings.Count(log.String(), "not written"); n != 1 {
		t.Fatalf("got the failure printed %d times, want once: %q", n, log.String())
	}
	r, err := s.Close()
	if !errors.Is(err, probe.ErrLayers) || len(r.LayersNotWritten) != 3 {
		t.Fatalf("got %+v %v, want ErrLayers and 3 layers not written", r, err)
	}
	for l, f := range r.LayersNotWritten {
		if f.Layer != l || f.Err == nil {
			t.Fatalf("got %+v, want layer %d with its error", f, l)
		}
	}
}

// A full disk: layer files that are /dev/full fail at the write, once
// printed, all listed.
func TestWriteLayerDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	for l := 0; l < 2; l++ {
		if err := os.Symlink("/dev/full", filepath.Join(dir, "layer_"+string(rune('0'+l))+".f32")); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	s, _ := probe.Open(probe.Options{Log: &log})
	for l := 0; l < 2; l++ {
		err := s.WriteLayer(dir, l, make([]float32, 1000), [2]int{10, 100})
		if err == nil || !strings.Contains(err.Error(), "no space left") {
			t.Fatalf("layer %d: got %v, want an error saying no space left", l, err)
		}
	}
	if n := strings.Count(log.String(), "not written"); n != 1 {
		t.Fatalf("got the failure printed %d times, want once: %q", n, log.String())
	}
	r, _ := s.Close()
	if len(r.LayersNotWritten) != 2 {
		t.Fatalf("got %+v, want 2 layers not written", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "layer_0.json")); err == nil {
		t.Fatal("got a sidecar for a layer whose data was not written, want none")
	}
}
