package ireeprof

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"sync"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// The second format: the JSONL `iree-profile --format=jsonl --dispatch_events
// dispatch FILE` prints (spec §12). It carries one row per dispatch event in
// file order, then a dispatch_summary. It has no sessions, no clock samples
// and no loss records, so a report from it says what it cannot show.

// SniffJSONL recognises a dispatch-event row on the first line.
func SniffJSONL(head []byte) format.Confidence {
	line := format.TrimBOM(head)
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return format.No
	}
	var v struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(line, &v) != nil {
		return format.No
	}
	switch v.Type {
	case "dispatch_event", "host_dispatch_event", "dispatch_summary":
		return format.Likely
	}
	return format.No
}

// jsonRow holds the fields of the rows tally reads.
type jsonRow struct {
	Type          string      `json:"type"`
	Device        uint32      `json:"physical_device_ordinal"`
	Queue         uint32      `json:"queue_ordinal"`
	Stream        uint64      `json:"stream_id"`
	EventID       uint64      `json:"event_id"`
	Submission    uint64      `json:"submission_id"`
	CommandBuffer uint64      `json:"command_buffer_id"`
	CommandIndex  uint32      `json:"command_index"`
	Executable    uint64      `json:"executable_id"`
	Function      *uint32     `json:"function_ordinal"`
	Export        *uint32     `json:"export_ordinal"` // before the exports→functions rename
	Key           string      `json:"key"`
	StartTick     uint64      `json:"start_tick"`
	EndTick       uint64      `json:"end_tick"`
	DurationTicks uint64      `json:"duration_ticks"`
	Valid         bool        `json:"valid"`
	ClockFit      bool        `json:"clock_fit_available"`
	DurationNS    json.Number `json:"duration_ns"`
	StartHostNS   int64       `json:"start_host_time_ns"`
	EndHostNS     int64       `json:"end_host_time_ns"`
	Status        *uint32     `json:"status_code"`

	// dispatch_summary
	Mode              string `json:"mode"`
	Filter            string `json:"filter"`
	Total             int64  `json:"total_dispatches"`
	Matched           int64  `json:"matched_dispatches"`
	ValidCount        int64  `json:"valid_dispatches"`
	InvalidCount      int64  `json:"invalid_dispatches"`
	TotalHost         int64  `json:"total_host_dispatches"`
	MatchedHost       int64  `json:"matched_host_dispatches"`
	InvalidHostCount  int64  `json:"invalid_host_dispatches"`
	ValidHostCount    int64  `json:"valid_host_dispatches"`
	AggregateGroups   int64  `json:"aggregate_groups"`
	HostAggregateRows int64  `json:"host_aggregate_groups"`
}

func (row *jsonRow) function() uint32 {
	if row.Function != nil {
		return *row.Function
	}
	if row.Export != nil {
		return *row.Export
	}
	return noOrdinal
}

// ns reads duration_ns: an integer today, "%.3f" in older iree-profile.
func (row *jsonRow) ns() (int64, bool) {
	if v, err := row.DurationNS.Int64(); err == nil {
		return v, true
	}
	f, err := row.DurationNS.Float64()
	if err != nil || math.IsNaN(f) || f < 0 || f > math.MaxInt64 {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// anonKey matches iree-profile's label for an unnamed function (spec §11).
var anonKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(device\d+/)?executable\d+#\d+$`) })

// toolError matches an IREE status line such as
// "iree/hal/utils/profile_file.c:303: DATA_LOSS; profile record extends past file end".
var toolError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\S+:\d+: [A-Z_]+;`) })

// maxLine bounds one JSONL line.
const maxLine = 16 << 20

// jsonlReader is the state of one JSONL read.
type jsonlReader struct {
	in   *format.Input
	c    *capture.Capture
	sink capture.Sink

	lines, events, host *capture.InputCount

	// From pass 1, per device: clock fit, tick-rate estimate, origin.
	devs       map[uint32]*jsonDevice
	devOrder   []uint32
	rowDevices int // devices with device dispatch rows

	programs map[progKey]*jsonProgram
	progs    []*jsonProgram
	queues   map[queueRef]capture.QueueID

	repeats rowRepeats // rows printed twice (jsonl_repeat.go)

	summary   *jsonRow
	rows      int64 // dispatch_event rows
	hostRows  int64
	invalid   int64
	aggregate int64
	cutLast   bool
}

type jsonDevice struct {
	fit           bool
	mixed         bool // rows disagree on clock_fit_available
	ticks, ns     float64
	minStart      uint64
	haveStart     bool
	rows, invalid int64
}

type jsonProgram struct {
	progState
	unresolved map[capture.KernelID]*unresolvedKernel
}

// ReadJSONL reads iree-profile's per-dispatch JSONL, streaming dispatches to
// sink. It reads the input twice: the first pass learns each device's
// clock statement and tick rate, the second emits dispatches.
func ReadJSONL(in *format.Input, _ *format.Options, sink capture.Sink) (*capture.Capture, error) {
	// Two passes over the lines: a stream is spooled to a file first.
	if err := in.RandomAccess("iree-jsonl"); err != nil {
		return nil, err
	}
	if sink == nil {
		sink = capture.Discard
	}
	c := &capture.Capture{}
	j := &jsonlReader{in: in, c: c, sink: sink, devs: map[uint32]*jsonDevice{},
		programs: map[progKey]*jsonProgram{}, queues: map[queueRef]capture.QueueID{}}
	if err := j.scan(j.learn); err != nil {
		return nil, err
	}
	j.rowDevices = len(j.devs)
	j.lines = c.Accounting.InputFor("lines")
	j.events = c.Accounting.InputFor("dispatch events")
	if err := j.scan(j.emit); err != nil {
		return nil, err
	}
	j.finish()
	return c, nil
}

// scan calls fn for every line with its 1-based number; last says the line
// is the input's last and has no newline.
func (j *jsonlReader) scan(fn func(n int64, line []byte, last bool)) error {
	r, err := j.in.Reader()
	if err != nil {
		return format.FileError(j.in.Path, err, "is it a complete .gz file?", "%v", err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	unterminated := false
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i + 1, bytes.TrimSuffix(data[:i], []byte{'\r'}), nil
		}
		if atEOF && len(data) > 0 {
			unterminated = true
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	var n int64
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = format.TrimBOM(line)
		}
		fn(n, line, unterminated)
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return format.LineError(j.in.Path, n+1, "give the JSONL iree-profile printed, or --format for another reader", "longer than %d MiB: this is not iree-profile JSONL", maxLine>>20)
		}
		if err == io.ErrUnexpectedEOF {
			// A cut gzip stream: what was read is kept, the cut is reported.
			j.cutLast = true
			return nil
		}
		return format.LineError(j.in.Path, n+1, "check the file and the disk", "%v", err)
	}
	return nil
}

func parseRow(line []byte) (*jsonRow, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	var row jsonRow
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&row) != nil {
		return nil, false
	}
	return &row, true
}

// learn is pass 1: per device, whether iree-profile had a clock fit and the
// mean ns per tick of its rows (for placing begin times).
func (j *jsonlReader) learn(_ int64, line []byte, _ bool) {
	row, ok := parseRow(line)
	if !ok || row.Type != "dispatch_event" {
		return
	}
	d := j.devs[row.Device]
	if d == nil {
		d = &jsonDevice{fit: row.ClockFit}
		j.devs[row.Device] = d
		j.devOrder = append(j.devOrder, row.Device)
	}
	d.rows++
	if d.fit != row.ClockFit {
		d.mixed = true
		d.fit = false
	}
	if !rowValid(row) {
		d.invalid++
		return
	}
	if !d.haveStart || row.StartTick < d.minStart {
		d.minStart, d.haveStart = row.StartTick, true
	}
	if ns, ok := row.ns(); ok && row.ClockFit && row.DurationTicks > 0 {
		d.ticks += float64(row.DurationTicks)
		d.ns += float64(ns)
	}
}

// rowValid applies spec §9's rule and the row's own flag.
func rowValid(row *jsonRow) bool {
	return row.Valid && row.StartTick != 0 && row.EndTick != 0 && row.EndTick >= row.StartTick
}

// emit is pass 2: every line is used or skipped with a reason.
func (j *jsonlReader) emit(n int64, line []byte, last bool) {
	j.lines.Read++
	where := fmt.Sprintf("line %d", n)
	if len(bytes.TrimSpace(line)) == 0 {
		j.lines.Ignore("blank line", 1, where)
		return
	}
	row, ok := parseRow(line)
	if !ok {
		switch {
		case last:
			j.cutLast = true // endGaps counts the gap
			j.lines.Lose(gapOf(j.c, capture.TruncatedInput, ""), "cut last line", 1, where)
		case toolError().Match(line):
			// A message, not a row; the rows it stopped are tool_error's.
			j.lines.Ignore("iree-profile error message", 1, where)
			gapOf(j.c, ToolError, "").Add(capture.Item{What: string(truncate(line, 300)), Where: where})
		default:
			g := gapOf(j.c, capture.SkippedInput, "")
			j.lines.Lose(g, "not JSON", 1, where)
			g.Add(capture.Item{What: "not a JSON object: " + string(truncate(line, 120)), Where: where})
		}
		return
	}
	switch row.Type {
	case "dispatch_event":
		j.lines.Used++
		j.deviceRow(row, n, where)
	case "host_dispatch_event":
		j.lines.Used++
		j.hostRow(row, n, where)
	case "dispatch_summary":
		j.lines.Used++
		if j.summary == nil {
			j.summary = row
		}
	case "dispatch_group", "host_dispatch_group":
		j.aggregate++
		// Totals of dispatches that are not in the tables: endGaps counts
		// the skipped_input gap for them.
		j.lines.Lose(gapOf(j.c, capture.SkippedInput, ""), "aggregate row (per-kernel totals, no per-dispatch times)", 1, where)
	default:
		g := gapOf(j.c, capture.SkippedInput, "")
		j.lines.Lose(g, "not a dispatch row", 1, where)
		g.Add(capture.Item{What: fmt.Sprintf("row of type %q is not a dispatch row", truncate([]byte(row.Type), 60)), Where: where})
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(append([]byte{}, b[:n]...), "…"...)
	}
	return b
}

func (j *jsonlReader) program(dev uint32, cb uint64, host bool) *jsonProgram {
	key := progKey{device: noOrdinal, cb: cb, host: host}
	perDevice := !host && j.rowDevices > 1
	if perDevice {
		key.device = dev
	}
	if p := j.programs[key]; p != nil {
		return p
	}
	name := programName(cb, dev, perDevice, host)
	p := &jsonProgram{progState: progState{name: name, device: dev, host: host, kernels: map[fnKey]capture.KernelID{}},
		unresolved: map[capture.KernelID]*unresolvedKernel{}}
	if host {
		p.clock = hostClock
	} else {
		p.clock = j.deviceClock(dev)
	}
	clk := p.clock
	p.id = j.c.AddProgram(capture.Program{Name: name, Clock: &clk})
	j.programs[key] = p
	j.progs = append(j.progs, p)
	return p
}

func (j *jsonlReader) queue(dev, q uint32) capture.QueueID {
	key := queueRef{device: dev, queue: q}
	if id, ok := j.queues[key]; ok {
		return id
	}
	id := j.c.AddQueue(capture.Queue{Name: "device " + ordinal(dev) + " queue " + ordinal(q), Device: "device " + ordinal(dev)})
	j.queues[key] = id
	return id
}

func (j *jsonlReader) kernel(p *jsonProgram, row *jsonRow) capture.KernelID {
	key := fnKey{executable: row.Executable, function: row.function()}
	if id, ok := p.kernels[key]; ok {
		return id
	}
	resolved := row.Key != "" && !anonKey().MatchString(row.Key)
	name := row.Key
	if name == "" {
		name = anonymous(row.Device, key.executable, key.function)
	}
	id := j.c.AddKernel(capture.Kernel{Program: p.id, Name: name, Resolved: resolved, Category: "kernel"})
	p.kernels[key] = id
	if !resolved {
		g := gapOf(j.c, capture.UnresolvedName, p.name)
		g.Add(capture.Item{What: fmt.Sprintf("iree-profile found no name for executable %d function %s", key.executable, ordinal(key.function)), Program: p.name, Kernel: name})
		p.unresolved[id] = &unresolvedKernel{gap: g}
	}
	return id
}

// rowKernel is a row's program and kernel; the row counts as a dispatch of
// its kernel when that one is unresolved.
func (j *jsonlReader) rowKernel(row *jsonRow, host bool) (*jsonProgram, capture.KernelID) {
	p := j.program(row.Device, row.CommandBuffer, host)
	kid := j.kernel(p, row)
	if u := p.unresolved[kid]; u != nil {
		u.dispatches++
	}
	return p, kid
}

func (j *jsonlReader) deviceRow(row *jsonRow, line int64, where string) {
	j.rows++
	j.events.Read++
	p, kid := j.rowKernel(row, false)
	d := j.devs[row.Device]
	var iv capture.Interval
	why := ""
	if !rowValid(row) {
		why = fmt.Sprintf("start tick %d, end tick %d, valid %v", row.StartTick, row.EndTick, row.Valid)
	} else if d != nil && d.fit {
		ns, ok := row.ns()
		if !ok {
			why = fmt.Sprintf("duration_ns %q is not a number", row.DurationNS)
		} else {
			b := int64(0)
			if d.ticks > 0 {
				b = int64(math.Round(float64(row.StartTick-d.minStart) * d.ns / d.ticks))
			}
			iv = capture.Interval{Begin: b, End: b + ns, Valid: true}
		}
	} else if row.StartTick > math.MaxInt64 || row.EndTick > math.MaxInt64 {
		why = fmt.Sprintf("ticks %d..%d are beyond 2^63", row.StartTick, row.EndTick)
	} else {
		iv = capture.Interval{Begin: int64(row.StartTick), End: int64(row.EndTick), Valid: true}
	}
	if why != "" {
		j.invalid++
		j.invalidRow(p, kid, row, why, where, j.events)
		return
	}
	if j.repeat(p, kid, row, iv, false, line, j.events) {
		return
	}
	j.send(p, kid, row, iv)
	j.events.Used++
}

func (j *jsonlReader) hostRow(row *jsonRow, line int64, where string) {
	if j.host == nil {
		j.host = j.c.Accounting.InputFor("host dispatch rows")
	}
	j.hostRows++
	j.host.Read++
	p, kid := j.rowKernel(row, true)
	if !row.Valid || row.StartHostNS <= 0 || row.EndHostNS < row.StartHostNS {
		j.invalidRow(p, kid, row, fmt.Sprintf("host times %d..%d ns, valid %v", row.StartHostNS, row.EndHostNS, row.Valid), where, j.host)
		return
	}
	iv := capture.Interval{Begin: row.StartHostNS, End: row.EndHostNS, Valid: true}
	if j.repeat(p, kid, row, iv, true, line, j.host) {
		return
	}
	j.send(p, kid, row, iv)
	j.host.Used++
}

func (j *jsonlReader) send(p *jsonProgram, kid capture.KernelID, row *jsonRow, iv capture.Interval) {
	index := int64(-1)
	if row.CommandIndex != noOrdinal {
		index = int64(row.CommandIndex)
	}
	d := capture.Dispatch{Program: p.id, Queue: j.queue(row.Device, row.Queue), Kernel: kid, Instance: p.run(row.Submission),
		Index: index, Ordinal: -1, Device: iv}
	j.sink.Dispatch(j.c, &d)
}

func (j *jsonlReader) invalidRow(p *jsonProgram, kid capture.KernelID, row *jsonRow, why, where string, in *capture.InputCount) {
	j.loseRow(capture.InvalidEvent, p, kid, row, in, "invalid (zero or reversed ticks)",
		func() string { return ": " + why }, func() string { return where })
}

// loseRow loses row to p's gap of kind, counted in in under reason, with
// an item naming the row's event (then what) and its queue (then where).
// what and where are called only while they are needed.
func (j *jsonlReader) loseRow(kind capture.Kind, p *jsonProgram, kid capture.KernelID, row *jsonRow, in *capture.InputCount, reason string, what, where func() string) *capture.Gap {
	g := gapOf(j.c, kind, p.name)
	lose(in, g, reason, where)
	addItem(g, func() capture.Item {
		return capture.Item{
			What:    fmt.Sprintf("event %d (submission %d)%s", row.EventID, row.Submission, what()),
			Where:   fmt.Sprintf("device %s queue %s, %s", ordinal(row.Device), ordinal(row.Queue), where()),
			Program: p.name,
			Kernel:  j.c.Kernels[kid].Name,
		}
	})
	return g
}
