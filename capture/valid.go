package capture

import "fmt"

// CheckValid verifies that the capture's tables agree with each other, as
// pprof's (*Profile).CheckValid does for a profile: every kernel belongs to
// an existing program, every gap is scoped to an existing program and its
// items name existing queues, and the accounting holds its own invariants.
// A reader that breaks one of these has a bug; format.ReadInput runs this on
// every capture it returns, so the bug surfaces as an error instead of a
// silently wrong table.
func (c *Capture) CheckValid() error {
	for i, k := range c.Kernels {
		if int(k.Program) < 0 || int(k.Program) >= len(c.Programs) {
			return fmt.Errorf("kernel %d (%q) belongs to program %d, but the capture has %d programs", i, k.Name, k.Program, len(c.Programs))
		}
		if k.Name == "" {
			return fmt.Errorf("kernel %d of program %q has no name (an unnamed kernel gets an anonymous label)", i, c.Programs[k.Program].Name)
		}
	}
	names := make(map[string]bool, len(c.Programs))
	for i, p := range c.Programs {
		if p.Name == "" {
			return fmt.Errorf("program %d has no name", i)
		}
		if p.Instances < 0 {
			return fmt.Errorf("program %q has %d instances", p.Name, p.Instances)
		}
		if err := checkRuns(p); err != nil {
			return err
		}
		names[p.Name] = true
	}
	for _, g := range c.Accounting.Gaps {
		if g.Program != "" && !names[g.Program] {
			return fmt.Errorf("gap %s is scoped to program %q, which the capture does not have", g.Kind, g.Program)
		}
		for i, it := range g.Items {
			// An unknown queue is nil, never NoQueue: every reader of the
			// item indexes Queues with it.
			if q := it.Queue; q != nil && (*q < 0 || int(*q) >= len(c.Queues)) {
				return fmt.Errorf("gap %s item %d is on queue %d, but the capture has %d queues", g.Kind, i, *q, len(c.Queues))
			}
		}
	}
	if err := c.checkOps(); err != nil {
		return err
	}
	if err := c.Accounting.CheckValid(); err != nil {
		return err
	}
	return nil
}

// checkRuns verifies a program's IncompleteRuns: run numbers are ≥ 0 (a
// dispatch outside any run has Instance -1, and that is no run) and each is
// listed once, so a count of left-out runs is a count of runs.
func checkRuns(p Program) error {
	seen := make(map[int64]bool, len(p.IncompleteRuns))
	for _, r := range p.IncompleteRuns {
		if r < 0 {
			return fmt.Errorf("program %q lists run %d as incomplete: runs are numbered from 0", p.Name, r)
		}
		if seen[r] {
			return fmt.Errorf("program %q lists run %d as incomplete twice", p.Name, r)
		}
		seen[r] = true
	}
	return nil
}

// CheckDispatch verifies one dispatch against the capture's tables: its
// kernel exists and belongs to its program, and its queue exists. A
// violation is a reader bug. Times are the input's business, not the
// reader's: Checked turns impossible ones into invalid_event gaps
// (ImpossibleTime).
func (c *Capture) CheckDispatch(d *Dispatch) error {
	k := int(d.Kernel)
	if k < 0 || k >= len(c.Kernels) {
		return fmt.Errorf("dispatch of kernel %d, but the capture has %d kernels", d.Kernel, len(c.Kernels))
	}
	if int(d.Program) < 0 || int(d.Program) >= len(c.Programs) {
		return fmt.Errorf("dispatch of program %d, but the capture has %d programs", d.Program, len(c.Programs))
	}
	if kp := c.Kernels[k].Program; kp != d.Program {
		return fmt.Errorf("dispatch of kernel %q is in program %d, but the kernel belongs to program %d: a kernel is named only from its own program's catalog", c.Kernels[k].Name, d.Program, kp)
	}
	if d.Queue != NoQueue && (d.Queue < 0 || int(d.Queue) >= len(c.Queues)) {
		return fmt.Errorf("dispatch of kernel %q on queue %d, but the capture has %d queues", c.Kernels[k].Name, d.Queue, len(c.Queues))
	}
	if err := c.checkOpRef(d); err != nil {
		return err
	}
	if ag := d.Aggregate; ag != nil {
		if ag.Count <= 0 {
			return fmt.Errorf("aggregated record of kernel %q stands for %d dispatches", c.Kernels[k].Name, ag.Count)
		}
		if (ag.DeviceValid && ag.Device < 0) || (ag.LaunchValid && ag.Launch < 0) {
			return fmt.Errorf("aggregated record of kernel %q has a negative sum", c.Kernels[k].Name)
		}
		if d.Device.Valid || d.Launch.Valid {
			return fmt.Errorf("aggregated record of kernel %q carries single-dispatch times", c.Kernels[k].Name)
		}
		if d.Collective != nil {
			return fmt.Errorf("aggregated record of kernel %q is a collective: a collective is one dispatch, matched across ranks", c.Kernels[k].Name)
		}
	}
	if d.Collective != nil {
		return checkCollective(c.Kernels[k].Name, d.Collective)
	}
	return nil
}
