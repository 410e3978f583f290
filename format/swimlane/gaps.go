package swimlane

import "github.com/tallyprof/tally/capture"

// Gap kinds of this reader (docs/formats/swimlane.md).
const (
	// UnresolvedProgram: dispatches whose program could not be resolved (no
	// marker with several programs, a marker naming an unknown program, a
	// program without a usable KERNELS table): every task gets an anonymous
	// label rank<w>/d<k>:#<func_id>.
	UnresolvedProgram capture.Kind = "unresolved_program"
	// InferredProgram (note): no marker, and the build has exactly one
	// program, so it is that one.
	InferredProgram capture.Kind = "inferred_program"
	// IgnoredNameMap (note): name_map*.json files found in dispatch dirs;
	// never used for names (they may be stale), cross-checked only.
	IgnoredNameMap capture.Kind = "ignored_name_map"
	// NoRecords: dispatch dirs without chip_swimlane_records.json.
	NoRecords capture.Kind = "no_records"
	// NotConvertible: dispatches recorded on a simulator platform.
	NotConvertible capture.Kind = "not_convertible"
	// KernelTable: kernel_config.py entries skipped, duplicate func_ids,
	// a missing or non-literal KERNELS, an unreadable file.
	KernelTable capture.Kind = "kernel_table"
	// MissingDeps: dispatches without deps.json: func_ids unresolved.
	MissingDeps capture.Kind = "missing_deps"
	// AmbiguousLane: AIV tasks with both AIV slots active and different
	// (named from AIV0, as the converter does).
	AmbiguousLane capture.Kind = "ambiguous_lane"
	// SchedulerTimingMissing: AICore rows without their AICPU row at level
	// ≥ 2: kept as kernel executions, dispatch timing unknown.
	SchedulerTimingMissing capture.Kind = "scheduler_timing_missing"
	// DeviceDropsUnrecorded (note): device-side record drops are in the
	// run's log, not in these files.
	DeviceDropsUnrecorded capture.Kind = "device_drops_unrecorded"
	// UserNameMap (note): a program's kernels were named from a name map
	// the user passed (--name-map), not from its kernel_config.py.
	UserNameMap capture.Kind = "user_name_map"
)

func init() {
	capture.RegisterNote(InferredProgram, IgnoredNameMap, DeviceDropsUnrecorded, UserNameMap)
	capture.RegisterKind(UnresolvedProgram, capture.Rule{Measure: capture.UnattributedTime, Derive: capture.DeriveUnresolved,
		Why: "the time of the tasks with an anonymous label (no program resolved), from the tables"})
	capture.RegisterKind(NoRecords, capture.UnknownSize("dispatch directories without records: how much ran there is unknown"))
	capture.RegisterKind(NotConvertible, capture.UnknownSize("dispatches recorded on a simulator platform: their device time is unknown"))
	capture.RegisterKind(KernelTable, capture.UnknownSize("kernel table entries that could not be used: how much time their kernels took is unknown"))
	capture.RegisterKind(MissingDeps, capture.Rule{Measure: capture.UnattributedTime, Derive: capture.DeriveUnresolved,
		Why: "the time of the tasks whose func_id could not be resolved, from the tables"})
	capture.RegisterKind(AmbiguousLane, capture.UnknownSize("tasks named from one of two active lanes: how much is named wrongly is unknown"))
	capture.RegisterKind(SchedulerTimingMissing, capture.Rule{Measure: capture.TouchesNone,
		Why: "their device time is in the tables; only the scheduler's timing is unknown"})
}
