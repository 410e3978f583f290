package swimlane

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Records of a chip_swimlane_records.json that are not kernel executions
// (spec §5): read, counted, and stated as not used, so the input's
// accounting covers every record in the file.
const (
	phaseUnit        = "phase and upload records"
	whySchedPhase    = "AICPU scheduler phase: not a kernel execution (not drawn or tabled by tally)"
	whyAICPUOrch     = "AICPU orchestrator phase: not a kernel execution (not used)"
	whyHostOrch      = "host orchestrator phase: host ns, not a kernel execution (not used)"
	whyUpload        = "host→device upload: host ns, not a kernel execution (not used)"
	depsUnit         = "deps.json edges and tensors"
	whyEdge          = "dependency edge: not drawn (tally does not draw the task graph)"
	whyTensor        = "tensor: not used"
	otherFilesUnit   = "other files in dispatch dirs"
	whyConverterOut  = "swimlane converter output (derived from the records; not an input)"
	whyPMU           = "pmu.csv: PMU counters, not read by tally"
	whyOtherDispatch = "not read by tally (other diagnostics)"
)

// unusedStreams counts the phase and upload records of one records file.
// Phase streams are per scheduler or orchestrator thread (a list of lists);
// uploads are one list.
func (r *reader) unusedStreams(rec *records, d dispatchDir) {
	count := func(why string, n int64, first string) {
		in := r.c.Accounting.InputFor(phaseUnit)
		in.Read += n
		in.Ignore(why, n, first)
	}
	perThread := func(threads []json.RawMessage, why, key string) {
		for i, th := range threads {
			var rows []json.RawMessage
			n := int64(1) // a thread entry that is not a list is one record
			if json.Unmarshal(th, &rows) == nil {
				n = int64(len(rows))
			}
			if n > 0 {
				count(why, n, fmt.Sprintf("%s %s[%d]", d.label(), key, i))
			}
		}
	}
	perThread(rec.Scheduler, whySchedPhase, "aicpu_scheduler_phases")
	perThread(rec.AICPUOrch, whyAICPUOrch, "aicpu_orchestrator_phases")
	perThread(rec.HostOrch, whyHostOrch, "host_orchestrator_phases")
	if n := int64(len(rec.Uploads)); n > 0 {
		count(whyUpload, n, d.label()+" host_device_uploads")
	}
}

// unusedDeps counts the deps.json records tally does not use: the task
// graph's edges and tensors (its tasks name the kernels).
func (r *reader) unusedDeps(dd *deps, d dispatchDir) {
	for _, c := range []struct {
		n   int64
		why string
	}{{dd.edges, whyEdge}, {dd.tensors, whyTensor}} {
		if c.n > 0 {
			in := r.c.Accounting.InputFor(depsUnit)
			in.Read += c.n
			in.Ignore(c.why, c.n, d.label()+"/deps.json")
		}
	}
}

// otherFiles counts what a dispatch dir holds besides the files tally reads
// (dispatch_program.json, deps.json, chip_swimlane_records.json and the
// name maps it lists): pmu.csv, args_dump/, the converter's merged output.
func (r *reader) otherFiles(d dispatchDir) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return // the reads that follow report the directory
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == "dispatch_program.json", name == "deps.json", name == "chip_swimlane_records.json",
			strings.HasPrefix(name, "name_map") && strings.HasSuffix(name, ".json"):
			continue
		}
		why := whyOtherDispatch
		switch {
		case strings.HasPrefix(name, "merged_swimlane_") && strings.HasSuffix(name, ".json"):
			why = whyConverterOut
		case name == "pmu.csv":
			why = whyPMU
		}
		in := r.c.Accounting.InputFor(otherFilesUnit)
		in.Read++
		in.Ignore(why, 1, filepath.Join(d.label(), name))
	}
}
