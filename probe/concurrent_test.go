package probe_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tallyprof/tally/probe"
)

// Eight goroutines, each with its queue, two programs, summaries and dispatch
// events, while another goroutine flushes and defines new kernels: every
// dispatch is recorded or dropped, never both, never lost (run with -race).
func TestConcurrentQueues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conc.probe")
	var log bytes.Buffer
	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents | probe.Summaries, Path: path, Window: 500, RingSize: 256, Threshold: 64, Log: &log, FlushEvery: time1ms})
	if err != nil {
		t.Fatal(err)
	}
	pre, dec := s.Program("prefill"), s.Program("decode")
	const G, N = 8, 2000
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		q := s.Queue(fmt.Sprintf("q%d", g), "cpu")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < N; i++ {
				p := pre
				if i%3 == 0 {
					p = dec
				}
				h := q.Begin(p.Kernel(fmt.Sprintf("k%d", i%4)))
				h.End()
			}
		}()
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				s.Flush()
			}
		}
	}()
	wg.Wait()
	close(stop)
	r, err := s.Close()
	if r.Dispatches+r.Dropped != G*N || r.Launches != G*N || r.InFlight != 0 {
		t.Fatalf("got %+v %v, want %d dispatches+dropped, %d launches, 0 in flight", r, err, G*N, G*N)
	}
	_, ds := readBack(t, path)
	if int64(len(ds)) != r.Dispatches {
		t.Fatalf("got %d dispatches in the file, want the %d Close says", len(ds), r.Dispatches)
	}
	if r.Summaries == 0 {
		t.Fatalf("got no summary over %d launches (window 500), want some", G*N)
	}
}
