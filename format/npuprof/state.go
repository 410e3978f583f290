package npuprof

import (
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/kept"
)

// state is the reader's memory: O(programs + kernels + distinct layers),
// never O(lines).
type state struct {
	name   string
	c      *capture.Capture
	sink   capture.Sink
	d      capture.Dispatch
	lineNo int64
	bytes  int64

	used, blank, comments, foreign, partial, stamped int64
	longLines                                        int64
	malformed                                        int64
	firstMalformed                                   []int64
	partialOther                                     int64 // partial last lines that are not engine lines

	// ceilPs is the longest time one launch may take, in ps (the model's
	// ceiling): a row or window claiming more is impossible.
	ceilPs       int64
	invalid      *capture.Gap
	invalidLines int64
	firstInvalid int64

	programs map[string]capture.ProgramID
	kernels  map[kernelKey]capture.KernelID

	runs []*run // NPU_PROFILE processes, in order
	cur  *run

	fams       map[capture.ProgramID]*family
	famOrder   []*family
	rows       int64
	windows    int64
	inWindow   bool
	winLaunch  int64                     // launches of the window being read
	winFirst   int64                     // line of the window's first row
	winRows    int64                     // rows of the window being read
	badWindows *capture.Gap              // windows whose launches are not W
	winSizes   map[int64]int64           // launches per window → windows
	winFams    map[*family]bool          // families of the window being read
	winKeys    map[capture.KernelID]bool // kernels of the window being read
	lastRow    int64                     // line of the last row
	afterRow   int64                     // engine lines after the last row
	afterFirst int64                     // the first of them
	unsummed   int64

	layers       map[int64]bool
	layerLines   int64
	mlaLayers    map[int64]bool
	mlaLines     int64
	steps        int64
	linearLines  int64
	hiddenLines  int64
	gemmLines    int64
	activity     int64 // engine lines that are not profiler rows: progress without rows
	statLines    int64 // [L], [mla], [G], [debug] lines
	inconsistent *capture.Gap
	end          kept.End
	endRecords   int64
}

type kernelKey struct {
	prog capture.ProgramID
	name string
}

// run is one process's NPU_PROFILE lines: n restarts from 50 in a new
// process, so a decrease of n opens a new run.
type run struct {
	prog         capture.ProgramID
	kern         capture.KernelID
	first, last  int64 // lines
	lines        int64
	n            int64    // calls at the last line
	cum          [4]int64 // ps: mean × n at the last line
	emitted      [4]int64 // ps already sent as window sums
	places       int      // fewest decimals seen
	clamped      int64    // windows whose difference was below zero (rounding)
	widths       map[int64]bool
	windowsShown []string
	windows      int64
	worst        float64 // largest per-window uncertainty, ms
}

// family is one per-family program ("prefill", "decode", …).
type family struct {
	prog     capture.ProgramID
	name     string
	windows  int64
	launches int64
	sums     [5]int64 // ps: each time × launches, over all rows
	rows     int64
}

func newState(name string, ceiling int64, sink capture.Sink) *state {
	if ceiling <= 0 {
		ceiling = capture.MaxDuration
	}
	ceilPs := int64(1<<63 - 1)
	if ceiling < ceilPs/psPerNs {
		ceilPs = ceiling * psPerNs
	}
	return &state{name: name, sink: sink, c: &capture.Capture{}, ceilPs: ceilPs,
		programs: map[string]capture.ProgramID{}, kernels: map[kernelKey]capture.KernelID{},
		fams: map[capture.ProgramID]*family{}, winSizes: map[int64]int64{}, winFams: map[*family]bool{}, winKeys: map[capture.KernelID]bool{},
		layers: map[int64]bool{}, mlaLayers: map[int64]bool{}}
}

func (s *state) where(line int64) string {
	return fmt.Sprintf("%s:%d", s.name, line)
}

func (s *state) malformedLine() {
	s.malformed++
	if len(s.firstMalformed) < 10 {
		s.firstMalformed = append(s.firstMalformed, s.lineNo)
	}
	s.closeWindow()
}

func (s *state) inconsistency(it capture.Item) {
	if s.inconsistent == nil {
		s.inconsistent = s.c.Accounting.Gap(capture.InconsistentTrace, "")
		s.inconsistent.Summary = "NPU_PROFILE lines out of order (the same call count twice, with other means): the repeated line is not differenced"
	}
	s.inconsistent.Add(it)
}

func (s *state) duplicate(r *run, it capture.Item) {
	g := s.c.Accounting.Gap(capture.DuplicateEvent, s.c.Programs[r.prog].Name)
	g.Summary = "NPU_PROFILE lines written twice (the same run, n and means): counted once, the repeats add nothing to the tables"
	g.Add(it)
}

// apply handles one unstamped, non-blank line.
func (s *state) apply(b []byte) {
	k, body := classify(b)
	switch k {
	case kindOther:
		s.foreign++
		s.closeWindow()
		return
	case kindRow:
		r, ok := parseRow(body)
		if ok {
			if why := s.rowImpossible(&r); why != "" {
				s.impossible(familyName(r.family), string(r.role)+" M="+strconv.FormatInt(r.m, 10), why)
				return
			}
		}
		if !ok || !s.row(&r) {
			s.malformedLine()
			return
		}
		s.used++
		return
	}
	s.closeWindow()
	switch k {
	case kindGemm:
		g, ok := parseGemm(body)
		if ok {
			if why := s.gemmImpossible(&g); why != "" {
				s.impossible("", "npu_gemm (single-row GEMM)", why)
				return
			}
		}
		if !ok || !s.gemm(&g) {
			s.malformedLine()
			return
		}
		s.gemmLines++
	case kindLayer:
		ly, ok := parseLayer(body)
		if !ok {
			s.malformedLine()
			return
		}
		s.layers[ly.l] = true
		s.layerLines++
	case kindMLA:
		digits := body[len(mlaPrefix)+1:] // after "L"
		n := 0
		for n < len(digits) && n < 8 && digits[n] >= '0' && digits[n] <= '9' {
			n++
		}
		if l, ok := parseUint(digits[:n]); ok && l < maxLayer {
			s.mlaLayers[l] = true
		}
		s.mlaLines++
	case kindStep:
		s.steps++
	case kindLinear:
		s.linearLines++
	case kindHidden:
		s.hiddenLines++
	}
	if k != kindGemm {
		s.statLines++
	}
	s.used++
	s.activity++
	s.afterRow++
	if s.afterRow == 1 {
		s.afterFirst = s.lineNo
	}
}

// program and kernel key their maps by the name as the model holds it
// (cut at capture.MaxName); Add* cut and count a long name once.
func (s *state) program(name string) capture.ProgramID {
	key, _ := capture.CutName(name)
	if id, ok := s.programs[key]; ok {
		return id
	}
	id := s.c.AddProgram(capture.Program{Name: name})
	s.programs[key] = id
	return id
}

func (s *state) kernel(p capture.ProgramID, name string) capture.KernelID {
	cut, _ := capture.CutName(name)
	key := kernelKey{p, cut}
	if id, ok := s.kernels[key]; ok {
		return id
	}
	id := s.c.AddKernel(capture.Kernel{Program: p, Name: name, Resolved: true, Category: "kernel"})
	s.kernels[key] = id
	return id
}

// emit sends one aggregated record: count launches with summed device
// (wait) and launch times in ps.
func (s *state) emit(p capture.ProgramID, k capture.KernelID, count, devicePs, launchPs int64) {
	// A fresh Aggregate per record: a sink that copies the Dispatch value
	// (capture.Collect) keeps the pointer. Records are few (one per row or
	// window), so this costs nothing that matters.
	ag := &capture.Aggregate{Count: count, Device: nsOf(devicePs), DeviceValid: true, Launch: nsOf(launchPs), LaunchValid: true}
	s.d = capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Instance: -1, Index: -1, Ordinal: -1, Aggregate: ag}
	s.sink.Dispatch(s.c, &s.d)
}
