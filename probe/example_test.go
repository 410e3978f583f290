package probe_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tallyprof/tally/probe"
)

// A program records its device work: name programs, kernels and queues
// once, then bracket every dispatch with Begin and End. Close says what
// the file holds; `tally report run.probe` reads it.
func Example() {
	dir, err := os.MkdirTemp("", "probe-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: filepath.Join(dir, "run.probe")})
	if err != nil {
		log.Fatal(err)
	}
	defer s.HandleSignals()() // Ctrl-C still leaves a closed, readable file

	prefill := s.Program("prefill")
	matmul, softmax := prefill.Kernel("matmul"), prefill.Kernel("softmax")
	q := s.Queue("stream0", "gpu0")
	for range 3 {
		h := q.Begin(matmul)
		// … launch and wait for the matmul …
		h.End()
		q.Begin(softmax).End()
	}

	r, err := s.Close()
	if err != nil {
		log.Fatal(err) // dispatches dropped, none recorded, the file not written
	}
	fmt.Printf("%d dispatches recorded, %d dropped, %d in flight\n", r.Dispatches, r.Dropped, r.InFlight)
	// Output: 6 dispatches recorded, 0 dropped, 0 in flight
}
