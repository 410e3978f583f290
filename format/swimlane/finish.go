package swimlane

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// finish states what the whole run holds and lacks.
func (r *reader) finish(dirs int) {
	c := r.c
	if r.converted > 0 {
		r.gap(DeviceDropsUnrecorded, "", "device-side record drops are not recorded in chip_swimlane_records.json (they are in the run's log): check it before trusting counts").AddN(1)
	}
	if r.tasks == 0 {
		why := fmt.Sprintf("%d dispatch dirs under %d rank dirs, %d with records: no task was recorded", dirs, r.rankDirs, r.converted)
		r.gap(capture.EmptyCapture, "", "the run holds no kernel execution: "+why).Add(capture.Item{What: why, Where: r.root})
	}
	r.userMapNotes()
	s := capture.Section{Title: "run"}
	s.Add("rank dirs", r.rankDirs)
	s.Add("dispatch dirs", dirs)
	s.Add("dispatch dirs converted", r.converted)
	s.Add("tasks", r.tasks)
	s.Add("programs in build", r.programList())
	c.Inventory = append(c.Inventory, s)
	for _, name := range r.names {
		p := r.programs[name]
		ps := capture.Section{Title: "program " + name}
		if p.table != nil {
			ps.Add("kernels in table", len(p.table.Names))
			ps.Add("entries skipped", len(p.table.Skipped))
			ps.Add("duplicate func_ids", len(p.table.Duplicates))
		}
		if p.why != "" {
			ps.Add("table", "unusable: "+p.why)
		}
		c.Inventory = append(c.Inventory, ps)
	}
	ds := capture.Section{Title: "dispatches"}
	for _, kv := range r.dispatches {
		ds.Add(kv[0], kv[1])
	}
	c.Inventory = append(c.Inventory, ds)
	for i := range c.Programs {
		c.Programs[i].Notes = append(c.Programs[i].Notes, "times from each chip's device counter; shares compare this program's kernels only")
	}
}
