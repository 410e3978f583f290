package export

import "github.com/tallyprof/tally/capture"

// TallyKinetoSchema names the layout of the "tally" block a Kineto export
// carries and of args.tally on its kernel events, which format/kineto reads
// back (kineto.TallySchema; docs/export.md, "Reading it back"). v2 added
// programs, kernels, queues, report, file and args.tally to v1's source,
// clock, input, gaps, written and events.
const TallyKinetoSchema = "tally.kineto/v2"

// tallyCounts counts each (rank, program)'s timed dispatches (written as
// events when the program's clock is ns) and those never written
// (aggregated records, untimed dispatches): O(ranks × programs).
type tallyCounts map[tallyKey]*tallyCount

type tallyCount struct{ timed, never int64 }

type tallyKey struct {
	rank string
	prog capture.ProgramID
}

func (t tallyCounts) add(rank string, p capture.ProgramID, timed, never int64) {
	k := tallyKey{rank, p}
	v := t[k]
	if v == nil {
		v = &tallyCount{}
		t[k] = v
	}
	v.timed = capture.SatAdd(v.timed, timed)
	v.never = capture.SatAdd(v.never, never)
}

// tallyProgram is one program of the block: the capture's program, with
// what this file holds of it.
type tallyProgram struct {
	capture.Program
	Events     int64 `json:"events"`
	NotWritten int64 `json:"not_written"`
}

// tallyKernel is one kernel of the block; args.tally[0] indexes them.
type tallyKernel struct {
	Program  capture.ProgramID `json:"program"`
	Name     string            `json:"name"`
	ID       *uint64           `json:"id,omitempty"`
	Resolved bool              `json:"resolved"`
	Category string            `json:"category"`
	List     string            `json:"list"`
}

// tallyFields adds what a reader needs to read the file back as the input
// it was exported from: its programs (with this file's event counts), its
// kernels, its queues, its report header lines and this file's events.
func (k *kinetoWriter) tallyFields(acct map[string]any) {
	c := k.c
	progs := make([]tallyProgram, len(c.Programs))
	for i := range c.Programs {
		progs[i].Program = c.Programs[i]
	}
	var kernels int64
	for key, v := range k.perFile {
		if k.rank != "" && key.rank != k.rank || key.prog < 0 || int(key.prog) >= len(progs) {
			continue
		}
		p := &progs[key.prog]
		if c.ProgramClock(key.prog).Unit == "ns" {
			p.Events = capture.SatAdd(p.Events, v.timed)
			p.NotWritten = capture.SatAdd(p.NotWritten, v.never)
			kernels = capture.SatAdd(kernels, v.timed)
		} else {
			p.NotWritten = capture.SatAdd(p.NotWritten, capture.SatAdd(v.timed, v.never)) // device ticks: no event (docs/export.md, "Units")
		}
	}
	ks := make([]tallyKernel, len(c.Kernels))
	for i, kn := range c.Kernels {
		ks[i] = tallyKernel{Program: kn.Program, Name: kn.Name, Resolved: kn.Resolved, Category: kn.Category, List: kn.List}
		if kn.HasID {
			id := kn.ID
			ks[i].ID = &id
		}
	}
	report := append([]capture.Field{}, c.Comments...)
	queues := c.Queues
	if queues == nil {
		queues = []capture.Queue{}
	}
	var unfinished int64
	k.eachUnfinished(func(*capture.Item) { unfinished++ })
	acct["programs"] = progs
	acct["kernels"] = ks
	acct["queues"] = queues
	acct["report"] = report
	acct["file"] = map[string]int64{"kernels": kernels, "unfinished": unfinished}
}
