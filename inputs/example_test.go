package inputs_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tallyprof/tally/capture"
	_ "github.com/tallyprof/tally/format/all" // every reader
	"github.com/tallyprof/tally/inputs"
)

// queueTime is a custom capture.Sink: the device time of each queue, which
// tally's own tables (per program and kernel) do not show.
type queueTime map[string]int64

func (q queueTime) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	if d.Aggregate == nil && d.Device.Valid && int(d.Queue) >= 0 && int(d.Queue) < len(c.Queues) {
		q[c.Queues[d.Queue].Label()] += d.Device.End - d.Device.Begin
	}
}

// A Go program reads a trace as tally does — reader detected from the
// content, model checked, tables and accounting built — with a sink of its
// own beside tally's tables. Each input gets its own sink: inputs are read
// in parallel.
func Example() {
	e := inputs.Expand([]string{"testdata/kernel_trace.csv"}, "")
	queues := make([]queueTime, len(e.Paths))
	run := e.Read(inputs.Options{Sink: func(i int, _ string) capture.Sink {
		queues[i] = queueTime{}
		return queues[i]
	}})
	if err := run.Err(); err != nil {
		fmt.Println(err)
		return
	}
	in := run.Inputs[0]
	fmt.Printf("%s: %d dispatches, complete: %v\n", in.Capture.Source.Format, in.Tables.Dispatches(), in.Capture.Accounting.Complete())
	for _, q := range slices.Sorted(maps.Keys(queues[0])) {
		fmt.Printf("%s: %d ns\n", q, queues[0][q])
	}
	// Output:
	// rocprof: 9 dispatches, complete: true
	// Agent 4 · queue 1: 43400 ns
	// Agent 4 · queue 2: 20560 ns
	// Agent 4 · queue 3: 22360 ns
	// Agent 4 · queue 4: 9840 ns
}
