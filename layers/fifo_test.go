//go:build unix

package layers

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a dump or its sidecar belongs (a hostile or botched
// dump directory): opening it blocked for ever, waiting for a writer.
// Now it is a malformed layer that says what the file is.
func TestFIFODumpIsMalformed(t *testing.T) {
	for _, c := range []struct{ name, fifo, want string }{
		{"npy", "layer_1.npy", "layer_1.npy is a named pipe (FIFO), not a file"},
		{"sidecar", "layer_1.json", "layer_1.json is a named pipe (FIFO), not a file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, ours := dumps(t, func(l, r, col int) float64 { return 0 })
			if c.name == "npy" {
				os.Remove(filepath.Join(ours, "layer_1.f32"))
			}
			if err := syscall.Mkfifo(filepath.Join(ours, c.fifo), 0o600); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
			type result struct {
				rep *Report
				err error
			}
			done := make(chan result, 1)
			go func() { rep, err := Run(ref, ours, Options{Hidden: th}); done <- result{rep, err} }()
			var rep *Report
			select {
			case r := <-done:
				if r.err != nil {
					t.Fatal(r.err)
				}
				rep = r.rep
			case <-time.After(20 * time.Second):
				t.Fatalf("got tally layers still waiting on the FIFO %s after 20 s, want layer 1 malformed", c.fifo)
			}
			if ly := byLayer(rep, 1); ly.Status != "malformed" || !strings.Contains(ly.Problem, c.want) || !rep.Findings() {
				t.Fatalf("layer 1: got %s %q, want malformed saying %q, and a finding", ly.Status, ly.Problem, c.want)
			}
		})
	}
}
