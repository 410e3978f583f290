package probe

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func benchSession(b *testing.B, fam Family, ring int) *Session {
	s, err := Open(Options{Families: fam, Path: filepath.Join(b.TempDir(), "bench.probe"), RingSize: ring, Log: &bytes.Buffer{}, Quiet: true})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkBeginEnd: one Begin/End pair on one queue, the writer draining
// in the background (target ≤ 100 ns, 0 allocs).
func BenchmarkBeginEnd(b *testing.B) {
	for _, c := range []struct {
		name string
		fam  Family
	}{{"events", DispatchEvents}, {"events+summaries", DispatchEvents | Summaries}} {
		b.Run(c.name, func(b *testing.B) {
			s := benchSession(b, c.fam, 1<<16)
			k := s.Program("p").Kernel("k")
			q := s.Queue("q", "")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q.Begin(k).End()
			}
			b.StopTimer()
			r, _ := s.Close()
			b.ReportMetric(float64(r.Dropped), "dropped")
		})
	}
}

// BenchmarkEightQueues: 8 goroutines, each with its own queue, as fast as
// they can; events/s is the sustained rate into the writer, dropped what
// the writer could not keep up with.
func BenchmarkEightQueues(b *testing.B) {
	s := benchSession(b, DispatchEvents, 1<<16)
	k := s.Program("p").Kernel("k")
	const G = 8
	qs := make([]*Queue, G)
	for g := range qs {
		qs[g] = s.Queue(fmt.Sprintf("q%d", g), "")
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		n := b.N / G
		if g < b.N%G {
			n++
		}
		wg.Add(1)
		go func(q *Queue) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				q.Begin(k).End()
			}
		}(qs[g])
	}
	wg.Wait()
	r, err := s.Close() // includes writing the rest: sustained means written
	el := time.Since(start)
	b.StopTimer()
	if r.Dispatches+r.Dropped != int64(b.N) || (err != nil && r.Dropped == 0) {
		b.Fatalf("%+v %v", r, err)
	}
	b.ReportMetric(float64(r.Dispatches)/el.Seconds(), "events/s")
	b.ReportMetric(float64(r.Dropped), "dropped")
}

// BenchmarkRate8: 8 goroutines at a paced total of 1 M dispatch events per
// second for the benchmark's duration (one op = one event); drops are what
// the writer lost at that rate.
func BenchmarkRate8(b *testing.B) {
	s := benchSession(b, DispatchEvents, 1<<16)
	k := s.Program("p").Kernel("k")
	const G, rate = 8, 1_000_000
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		q := s.Queue(fmt.Sprintf("q%d", g), "")
		n := b.N / G
		wg.Add(1)
		go func() {
			defer wg.Done()
			per := time.Second * G / rate // one event per goroutine every 8 µs
			t0 := time.Now()
			for i := 0; i < n; i++ {
				if i%64 == 0 { // pace in bursts: a sleep per event would cost more than the event
					if ahead := time.Duration(i)*per - time.Since(t0); ahead > 0 {
						time.Sleep(ahead)
					}
				}
				q.Begin(k).End()
			}
		}()
	}
	wg.Wait()
	r, _ := s.Close()
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(r.Dispatches)/el.Seconds(), "events/s")
	b.ReportMetric(float64(r.Dropped), "dropped")
}

// BenchmarkWriter: the writer's cost per event — swap, encode, write to a
// file — with nothing else running. One op = one event.
func BenchmarkWriter(b *testing.B) {
	s := benchSession(b, DispatchEvents, 1<<16)
	defer s.Close()
	k := s.Program("p").Kernel("k")
	q := s.Queue("q", "")
	const batch = 1 << 14
	b.ReportAllocs()
	b.SetBytes(20)
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		b.StopTimer()
		s.drainMu.Lock()
		q.mu.Lock()
		for i := 0; i < min(batch, b.N-done); i++ {
			q.active = append(q.active, event{kernel: k.id, begin: int64(i), end: int64(i + 1)})
		}
		q.mu.Unlock()
		b.StartTimer()
		s.drain(false)
		s.drainMu.Unlock()
	}
}
