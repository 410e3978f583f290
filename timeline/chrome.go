package timeline

import (
	"bufio"
	"strconv"
	"unicode/utf8"
)

// chrome streams Chrome Trace Event JSON in object form: traceEvents as they
// come, then otherData (verdict, counts) once the run is done. Durations are
// X events only (never B/E); times are µs with exactly three decimals
// relative to a stated base, so ns survive in a double.
type chrome struct {
	w     *bufio.Writer
	buf   []byte
	first bool
	pids  int32
	a     []arg
}

func newChrome(w *bufio.Writer) *chrome {
	c := &chrome{w: w, first: true}
	c.w.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	return c
}

func (c *chrome) args() []arg { return c.a[:0] }

func (c *chrome) open() {
	if c.first {
		c.buf = append(c.buf, '\n')
		c.first = false
	} else {
		c.buf = append(c.buf, ",\n"...)
	}
}

func (c *chrome) flush() {
	c.w.Write(c.buf)
	c.buf = c.buf[:0]
}

// meta writes an M event.
func (c *chrome) meta(name string, pid, tid int32, key string, s string, n int64, isInt bool) {
	c.open()
	c.buf = append(c.buf, `{"ph":"M","name":`...)
	c.buf = appendJSONString(c.buf, name)
	c.buf = append(c.buf, `,"pid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(pid), 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(tid), 10)
	c.buf = append(c.buf, `,"args":{`...)
	c.buf = appendJSONString(c.buf, key)
	c.buf = append(c.buf, ':')
	if isInt {
		c.buf = strconv.AppendInt(c.buf, n, 10)
	} else {
		c.buf = appendJSONString(c.buf, s)
	}
	c.buf = append(c.buf, "}}"...)
}

// track: a group is a process, a track a thread of its group's process.
func (c *chrome) track(t *track) {
	if t.group {
		c.pids++
		t.pid = c.pids
		c.meta("process_name", t.pid, 0, "name", t.name, 0, false)
		c.meta("process_sort_index", t.pid, 0, "sort_index", "", int64(t.order), true)
		if t.desc != "" {
			c.meta("process_labels", t.pid, 0, "labels", t.desc, 0, false)
		}
	} else {
		t.pid, t.tid = t.parent.pid, t.order
		c.meta("thread_name", t.pid, t.tid, "name", t.name, 0, false)
		c.meta("thread_sort_index", t.pid, t.tid, "sort_index", "", int64(t.order), true)
	}
	c.flush()
}

// appendMicros writes ns as µs with exactly three decimals.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

func (c *chrome) event(t *track, ph, name, cat string, ts, dur int64, args []arg) {
	c.open()
	c.buf = append(c.buf, `{"ph":"`...)
	c.buf = append(c.buf, ph...)
	c.buf = append(c.buf, `","name":`...)
	c.buf = appendJSONString(c.buf, name)
	c.buf = append(c.buf, `,"cat":`...)
	c.buf = appendJSONString(c.buf, cat)
	c.buf = append(c.buf, `,"ts":`...)
	c.buf = appendMicros(c.buf, ts)
	if ph == "X" {
		c.buf = append(c.buf, `,"dur":`...)
		c.buf = appendMicros(c.buf, dur)
	} else {
		c.buf = append(c.buf, `,"s":"t"`...)
	}
	c.buf = append(c.buf, `,"pid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(t.pid), 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(t.tid), 10)
	c.buf = append(c.buf, `,"args":`...)
	c.buf = appendArgs(c.buf, args)
	c.buf = append(c.buf, '}')
	c.flush()
}

func appendArgs(b []byte, args []arg) []byte {
	b = append(b, '{')
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.key)
		b = append(b, ':')
		switch {
		case a.isInt:
			b = strconv.AppendInt(b, a.i, 10)
		case a.isBool:
			b = strconv.AppendBool(b, a.b)
		default:
			b = appendJSONString(b, a.s)
		}
	}
	return append(b, '}')
}

func (c *chrome) slice(t *track, name, cat string, begin, end int64, args []arg, flowOut, flowIn uint64) {
	c.event(t, "X", name, cat, begin, end-begin, args)
	c.a = args[:0]
	// A collective's arrows join its ranks' parts; every other arrow is a
	// launch's.
	flow := "launch"
	if cat == "collective" {
		flow = "collective"
	}
	if flowOut != 0 {
		c.flow(t, "s", flowOut, begin, flow)
	}
	if flowIn != 0 {
		c.flow(t, "f", flowIn, begin, flow)
	}
}

// flow writes one end of an arrow (launch → dispatch, or between a
// collective's parts), bound to the slice that begins at ts on t (bp "e":
// the enclosing slice).
func (c *chrome) flow(t *track, ph string, id uint64, ts int64, name string) {
	c.open()
	c.buf = append(c.buf, `{"ph":"`...)
	c.buf = append(c.buf, ph...)
	c.buf = append(c.buf, `","name":"`...)
	c.buf = append(c.buf, name...)
	c.buf = append(c.buf, `","cat":"`...)
	c.buf = append(c.buf, name...)
	c.buf = append(c.buf, `","id":`...)
	c.buf = strconv.AppendUint(c.buf, id, 10)
	c.buf = append(c.buf, `,"ts":`...)
	c.buf = appendMicros(c.buf, ts)
	c.buf = append(c.buf, `,"pid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(t.pid), 10)
	c.buf = append(c.buf, `,"tid":`...)
	c.buf = strconv.AppendInt(c.buf, int64(t.tid), 10)
	c.buf = append(c.buf, `,"bp":"e"}`...)
	c.flush()
}

func (c *chrome) instant(t *track, name, cat string, ts int64, args []arg) {
	c.event(t, "i", name, cat, ts, 0, args)
	c.a = args[:0]
}

// finish closes traceEvents and writes otherData: the verdict, counts and
// the time base.
func (c *chrome) finish(meta []arg) {
	c.buf = append(c.buf, "\n],\"otherData\":"...)
	c.buf = appendArgs(c.buf, meta)
	c.buf = append(c.buf, "}\n"...)
	c.flush()
}

// appendJSONString quotes s as a JSON string; invalid UTF-8 becomes U+FFFD
// so the file is always valid UTF-8.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
