package collectives

import (
	"sync"

	"github.com/tallyprof/tally/capture"
)

// record is one collective dispatch of one input.
type record struct {
	begin, end int64
	timed      bool
	typ, group string // interned
	groupRanks string // interned
	seq        int64
	bytes      int64 // -1 unknown
	groupSize  int64
	rank       int64
}

// Sink keeps one input's collective dispatches; the other dispatches pass
// by. It is safe for one reader (one goroutine) at a time.
type Sink struct {
	recs   []record
	intern map[string]string
}

// Dispatch keeps d when it is a collective.
func (s *Sink) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	c := d.Collective
	if c == nil {
		return
	}
	b, ok := c.Bytes()
	if !ok {
		b = -1
	}
	typ := c.Type
	if typ == "" {
		typ = UnknownType // a name the reader could not normalise: shown, not blank
	}
	s.recs = append(s.recs, record{
		begin: d.Device.Begin, end: d.Device.End, timed: d.Device.Valid && d.Device.End >= d.Device.Begin,
		typ: s.str(typ), group: s.str(c.Group), groupRanks: s.str(c.GroupRanks),
		seq: c.Seq, bytes: b, groupSize: c.GroupSize, rank: c.Rank,
	})
}

// UnknownType is the type of a collective whose trace names no type tally
// knows (its kernel's own name is in the kernel tables).
const UnknownType = "unknown"

// str interns the strings every instance repeats.
func (s *Sink) str(v string) string {
	if v == "" {
		return ""
	}
	if s.intern == nil {
		s.intern = map[string]string{}
	}
	if w, ok := s.intern[v]; ok {
		return w
	}
	s.intern[v] = v
	return v
}

// Len is how many collective dispatches the sink kept.
func (s *Sink) Len() int { return len(s.recs) }

// Collector holds a Sink per input of a run (inputs.Options.Sink).
type Collector struct {
	mu    sync.Mutex
	sinks map[int]*Sink
}

// NewCollector returns an empty collector.
func NewCollector() *Collector { return &Collector{sinks: map[int]*Sink{}} }

// Sink returns input i's sink, made on first use; inputs are read in
// parallel, so it may be called from several goroutines.
func (c *Collector) Sink(i int) *Sink {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sinks[i]
	if s == nil {
		s = &Sink{}
		c.sinks[i] = s
	}
	return s
}

func (c *Collector) of(i int) *Sink {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sinks[i]
}
