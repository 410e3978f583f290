// Package hrxgen writes realistic hrx debug-serial traces (kept or raw) of any
// size, and returns what a correct reader must find in them. Tests,
// benchmarks, the self-test and the README example are built on it.
package hrxgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"

	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format/kept"
	"github.com/tallyprof/tally/internal/countio"
)

// Kernel is one catalogued kernel the generated programs dispatch.
type Kernel struct {
	Family, Name string
	DeviceNS     int64 // typical device time
	LaunchNS     int64 // typical host enqueue time
}

// ID is the kernel's catalog id.
func (k Kernel) ID() uint64 { return catalog.ID(k.Family, k.Name) }

// Kernels are names from the example manifest (testdata/hrx/manifest.json)
// with made-up but plausible costs: matmul dominates, elementwise is cheap.
var Kernels = []Kernel{
	{"loom_libs", "ggml_mul_mat_f32_f32_wmma", 76300, 8400},
	{"loom_libs", "ggml_flash_attention_decode_split_f32_f16_wmma_next_q8", 41000, 9100},
	{"loom_libs", "ggml_copy_f32_f16", 3100, 6200},
	{"loom_libs", "ggml_scale_bias_f32", 2400, 5900},
	{"loom_libs", "ggml_unary_f32", 2200, 5800},
	{"loom_libs", "ggml_binary_f32", 2600, 6000},
	{"hrx", "ggml_gather_add_f32", 5200, 6600},
	{"hrx", "ggml_mul_mat_vec_iq3xxs_f32", 23800, 7000},
}

// Unnamed is a kernel id no manifest names (the engine#123 fault's id).
const Unnamed uint64 = 14896872061627543929

// End says how the generated trace ends.
type End int

const (
	EndClean End = iota
	// EndCut: the process is killed after a dispatch's enqueue began.
	EndCut
	// EndFault: the trace stops right after a post-dispatch sync-begin and a
	// device fault message follows, as when an HSA memory fault aborts.
	EndFault
)

// Options shapes a trace.
type Options struct {
	Seed int64
	// Decode and Prefill are how many runs of each program to write; when
	// TargetBytes > 0, decode runs are added until the trace is that large.
	Decode, Prefill int
	TargetBytes     int64
	// DecodeMain and PrefillMain are the main-list sizes (program ids);
	// defaults 41 and 303.
	DecodeMain, PrefillMain int
	Raw                     bool // no timestamps and no header (stderr as printed)
	// OldKept writes a kept trace as tally record wrote it before end
	// records: no end=1 in the header, no end record.
	OldKept bool
	End     End
	// FailRun makes the decode run with this 1-based number fail in its
	// staging download (a sync error, then "failed phase=command-program").
	FailRun int
	// Foreign interleaves a non-trace stderr line every Foreign lines.
	Foreign int
	// UnnamedKernel puts Unnamed into the decode main list.
	UnnamedKernel bool
	// FilterStart, when > 0, filters decode commands with index ≥ it
	// (GGML_HRX_DEBUG_SERIAL_END_COMMAND = FilterStart-1).
	FilterStart int
}

// Summary is what a correct reader finds: per program label, per kernel id.
type Summary struct {
	Programs map[string]*ProgramSummary
	Lines    int64
	Bytes    int64
	// LastCompleted describes the last dispatch completed before the end
	// (label, list, index), for EndCut/EndFault.
	Unfinished *Unfinished
}

// ProgramSummary holds a program's expected figures.
type ProgramSummary struct {
	Complete, Failed, Incomplete int64
	Kernels                      map[KernelKey]*KernelSummary
	Untraced                     int64
}

// KernelKey is a kernel of one list ("init" or "main") of a program: tally
// keeps the two lists' kernels apart.
type KernelKey struct {
	List string
	ID   uint64
}

// KernelSummary is one kernel's expected figures in one program.
type KernelSummary struct {
	Dispatches int64
	DeviceNS   int64
	LaunchNS   int64
}

// Unfinished describes the dispatch a cut or fault leaves unfinished.
type Unfinished struct {
	Program  string
	List     string
	Index    int
	KernelID uint64
	LaunchNS int64 // its begin command-dispatch stamp
	Last     string
}

type gen struct {
	w       *bufio.Writer
	cw      *countio.Writer
	opt     Options
	rng     *rand.Rand
	t       int64
	sum     *Summary
	lines   int64
	err     error
	last    string
	decodeK []uint64
	preK    []uint64
	costs   map[uint64]Kernel
}

// Write writes a trace to w and returns its expected summary.
func Write(w io.Writer, opt Options) (*Summary, error) {
	if opt.DecodeMain == 0 {
		opt.DecodeMain = 41
	}
	if opt.PrefillMain == 0 {
		opt.PrefillMain = 303
	}
	cw := &countio.Writer{W: w}
	g := &gen{w: bufio.NewWriterSize(cw, 1<<20), cw: cw, opt: opt, rng: rand.New(rand.NewSource(opt.Seed)),
		t: 912400118200, sum: &Summary{Programs: map[string]*ProgramSummary{}}, costs: map[uint64]Kernel{}}
	for _, k := range Kernels {
		g.costs[k.ID()] = k
	}
	g.decodeK = g.sequence(opt.DecodeMain, []int{3, 0, 1, 0, 4, 5, 0, 6, 2, 7})
	if opt.UnnamedKernel {
		g.decodeK[len(g.decodeK)/2] = Unnamed
		g.costs[Unnamed] = Kernel{DeviceNS: 31000, LaunchNS: 7000}
	}
	g.preK = g.sequence(opt.PrefillMain, []int{3, 0, 0, 1, 4, 5, 0, 2, 6})
	if !opt.Raw {
		due := " " + kept.EndDue
		if opt.OldKept {
			due = ""
		}
		g.printf("%s%s pid=4242 cmd=hrxgen\n", kept.Header, due)
		g.lines++
	}
	decodeRuns := 0
	for i := 0; i < opt.Prefill; i++ {
		g.run("p", opt.PrefillMain, 4, g.preK, false)
	}
	for i := 0; i < opt.Decode || (opt.TargetBytes > 0 && g.size() < opt.TargetBytes); i++ {
		decodeRuns++
		g.run("d", opt.DecodeMain, 2, g.decodeK, opt.FailRun == decodeRuns)
		if g.err != nil {
			break
		}
	}
	switch opt.End {
	case EndCut, EndFault:
		g.cutRun(opt.DecodeMain, 2, g.decodeK, opt.End)
	}
	if !opt.Raw && !opt.OldKept {
		// The end record tally record writes: a cut run was killed, and a
		// device fault aborts the process (the ROCm runtime's default).
		e := kept.Ending{Exit: 0, At: uint64(g.t), HasAt: true}
		switch opt.End {
		case EndCut:
			e.Signal = "SIGKILL"
		case EndFault:
			e.Signal = "SIGABRT"
		}
		g.printf("%s\n", e.Record())
		g.lines++
	}
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	g.sum.Lines = g.lines
	g.sum.Bytes = cw.N
	return g.sum, g.err
}

func (g *gen) size() int64 { return g.cw.N + int64(g.w.Buffered()) }

// sequence repeats a pattern of kernel indexes over n commands.
func (g *gen) sequence(n int, pattern []int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = Kernels[pattern[i%len(pattern)]].ID()
	}
	return out
}

func (g *gen) printf(format string, args ...any) {
	if g.err != nil {
		return
	}
	_, g.err = fmt.Fprintf(g.w, format, args...)
}

// line writes one trace line, stamped unless raw, after advancing the clock.
func (g *gen) line(dt int64, text string) {
	g.t += dt
	g.lines++
	if g.opt.Raw {
		g.printf("hrx debug serial: %s\n", text)
	} else {
		g.printf("%d hrx debug serial: %s\n", g.t, text)
	}
	if g.opt.Foreign > 0 && g.lines%int64(g.opt.Foreign) == 0 {
		g.foreign("llama_decode: n_tokens = 1, n_past = 17")
	}
}

func (g *gen) foreign(text string) {
	g.lines++
	if g.opt.Raw {
		g.printf("%s\n", text)
	} else {
		g.printf("%d %s\n", g.t, text)
	}
}

func (g *gen) jitter(v int64) int64 { return v + g.rng.Int63n(v/8+1) - v/16 }

func (g *gen) prog(label string) *ProgramSummary {
	p := g.sum.Programs[label]
	if p == nil {
		p = &ProgramSummary{Kernels: map[KernelKey]*KernelSummary{}}
		g.sum.Programs[label] = p
	}
	return p
}

func programDetail(main, init int) string {
	return fmt.Sprintf("main_commands=%d init_commands=%d transient_arena=0", main, init)
}

// preamble writes the program wrapper's steps up to the lists.
func (g *gen) preamble(main, init int) {
	pd := programDetail(main, init)
	g.line(1500, "begin phase=command-program "+pd)
	for _, ph := range []string{"host-staging-rebind-pre", "host-staging-rebind-post", "constant-initialization-pre", "constant-initialization-post",
		"completion-counter-initialization-pre", "completion-counter-initialization-post", "transient-bind-pre", "transient-bind-post"} {
		g.line(400, "sync-begin phase="+ph+" "+pd)
		g.line(900, "sync-end phase="+ph+" "+pd)
	}
	prep := fmt.Sprintf("main_commands=%d init_commands=%d", main, init)
	g.line(400, "sync-begin phase=host-staging-upload-pre "+prep)
	g.line(900, "sync-end phase=host-staging-upload-pre "+prep)
	g.line(400, "sync-begin phase=host-staging-upload-buffer-pre value=3 length=4096")
	g.line(2100, "sync-end phase=host-staging-upload-buffer-pre value=3 length=4096")
	g.line(400, "sync-begin phase=host-staging-upload-buffer-post value=3 length=4096")
	g.line(700, "sync-end phase=host-staging-upload-buffer-post value=3 length=4096")
	g.line(400, "sync-begin phase=host-staging-upload-post "+prep)
	g.line(900, "sync-end phase=host-staging-upload-post "+prep)
}

func (g *gen) list(p *ProgramSummary, label, name string, main int, ids []uint64, filterFrom int) {
	g.line(300, fmt.Sprintf("begin phase=command-list list=%s list_commands=%d main_commands=%d", name, len(ids), main))
	for i, id := range ids {
		if filterFrom > 0 && i >= filterFrom {
			g.untraced()
			p.Untraced++
			continue
		}
		g.command(p, label, name, i, len(ids), id)
	}
	g.line(300, fmt.Sprintf("end phase=command-list list=%s list_commands=%d main_commands=%d", name, len(ids), main))
}

func cmdDetail(list string, index, n int, id uint64) string {
	return fmt.Sprintf("list=%s index=%d list_commands=%d ordinal=%d kind=Kernel kernel_id=%d bindings=3", list, index, n, index, id)
}

// command writes a traced kernel command's six lines and records it.
func (g *gen) command(p *ProgramSummary, label, list string, index, n int, id uint64) {
	d := cmdDetail(list, index, n, id)
	k := g.costs[id]
	g.line(300, "sync-begin phase=command-pre-dispatch "+d)
	g.line(700, "sync-end phase=command-pre-dispatch "+d)
	g.line(500, "begin phase=command-dispatch "+d)
	launch := g.jitter(k.LaunchNS)
	g.line(launch, "end phase=command-dispatch "+d)
	g.line(700, "sync-begin phase=command-post-dispatch "+d)
	dev := g.jitter(k.DeviceNS)
	g.line(dev, "sync-end phase=command-post-dispatch "+d)
	key := KernelKey{List: list, ID: id}
	ks := p.Kernels[key]
	if ks == nil {
		ks = &KernelSummary{}
		p.Kernels[key] = ks
	}
	ks.Dispatches++
	if !g.opt.Raw {
		ks.LaunchNS += launch
		ks.DeviceNS += 700 + dev
	}
	g.last = fmt.Sprintf("%s %s[%d]", label, list, index)
}

func (g *gen) untraced() {
	g.line(300, "sync-begin phase=command-pre-dispatch")
	g.line(700, "sync-end phase=command-pre-dispatch")
	g.line(700, "sync-begin phase=command-post-dispatch")
	g.line(2000, "sync-end phase=command-post-dispatch")
}

// run writes one complete (or failed) program run.
func (g *gen) run(kind string, main, init int, ids []uint64, fail bool) {
	label := fmt.Sprintf("p%d", main)
	p := g.prog(label)
	g.preamble(main, init)
	initIDs := ids[:init]
	g.list(p, label, "init", main, initIDs, 0)
	filter := 0
	if kind == "d" {
		filter = g.opt.FilterStart
	}
	g.list(p, label, "main", main, ids, filter)
	prep := fmt.Sprintf("main_commands=%d init_commands=%d", main, init)
	g.line(400, "sync-begin phase=host-staging-download-pre "+prep)
	if fail {
		g.foreign("HRX debug serial sync failed phase=host-staging-download-pre " + prep + ": HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.")
		g.line(300, "failed phase=command-program "+programDetail(main, init))
		p.Failed++
		return
	}
	g.line(900, "sync-end phase=host-staging-download-pre "+prep)
	g.line(400, "sync-begin phase=host-staging-download-post "+prep)
	g.line(900, "sync-end phase=host-staging-download-post "+prep)
	g.line(300, "end phase=command-program "+programDetail(main, init))
	p.Complete++
}

// cutRun starts a run and stops inside a dispatch of its main list.
func (g *gen) cutRun(main, init int, ids []uint64, end End) {
	label := fmt.Sprintf("p%d", main)
	p := g.prog(label)
	g.preamble(main, init)
	g.list(p, label, "init", main, ids[:init], 0)
	g.line(300, fmt.Sprintf("begin phase=command-list list=main list_commands=%d main_commands=%d", len(ids), main))
	stop := len(ids) / 3
	for i := 0; i < stop; i++ {
		g.command(p, label, "main", i, len(ids), ids[i])
	}
	d := cmdDetail("main", stop, len(ids), ids[stop])
	g.line(300, "sync-begin phase=command-pre-dispatch "+d)
	g.line(700, "sync-end phase=command-pre-dispatch "+d)
	g.line(500, "begin phase=command-dispatch "+d)
	u := &Unfinished{Program: label, List: "main", Index: stop, KernelID: ids[stop], Last: g.last}
	if !g.opt.Raw {
		u.LaunchNS = g.t
	}
	if end == EndFault {
		g.line(8000, "end phase=command-dispatch "+d)
		g.line(700, "sync-begin phase=command-post-dispatch "+d)
		g.foreign(":0:rocdevice.cpp            :2984: 912402 us: Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present or supervisor privilege.")
	}
	p.Incomplete++
	g.sum.Unfinished = u
}
