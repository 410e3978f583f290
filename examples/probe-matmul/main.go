// Command probe-matmul records real CPU work with tally's probe package: a
// toy transformer's matrix multiplies run as "dispatches" on "queues" (one
// goroutine each), a prefill program over a prompt, then a decode program
// one token at a time. Read its output with `tally report run.probe`.
//
//	go run ./examples/probe-matmul -o run.probe
//	go run ./cmd/tally report run.probe
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/tallyprof/tally/probe"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("probe-matmul", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "run.probe", "capture file")
	queues := fs.Int("queues", 4, "queues (worker goroutines); each kernel is split across all of them by output columns")
	dim := fs.Int("dim", 256, "hidden size H")
	layers := fs.Int("layers", 4, "layers")
	prompt := fs.Int("prompt", 64, "prefill tokens M")
	decode := fs.Int("decode", 16, "decode steps (0: prefill only)")
	window := fs.Int("window", 100, "launches per summary")
	dump := fs.String("dump", "", "directory for prefill layer dumps (layer_<l>.f32 + .json); empty: none")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *queues < 1 || *dim < 1 || *layers < 1 || *prompt < 1 || *decode < 0 || *window < 1 {
		fmt.Fprintln(stderr, "probe-matmul: -queues, -dim, -layers, -prompt and -window must be at least 1, -decode at least 0")
		return 2
	}

	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents | probe.Summaries, Path: *out, Window: *window, Log: stderr})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer s.HandleSignals()() // Ctrl-C still leaves a closed, readable file
	m := newModel(s, *queues, *dim, *layers)
	defer m.stop()
	x := randMatrix(*prompt, *dim, 1)
	m.forward(s.Program("prefill"), x, *prompt, *dump)
	tok := x[(*prompt-1)**dim:]
	for i := 0; i < *decode; i++ {
		tok = m.forward(s.Program("decode"), tok, 1, "")
	}
	r, err := s.Close()
	fmt.Fprintf(stderr, "probe-matmul: %s: %d dispatches, %d dropped, %d in flight, %d summaries\n", *out, r.Dispatches, r.Dropped, r.InFlight, r.Summaries)
	if err != nil && !errors.Is(err, probe.ErrNotSummaried) {
		return 1
	}
	return 0
}

// model holds one weight matrix per kernel and layer, and one worker per
// queue.
type model struct {
	s       *probe.Session
	dim     int
	names   []string
	weights [][][]float32 // [layer][kernel] H×H, row-major
	workers []*worker
}

type worker struct {
	q    *probe.Queue
	jobs chan job
}

type job struct {
	k        *probe.Kernel
	x, w, y  []float32
	m, h     int
	col, end int
	done     *sync.WaitGroup
}

func newModel(s *probe.Session, queues, dim, layers int) *model {
	m := &model{s: s, dim: dim, names: []string{"qkv_proj", "attn_out", "mlp_up", "mlp_down"}}
	for l := 0; l < layers; l++ {
		var ws [][]float32
		for k := range m.names {
			ws = append(ws, randMatrix(dim, dim, uint64(100*l+k)))
		}
		m.weights = append(m.weights, ws)
	}
	for i := 0; i < queues; i++ {
		w := &worker{q: s.Queue(fmt.Sprintf("cpu%d", i), "cpu"), jobs: make(chan job)}
		m.workers = append(m.workers, w)
		go w.run()
	}
	return m
}

func (m *model) stop() {
	for _, w := range m.workers {
		close(w.jobs)
	}
}

// run executes jobs: each one is a dispatch, begun when the worker takes it
// and ended when its columns are computed.
func (w *worker) run() {
	for j := range w.jobs {
		h := w.q.Begin(j.k)
		matmulCols(j.x, j.w, j.y, j.m, j.h, j.col, j.end)
		h.End()
		j.done.Done()
	}
}

// forward runs every layer's kernels on x (m×H), each split across the
// queues by output columns, and returns the last row.
func (m *model) forward(p *probe.Program, x []float32, rows int, dump string) []float32 {
	h := m.dim
	for l, ws := range m.weights {
		for k, w := range ws {
			kern := p.Kernel(m.names[k])
			y := make([]float32, rows*h)
			var wg sync.WaitGroup
			per := (h + len(m.workers) - 1) / len(m.workers)
			for i, wk := range m.workers {
				col, end := i*per, min((i+1)*per, h)
				if col >= end {
					continue
				}
				wg.Add(1)
				wk.jobs <- job{k: kern, x: x, w: w, y: y, m: rows, h: h, col: col, end: end, done: &wg}
			}
			wg.Wait()
			for i := range y { // residual add keeps values bounded
				y[i] = x[i] + y[i]/float32(h)
			}
			x = y
		}
		if dump != "" {
			m.s.WriteLayer(dump, l, x, [2]int{rows, h}) // failures are reported once and listed by Close
		}
	}
	return x[(rows-1)*h:]
}

// matmulCols computes y[:, col:end] = x · w[:, col:end] for x m×h, w h×h.
func matmulCols(x, w, y []float32, m, h, col, end int) {
	for r := 0; r < m; r++ {
		xr, yr := x[r*h:(r+1)*h], y[r*h:(r+1)*h]
		for c := col; c < end; c++ {
			var sum float32
			for i, v := range xr {
				sum += v * w[i*h+c]
			}
			yr[c] = sum
		}
	}
}

func randMatrix(rows, cols int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, rows*cols)
	for i := range out {
		out[i] = rng.Float32()*2 - 1
	}
	return out
}
