package render

import (
	"sort"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// ProgramOrder is the order the reports show t's programs in: by device
// time, costliest first (programs on a ns clock, then those counted in
// ticks, then untimed ones by dispatches; ties by dispatches, then as
// read), or as read when input is set. It returns indexes into t.Programs;
// the tables themselves stay in input order, so a ProgramID still indexes
// them.
func ProgramOrder(t *analysis.Tables, input bool) []int {
	return orderPrograms(len(t.Programs), input, func(i int) programKey {
		pt := &t.Programs[i]
		return programKey{timed: pt.Timed > 0, ns: pt.Clock.Unit == "ns", total: pt.Total, dispatches: pt.Dispatches}
	})
}

// JSONProgramOrder is ProgramOrder for the programs of a JSON report (the
// HTML page orders its sections by it).
func JSONProgramOrder(progs []JSONProgram, input bool) []int {
	return orderPrograms(len(progs), input, func(i int) programKey {
		jp := &progs[i]
		k := programKey{dispatches: jp.Dispatches}
		switch {
		case jp.TotalNS != nil:
			k.timed, k.ns, k.total = true, true, *jp.TotalNS
		case jp.TotalTicks != nil:
			k.timed, k.total = true, *jp.TotalTicks
		}
		return k
	})
}

// programKey is what a program is ordered by.
type programKey struct {
	timed, ns         bool
	total, dispatches int64
}

func (k programKey) class() int {
	switch {
	case !k.timed:
		return 2
	case k.ns:
		return 0
	}
	return 1
}

func orderPrograms(n int, input bool, key func(int) programKey) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if input {
		return order
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := key(order[x]), key(order[y])
		if ca, cb := a.class(), b.class(); ca != cb {
			return ca < cb
		}
		if a.timed && a.total != b.total {
			return a.total > b.total
		}
		return a.dispatches > b.dispatches
	})
	return order
}

// deviceTime sums the device time in t's programs per unit: what a share
// of the capture's device time is a share of.
func deviceTime(t *analysis.Tables) map[string]int64 {
	m := map[string]int64{}
	for _, pt := range t.Programs {
		if pt.Timed > 0 {
			m[pt.Clock.Unit] = capture.SatAdd(m[pt.Clock.Unit], pt.Total)
		}
	}
	return m
}
