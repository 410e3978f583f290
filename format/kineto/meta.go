package kineto

import "sort"

// metaNames are the display names the M events give devices, streams and
// threads. Kineto may repeat them hundreds of thousands of times (MTIA
// writes 310,046 metadata events, 24 distinct); repeats are counted as
// skipped, never stored twice.
type metaNames struct {
	labels  map[int64]string // process_labels: "GPU 0", "MTIA 9", "CPU"
	pnames  map[int64]string // process_name
	threads map[qkey]string  // thread_name: "stream 7 ", "Stream 1 FW"
}

func (m *metaNames) init() {
	m.labels = make(map[int64]string)
	m.pnames = make(map[int64]string)
	m.threads = make(map[qkey]string)
}

// metadata reads an M event.
func (r *reader) metadata() {
	e := &r.ev
	if !e.hasArg || !e.pid.numeric() {
		r.skip(rsMeta)
		return
	}
	var m map[int64]string
	switch string(e.name) {
	case "process_labels":
		m = r.meta.labels
	case "process_name":
		m = r.meta.pnames
	case "thread_name":
		if !e.tid.numeric() {
			r.skip(rsMeta)
			return
		}
		k := qkey{dev: e.pid.n, stream: e.tid.n}
		if old, ok := r.meta.threads[k]; ok && old == string(e.argName) {
			r.skip(rsMeta)
			return
		}
		r.meta.threads[k] = string(e.argName)
		r.used(useMeta)
		return
	default:
		r.skip(rsMeta)
		return
	}
	if old, ok := m[e.pid.n]; ok && old == string(e.argName) {
		r.skip(rsMeta)
		return
	}
	m[e.pid.n] = string(e.argName)
	r.used(useMeta)
}

// stepInfo counts ProfilerStep#N host annotations.
type stepInfo struct {
	n        int64
	min, max int64
}

func (s *stepInfo) add(n int64) {
	if s.n == 0 || n < s.min {
		s.min = n
	}
	if s.n == 0 || n > s.max {
		s.max = n
	}
	s.n++
}

// windowInfo is the capture window: the "Trace" span(s) and the final
// "Record Window End" marker.
type windowInfo struct {
	start, end int64
	has        bool
	endMarker  bool
}

func (w *windowInfo) span(a, b int64) {
	if !w.has || a < w.start {
		w.start = a
	}
	if !w.has || b > w.end {
		w.end = b
	}
	w.has = true
}

// captureBrackets are stream-capture intervals per host thread: launches
// inside them are recorded, not executed, so no device event is expected.
type captureBrackets struct {
	open   map[uint32]int64
	closed map[uint32][][2]int64
}

func (c *captureBrackets) mark(thread uint32, ts int64, begin bool) {
	if c.open == nil {
		c.open = make(map[uint32]int64)
		c.closed = make(map[uint32][][2]int64)
	}
	if begin {
		c.open[thread] = ts
		return
	}
	if b, ok := c.open[thread]; ok {
		c.closed[thread] = append(c.closed[thread], [2]int64{b, ts})
		delete(c.open, thread)
	}
}

// inside reports whether a call at ts on thread lies in a capture bracket
// (one still open at the end of the file counts).
func (c *captureBrackets) inside(thread uint32, ts int64) bool {
	if b, ok := c.open[thread]; ok && ts >= b {
		return true
	}
	for _, iv := range c.closed[thread] {
		if ts >= iv[0] && ts <= iv[1] {
			return true
		}
	}
	return false
}

func sortedInt64Keys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
