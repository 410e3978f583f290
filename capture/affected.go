package capture

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Affected is how much of the capture one gap touches, in one family of
// figures shared by every reader and kind, so a verdict can carry a number
// and not only a word:
//
//   - missing: device time known to have run and not to be in the tables;
//   - unattributed: device time in the tables but not fully attributed (an
//     anonymous kernel, no launch call, no program, time counted twice);
//   - lost dispatches: units of device work not in the tables, counted;
//   - known: false when how much is missing cannot be said (a cut, a fault,
//     a dispatch with impossible times) — the figures are then what is
//     known, and an unknown amount comes on top. Never 0 for "unknown".
//
// Times are in the unit of the programs they concern: ns, or device ticks
// for programs timed in ticks.
type Affected struct {
	Known bool
	Touched
	// Basis says how the figures were computed, or why the size is unknown.
	Basis string
}

// Touched is the figure family itself, as one gap states it and as the
// sums over many gaps (AffectedTotals) and many captures state it: one
// type, so they add up one way.
type Touched struct {
	MissingNs         int64
	UnattributedNs    int64
	MissingTicks      int64
	UnattributedTicks int64
	LostDispatches    int64
}

// Add adds o's figures to t's, each saturating (SatAdd).
func (t *Touched) Add(o Touched) {
	t.MissingNs = SatAdd(t.MissingNs, o.MissingNs)
	t.UnattributedNs = SatAdd(t.UnattributedNs, o.UnattributedNs)
	t.MissingTicks = SatAdd(t.MissingTicks, o.MissingTicks)
	t.UnattributedTicks = SatAdd(t.UnattributedTicks, o.UnattributedTicks)
	t.LostDispatches = SatAdd(t.LostDispatches, o.LostDispatches)
}

// Measure is what a gap kind's figures measure.
type Measure uint8

const (
	// SizeUnknown: how much the gap touches cannot be said.
	SizeUnknown Measure = iota
	// TouchesNone: the gap touches no device time of the tables (a repeat
	// counted once; a fact about the recording, not its content).
	TouchesNone
	// MissingTime: device time known to be missing, in Rule.Figure (a figure
	// of the gap named *_ns); unknown when the figure is absent.
	MissingTime
	// UnattributedTime: device time in the tables, not fully attributed:
	// derived from the tables (Rule.Derive) or in Rule.Figure.
	UnattributedTime
)

// Derivation computes a gap's time from the tables it concerns (the
// analysis package does it, as it holds the tables).
type Derivation uint8

const (
	DeriveNone Derivation = iota
	// DeriveUnresolved: the time of the kernels in the gap's scope that no
	// catalog names (Kernel.Resolved false).
	DeriveUnresolved
	// DeriveNoLaunch: the time of the dispatches in the gap's scope whose
	// launch call is not in the trace (Link no-launch).
	DeriveNoLaunch
)

// Lost says where a gap kind's count of lost dispatches is.
type Lost uint8

const (
	LostNone   Lost = iota
	LostCount       // the gap's count is a count of lost dispatches
	LostFigure      // in Rule.LostFigure
)

// Rule sizes the gaps of one kind.
type Rule struct {
	Measure    Measure
	Figure     string
	Derive     Derivation
	Lost       Lost
	LostFigure string
	// Why is the basis stated with the figures: how they are computed, or
	// why the size is unknown. Documented per kind in docs/report-json.md.
	Why string
}

var (
	rulesMu sync.RWMutex
	rules   = map[Kind]Rule{}
)

// RegisterKind declares a gap kind that makes a capture incomplete, with
// the rule that sizes its gaps. Readers call it from init for every kind
// they define; the model check refuses a counted gap whose kind is neither
// registered nor a note, so no kind can go without its size.
func RegisterKind(k Kind, r Rule) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	rules[k] = r
}

// RuleOf returns the kind's rule and whether it is registered.
func RuleOf(k Kind) (Rule, bool) {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	r, ok := rules[k]
	return r, ok
}

// UnknownSize is the rule of a kind whose size is unknown, for the reason why.
func UnknownSize(why string) Rule { return Rule{Measure: SizeUnknown, Why: why} }

// The shared kinds' rules (docs/report-json.md, "How much each gap touches").
func init() {
	for k, r := range map[Kind]Rule{
		EmptyCapture:   UnknownSize("nothing was recorded: how much ran is unknown"),
		TruncatedInput: UnknownSize("the input is cut: how much followed the cut is unknown"),
		SkippedInput:   UnknownSize("input that did not parse or was filtered at the source: what device work it held is unknown"),
		UnknownInput:   UnknownSize("events of categories tally does not read: if they are device work, their time is not in the tables"),
		UnfinishedDispatch: {Measure: SizeUnknown, Lost: LostCount,
			Why: "launched and never finished: how long they would have run is unknown"},
		DeviceFault:       UnknownSize("work queued before a failed or unended sync never completed: how much is unknown"),
		FailedProgram:     UnknownSize("a run that failed: the work it did not do is unknown"),
		IncompleteProgram: UnknownSize("a run that never ended: what it would still have run is unknown"),
		InvalidEvent: {Measure: SizeUnknown, Lost: LostCount,
			Why: "their times are impossible, so how long they ran is unknown"},
		DuplicateEvent: {Measure: TouchesNone, Why: "counted once: the tables hold no repeat"},
		UnresolvedName: {Measure: UnattributedTime, Derive: DeriveUnresolved,
			Why: "the time of the kernels no catalog of their program names, from the tables"},
		UntimedInput:       UnknownSize("dispatches without times: how long they ran is unknown"),
		ClockDecrease:      UnknownSize("times taken across the decrease are wrong by an unknown amount"),
		ZeroDuration:       {Measure: TouchesNone, Why: "in the tables; each is within its trace's time resolution (1 µs in Kineto)"},
		UnfinalizedCapture: UnknownSize("events still in the producer's buffers are missing: their number is unknown"),
		DroppedRecords: {Measure: SizeUnknown, Lost: LostFigure, LostFigure: "dropped_dispatches",
			Why: "the producer dropped records: how long the dropped dispatches ran is unknown"},
		StaleBytes:        UnknownSize("bytes past the logical end may hold records: what they held is unknown"),
		FailedSession:     UnknownSize("a session that ended with an error: what it did not record is unknown"),
		ProducerWarnings:  UnknownSize("the producer says data is missing: how much is unknown"),
		InconsistentTrace: UnknownSize("records contradict each other: which of them is right, and by how much, is unknown"),
		GPUEventWithoutLaunch: {Measure: UnattributedTime, Derive: DeriveNoLaunch,
			Why: "the time of the dispatches whose launch call is not in the trace, from the tables"},
		LaunchWithoutGPUEvent: {Measure: SizeUnknown, Lost: LostCount,
			Why: "launch calls whose device work is not in the trace: how long it ran is unknown"},
		UnrecordedDeviceWork: {Measure: MissingTime, Figure: "total_ns",
			Why: "the waits of streams with launched work while nothing recorded ran on their device (total_ns)"},
		ContainedEvents: {Measure: UnattributedTime, Figure: "total_ns",
			Why: "in the tables, but their stream's time is counted twice (total_ns)"},
		FailedInput:          UnknownSize("an input that could not be read: what it held is unknown"),
		IncompleteInput:      UnknownSize("the inputs' own gaps (each input's section sizes them)"),
		RepeatedInput:        UnknownSize("dispatches the merged tables count twice: how many, past the earliest compared, is unknown"),
		DuplicateDispatchID:  {Measure: TouchesNone, Why: "counted once: the tables hold no repeat"},
		WindowedExport:       UnknownSize("the export holds a window of the capture: the rest is unknown"),
		GraphKernelsUntraced: {Measure: MissingTime, Figure: "graph_gpu_ns", Why: "the device time of graph launches whose kernels were not recorded (graph_gpu_ns)"},
		InterruptedRecording: {Measure: TouchesNone,
			Why: "the trace is whole up to where the command stopped; a run it stopped inside is its own gap"},
	} {
		RegisterKind(k, r)
	}
}

// AffectedTotals sum the capture's gaps: the device time in the tables, and
// what the gaps touch. Unknown lists the kinds whose size is unknown.
type AffectedTotals struct {
	DeviceNs, DeviceTicks int64
	Touched
	Unknown []Kind
}

// Add adds the totals of o (another capture's) to t: the device time, what
// the gaps touch, and the kinds of unknown size, each named once.
func (t *AffectedTotals) Add(o *AffectedTotals) {
	t.DeviceNs = SatAdd(t.DeviceNs, o.DeviceNs)
	t.DeviceTicks = SatAdd(t.DeviceTicks, o.DeviceTicks)
	t.Touched.Add(o.Touched)
	for _, k := range o.Unknown {
		if !slices.Contains(t.Unknown, k) {
			t.Unknown = append(t.Unknown, k)
		}
	}
}

// Share is the part of device time the gaps touch: missing and unattributed
// time over the device time in the tables plus the missing time, the
// larger of the ns and ticks figures, capped at 1.
func (t *AffectedTotals) Share() float64 {
	s := max(share(t.MissingNs+t.UnattributedNs, t.DeviceNs+t.MissingNs), share(t.MissingTicks+t.UnattributedTicks, t.DeviceTicks+t.MissingTicks))
	return min(s, 1)
}

// MissingShare is the missing time's part (ns or ticks, the larger).
func (t *AffectedTotals) MissingShare() float64 {
	return max(share(t.MissingNs, t.DeviceNs+t.MissingNs), share(t.MissingTicks, t.DeviceTicks+t.MissingTicks))
}

// UnattributedShare is the unattributed time's part of the tables' time.
func (t *AffectedTotals) UnattributedShare() float64 {
	return min(max(share(t.UnattributedNs, t.DeviceNs), share(t.UnattributedTicks, t.DeviceTicks)), 1)
}

func share(part, whole int64) float64 {
	if part <= 0 {
		return 0
	}
	if whole <= 0 {
		return 1
	}
	return float64(part) / float64(whole)
}

// Totals sums the sized gaps (Gap.Affected, set by analysis) over the
// device time given, leaving out the kinds in skip (accepted by name).
// Notes and uncounted gaps touch nothing.
func (a *Accounting) Totals(deviceNs, deviceTicks int64, skip map[Kind]bool) AffectedTotals {
	t := AffectedTotals{DeviceNs: deviceNs, DeviceTicks: deviceTicks}
	seen := map[Kind]bool{}
	for _, g := range a.Gaps {
		if g.Note || g.Count == 0 || skip[g.Kind] {
			continue
		}
		af := g.Affected
		if af == nil {
			af = &Affected{Basis: "not sized"}
		}
		t.Touched.Add(af.Touched)
		if !af.Known && !seen[g.Kind] {
			seen[g.Kind] = true
			t.Unknown = append(t.Unknown, g.Kind)
		}
	}
	return t
}

// Gate is the CI gate of --fail-if-affected: it returns why the capture
// fails it — its gaps touch more than maxShare (0..1) of device time, or a
// gap's size is unknown — leaving out the kinds accepted by name. No
// reason: it passes.
func (a *Accounting) Gate(deviceNs, deviceTicks int64, maxShare float64, accept map[Kind]bool) []string {
	t := a.Totals(deviceNs, deviceTicks, accept)
	var why []string
	if s := t.Share(); s > maxShare {
		why = append(why, fmt.Sprintf("gaps touch %.1f%% of device time, more than %.1f%%", 100*s, 100*maxShare))
	}
	for _, k := range t.Unknown {
		why = append(why, fmt.Sprintf("%s: how much it touches is unknown (accept it with --accept %s)", k, k))
	}
	return why
}

// checkSized is the registration rule: every counted gap that makes the
// capture incomplete is of a kind with a sizing rule.
func checkSized(g *Gap) error {
	if g.Note || g.Count == 0 {
		return nil
	}
	if _, ok := RuleOf(g.Kind); !ok {
		return fmt.Errorf("gap kind %s has no sizing rule: register it with capture.RegisterKind (or RegisterNote)", g.Kind)
	}
	return nil
}

// Kinds lists the registered kinds with their rules, sorted by name.
func Kinds() []Kind {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	return slices.Sorted(maps.Keys(rules))
}

// Describe is the rule in the words docs/report-json.md's table uses.
func (r Rule) Describe() string {
	var s string
	switch r.Measure {
	case SizeUnknown:
		s = "unknown"
	case TouchesNone:
		s = "none"
	case MissingTime:
		s = "missing"
	case UnattributedTime:
		s = "unattributed"
	}
	switch {
	case r.Derive == DeriveUnresolved:
		s += " (tables: unnamed kernels)"
	case r.Derive == DeriveNoLaunch:
		s += " (tables: no-launch dispatches)"
	case r.Figure != "":
		s += " (`" + r.Figure + "`)"
	}
	switch r.Lost {
	case LostCount:
		s += "; lost = count"
	case LostFigure:
		s += "; lost = `" + r.LostFigure + "`"
	}
	return s
}
