package capture

import (
	"fmt"
	"strings"
)

// Capture is what one recorded run holds, as a reader saw it. Dispatches are
// not stored here: they stream to a Sink while the reader runs (see Sink).
type Capture struct {
	Source Source
	// Clock states how every time in this capture was taken. A program may
	// override it (Program.Clock) when one file mixes clock domains, e.g.
	// IREE sessions with and without a tick-to-ns fit.
	Clock Clock

	Programs []Program
	Queues   []Queue
	Kernels  []Kernel
	// Ops is the host-op signature table (op.go): OpID n is Ops[n-1].
	Ops []Op
	// OpSource says how the reader attributed dispatches to host ops (what
	// stands for the op), one line for the reports; "" when the reader
	// records no host ops: its programs and kernels then stand for them.
	OpSource string
	// OpDevice is the accelerator product the attributed dispatches ran on
	// ("NVIDIA H100 80GB HBM3"), as the input names it, for the roofline's
	// peak figures; "" when unknown or when they ran on several kinds.
	OpDevice string

	Accounting Accounting

	// Inventory is a reader's description of the file's structure for
	// `tally inspect`: sections of key/value facts in file order.
	Inventory []Section

	// Comments are what the reader says about how it read the input, for
	// the head of every report, one "key: value" fact each (as pprof keeps
	// Profile.Comments): how programs were formed, the clock fit, the rank,
	// where an exported file came from. The text and HTML reports print
	// them under the input line; the JSON outputs show them among the
	// inventory sections (Sections).
	Comments []Field
	// CommentsAt is where the JSON outputs show Comments among the
	// Inventory sections: before Inventory[CommentsAt], after the last
	// when CommentsAt is len(Inventory) or more.
	CommentsAt int
}

// Comment appends a comment: a fact about how the input was read, for the
// head of every report.
func (c *Capture) Comment(key string, value any) {
	c.Comments = append(c.Comments, Field{Key: key, Value: value})
}

// CommentLines are the comments as reports print them: "key: value".
func (c *Capture) CommentLines() []string {
	var out []string
	for _, f := range c.Comments {
		out = append(out, fmt.Sprintf("%s: %v", f.Key, f.Value))
	}
	return out
}

// CommentsTitle is the title Comments have among the inventory sections
// of the JSON outputs.
const CommentsTitle = "report"

// Sections is the inventory as the JSON outputs (report details, inspect)
// show it: Inventory, with Comments as the section CommentsTitle at
// CommentsAt. A reader that sets Comments to an empty, non-nil slice gets an
// empty section (fields null); nil Comments, none.
func (c *Capture) Sections() []Section {
	if c.Comments == nil {
		return c.Inventory
	}
	at := min(max(c.CommentsAt, 0), len(c.Inventory))
	com := Section{Title: CommentsTitle}
	if len(c.Comments) > 0 {
		com.Fields = c.Comments
	}
	out := make([]Section, 0, len(c.Inventory)+1)
	out = append(out, c.Inventory[:at]...)
	out = append(out, com)
	return append(out, c.Inventory[at:]...)
}

// Source identifies the input a capture came from.
type Source struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Bytes  int64  `json:"bytes"`
	// Compressed is set when Bytes counts compressed input (e.g. gzip).
	Compressed bool `json:"compressed,omitempty"`
	// Rank names the distributed rank this input recorded, when the input
	// is one rank's (Kineto's distributedInfo, a rank directory); "" when
	// unknown or when the input holds several (see Queue.Rank).
	Rank string `json:"rank,omitempty"`
}

// Clock states the domain and unit of a capture's times.
type Clock struct {
	// Domain names the clock, e.g. "monotonic", "unix-epoch", "device-ticks".
	Domain string `json:"domain"`
	// Unit is "ns" or "ticks"; empty when the input has no times at all.
	Unit string `json:"unit"`
	// Timed is false when the input carries no times (durations are then
	// unavailable, never zero).
	Timed bool `json:"timed"`
	// Description is the one-line statement a report opens with.
	Description string `json:"description"`
}

// ProgramID indexes Capture.Programs.
type ProgramID int32

// QueueID indexes Capture.Queues; NoQueue when the format has none.
type QueueID int32

// KernelID indexes Capture.Kernels.
type KernelID int32

// NoQueue marks a dispatch whose format records no queue.
const NoQueue QueueID = -1

// Program is a unit whose kernels are compared with each other: an hrx
// command program, an IREE command buffer, a PyTorch profiler step.
// Shares are computed within one program only.
type Program struct {
	Name string `json:"name"`
	// Instances is how many times the program ran (invocations, steps).
	Instances int64 `json:"instances"`
	// InstanceStates breaks Instances down by outcome when the format
	// knows it (e.g. "complete", "failed", "incomplete").
	InstanceStates []Count `json:"instance_states,omitempty"`
	// IncompleteRuns are the Dispatch.Instance values of the runs that did
	// not complete — failed, or began and never ended (the process stopped
	// inside them) — for readers that know which runs these were (hrx).
	// Their dispatches are real and stay in the tables, but a per-run
	// figure (tally diff's samples) must leave them out: a run cut short
	// holds partial sums. Each value is ≥ 0 and appears once; nil when every
	// run completed or the format cannot tell runs apart.
	IncompleteRuns []int64 `json:"incomplete_runs,omitempty"`
	// Clock overrides Capture.Clock for this program when non-nil.
	Clock *Clock `json:"clock,omitempty"`
	// Notes are per-program remarks a report prints with the program.
	Notes []string `json:"notes,omitempty"`
}

// Queue is where dispatches execute: a device queue, a stream.
type Queue struct {
	Name   string `json:"name"`
	Device string `json:"device,omitempty"`
	// Rank is the distributed rank the queue belongs to, when known. An
	// input holding several ranks (a swimlane run) sets it per queue; an
	// input of one rank may leave it "" and set Source.Rank.
	Rank string `json:"rank,omitempty"`
}

// QueueRank is the distributed rank the dispatches of queue q belong to:
// the queue's own (an input holding several ranks sets it per queue), else
// the input's (Source.Rank); "" when neither is known. q may be NoQueue or
// out of range: the input's rank then.
func (c *Capture) QueueRank(q QueueID) string {
	if q >= 0 && int(q) < len(c.Queues) && c.Queues[q].Rank != "" {
		return c.Queues[q].Rank
	}
	return c.Source.Rank
}

// Label names the queue for people: its rank, device and name, those that
// are known, joined by " · " (as timeline tracks and report lines show it).
func (q Queue) Label() string {
	var parts []string
	if q.Rank != "" {
		parts = append(parts, "rank "+q.Rank)
	}
	if q.Device != "" {
		parts = append(parts, q.Device)
	}
	if q.Name != "" {
		parts = append(parts, q.Name)
	}
	if len(parts) == 0 {
		return "(unnamed queue)"
	}
	return strings.Join(parts, " · ")
}

// Kernel is one named (or anonymous) kernel of one program. Kernels are
// scoped to their program: the same id in two programs is two Kernels, so
// a name is never borrowed from another program's catalog.
type Kernel struct {
	Program ProgramID
	// Name is the display name: a catalog name when Resolved, otherwise an
	// anonymous label such as "p303:#14896872061627543929".
	Name string
	// ID is the format's numeric kernel id, when it has one.
	ID       uint64
	HasID    bool
	Resolved bool
	// Category is "kernel", "memcpy", "memset" or a format's own device
	// category.
	Category string
	// List separates the parts of a program whose kernels are kept apart
	// (hrx: the "init" and "main" command lists); "" when the format has
	// no such parts.
	List string
}

// ProgramClock returns the clock that applies to program p.
func (c *Capture) ProgramClock(p ProgramID) Clock {
	if int(p) >= 0 && int(p) < len(c.Programs) && c.Programs[p].Clock != nil {
		return *c.Programs[p].Clock
	}
	return c.Clock
}

// AddProgram appends a program and returns its id. A name longer than
// MaxName is cut (Name); gaps scoped to it find it by its full name too
// (Accounting.Gap cuts the scope the same way).
func (c *Capture) AddProgram(p Program) ProgramID {
	p.Name = c.Name(p.Name)
	c.Programs = append(c.Programs, p)
	return ProgramID(len(c.Programs) - 1)
}

// AddQueue appends a queue and returns its id; names longer than MaxName
// are cut (Name).
func (c *Capture) AddQueue(q Queue) QueueID {
	q.Name, q.Device, q.Rank = c.Name(q.Name), c.Name(q.Device), c.Name(q.Rank)
	c.Queues = append(c.Queues, q)
	return QueueID(len(c.Queues) - 1)
}

// AddKernel appends a kernel and returns its id; a name longer than
// MaxName is cut (Name).
func (c *Capture) AddKernel(k Kernel) KernelID {
	k.Name = c.Name(k.Name)
	c.Kernels = append(c.Kernels, k)
	return KernelID(len(c.Kernels) - 1)
}

// Count is a named number, used where order matters in output.
type Count struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// Section is one titled block of a reader's inventory.
type Section struct {
	Title  string  `json:"title"`
	Fields []Field `json:"fields"`
}

// Field is one fact of an inventory section. Value is a string, a number
// or a bool, so JSON keeps numbers as numbers.
type Field struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// Add appends a field to the section.
func (s *Section) Add(key string, value any) {
	s.Fields = append(s.Fields, Field{Key: key, Value: value})
}
