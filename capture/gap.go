package capture

import (
	"maps"
	"math"
	"slices"
	"sync"
)

// Kind is a gap's stable machine name. Kinds are part of the JSON schema
// (docs/report-json.md): never rename one.
type Kind string

// Gap kinds shared by the readers. A reader may define more; document them.
const (
	// Input that could not be read or used.
	EmptyCapture   Kind = "empty_capture"   // no event of the kind the capture exists for
	TruncatedInput Kind = "truncated_input" // the input ends inside a record/line/value
	SkippedInput   Kind = "skipped_input"   // input that looks like data but does not parse, or was filtered at the source
	UnknownInput   Kind = "unknown_category"

	// Work that ran (or started) but is not in the tables.
	UnfinishedDispatch Kind = "unfinished_dispatch" // launched, never finished
	DeviceFault        Kind = "device_fault"        // a sync began and never ended / failed
	FailedProgram      Kind = "failed_program"      // a program invocation ended failed
	IncompleteProgram  Kind = "incomplete_program"  // a program invocation began and never ended
	InvalidEvent       Kind = "invalid_event"       // an event whose times are missing, negative, reversed or past the ceiling
	DuplicateEvent     Kind = "duplicate_event"     // a record repeating one already read (same identity): counted once
	// DuplicatesUnchecked (a note): the duplicate check's memory bound was
	// reached, so repeats among the rest cannot be ruled out.
	DuplicatesUnchecked Kind = "duplicates_unchecked"

	// Names.
	UnresolvedName Kind = "unresolved_name" // a kernel id no catalog of its program names

	// Times.
	UntimedInput      Kind = "untimed_input"  // no timestamps: durations unavailable
	ClockDecrease     Kind = "clock_decrease" // timestamps went backwards
	ZeroDuration      Kind = "zero_duration"  // duration 0: possibly clamped or rounded
	OverlappingEvents Kind = "overlapping_events"

	// Producer-side losses.
	UnfinalizedCapture Kind = "unfinalized_capture"
	DroppedRecords     Kind = "dropped_records"
	StaleBytes         Kind = "stale_bytes"
	FailedSession      Kind = "failed_session"
	ProducerWarnings   Kind = "producer_warnings"
	InconsistentTrace  Kind = "inconsistent_trace" // counts the trace states that do not agree

	// Launch linkage (Kineto and similar).
	GPUEventWithoutLaunch Kind = "gpu_event_without_launch"
	LaunchWithoutGPUEvent Kind = "launch_without_gpu_event"
	GraphLaunch           Kind = "graph_launch"

	// Device timelines (Kineto): work the trace does not hold, and
	// same-stream events whose times cannot both be right.
	UnrecordedDeviceWork Kind = "unrecorded_device_work" // a stream waited, idle, with nothing recorded running on its device
	ContainedEvents      Kind = "contained_events"       // an event lies wholly inside earlier work on its stream

	// Many inputs read as one run (package inputs): gaps of the whole.
	FailedInput     Kind = "failed_input"     // an input that could not be read at all
	IncompleteInput Kind = "incomplete_input" // an input whose own accounting has a gap
	SkippedFile     Kind = "skipped_file"     // a file found in a directory that no reader recognises
	RepeatedInput   Kind = "repeated_input"   // an input holding another input's dispatches: one recording read twice

	// rocprofv3 / rocpd and Nsight Systems exports (format/rocprof, format/nsys).
	DuplicateDispatchID  Kind = "duplicate_dispatch_id"  // a dispatch id seen before in the same process: later rows not in the tables
	ViewDroppedRows      Kind = "view_dropped_rows"      // note: rows rocpd's own views inner-join away; tally reads them
	WindowedExport       Kind = "windowed_export"        // the export holds only a time window (or some tables) of the capture
	GraphKernelsUntraced Kind = "graph_kernels_untraced" // graph launches whose kernels the profiler did not record

	// Ends of input and of recording (see Accounting.NoEndMarker).
	NoEndMarker          Kind = "no_end_marker"         // note: the format has no end marker, so a cut between two lines or rows cannot be seen
	InterruptedRecording Kind = "interrupted_recording" // the recorded command ended by a signal or with a non-zero status
)

// notes are kinds that describe the capture without making it incomplete.
var (
	notesMu sync.RWMutex
	notes   = map[Kind]bool{GraphLaunch: true, DuplicatesUnchecked: true, NoEndMarker: true, OverlappingEvents: true, SkippedFile: true}
)

// RegisterNote declares reader-defined kinds as notes: informational, never
// making a capture incomplete. Readers call it from init.
func RegisterNote(kinds ...Kind) {
	notesMu.Lock()
	defer notesMu.Unlock()
	for _, k := range kinds {
		notes[k] = true
	}
}

// Notes lists the kinds declared as notes, sorted by name (so a test can
// hold docs/report-json.md's kinds table to every one of them).
func Notes() []Kind {
	notesMu.RLock()
	defer notesMu.RUnlock()
	return slices.Sorted(maps.Keys(notes))
}

// IsNote reports whether gaps of this kind are informational only.
func (k Kind) IsNote() bool {
	notesMu.RLock()
	defer notesMu.RUnlock()
	return notes[k]
}

// MaxItems caps the items a gap lists; Count still counts every occurrence.
const MaxItems = 100

// Gap is one class of missing or doubtful data, counted, with examples.
type Gap struct {
	Kind Kind `json:"kind"`
	// Program scopes the gap to one program ("" = whole capture).
	Program string `json:"program,omitempty"`
	Count   int64  `json:"count"`
	// Summary is one human sentence: what is missing and what to do.
	Summary string `json:"summary"`
	// Note is true for informational kinds that do not make the capture
	// incomplete (e.g. graph_launch).
	Note bool `json:"note,omitempty"`
	// Figures are named numbers that qualify the gap (e.g. "total_ns").
	Figures []Count `json:"figures,omitempty"`
	// Affected is how much of the capture the gap touches; nil until sized
	// (analysis sizes every gap when it builds the tables).
	Affected *Affected `json:"-"`
	// Items are the first MaxItems occurrences; ItemsOmitted the rest.
	Items        []Item `json:"items"`
	ItemsOmitted int64  `json:"items_omitted,omitempty"`
}

// Item is one occurrence of a gap.
type Item struct {
	What    string `json:"what"`
	Where   string `json:"where,omitempty"`
	Program string `json:"program,omitempty"`
	Kernel  string `json:"kernel,omitempty"`
	// Queue is the queue the occurrence happened on (an index into
	// Capture.Queues), when the reader knows it; nil when it does not (a
	// pointer, so that unknown survives JSON and is never queue 0).
	Queue *QueueID `json:"queue,omitempty"`
	// Time is when it happened (e.g. the launch time of an unfinished
	// dispatch), in the unit of the capture's clock.
	Time *int64 `json:"time,omitempty"`
	// LastCompleted names the last dispatch that finished before it.
	LastCompleted string `json:"last_completed,omitempty"`
}

// Add counts one occurrence and keeps it as an item while under MaxItems.
func (g *Gap) Add(it Item) {
	g.AddN(1)
	if len(g.Items) < MaxItems {
		it.cutNames()
		g.Items = append(g.Items, it)
	} else {
		g.ItemsOmitted++
	}
}

// AddN counts n occurrences without items. The count saturates at the
// largest int64 (counts can come from the input): a wrapped, negative count
// would read as no gap at all.
func (g *Gap) AddN(n int64) {
	if n > 0 && g.Count > math.MaxInt64-n {
		g.Count = math.MaxInt64
		return
	}
	g.Count += n
}

// Set sets the gap's count and items for a reader that gathered them
// itself: the items are the first MaxItems of lists, in order, and the
// rest of count is ItemsOmitted.
func (g *Gap) Set(count int64, lists ...[]Item) {
	g.Count = count
	g.Items = nil
	for _, l := range lists {
		g.Items = append(g.Items, l[:min(len(l), MaxItems-len(g.Items))]...)
	}
	g.ItemsOmitted = count - int64(len(g.Items))
}

// SetFigure sets (or replaces) a named figure.
func (g *Gap) SetFigure(name string, v int64) {
	for i := range g.Figures {
		if g.Figures[i].Name == name {
			g.Figures[i].Count = v
			return
		}
	}
	g.Figures = append(g.Figures, Count{Name: name, Count: v})
}

// Figure returns a named figure and whether it is set.
func (g *Gap) Figure(name string) (int64, bool) {
	for _, f := range g.Figures {
		if f.Name == name {
			return f.Count, true
		}
	}
	return 0, false
}

// TimeOf returns a pointer to t, for Item.Time.
func TimeOf(t int64) *int64 { return &t }

// QueueOf returns a pointer to q, for Item.Queue.
func QueueOf(q QueueID) *QueueID { return &q }
