package kineto

import (
	"strconv"
)

// topLevel is what the trace object holds besides traceEvents. Key order
// is not fixed (spec §1): baseTimeNanoseconds, distributedInfo and even
// schemaVersion may follow traceEvents, so nothing here is needed before
// the end of the file.
type topLevel struct {
	bareArray bool // a bare array of events (generic Chrome trace)
	sawEvents bool // traceEvents was found
	eventsNot bool // traceEvents was present but not an array

	keys       []topKey // in file order
	keysMore   int
	afterIndex int // keys[afterIndex:] came after traceEvents (-1: none yet)

	base    int64
	hasBase bool
	badBase string // baseTimeNanoseconds present but not an int64 integer

	devices     []deviceProp
	devicesSeen bool
	devicesMore int

	dist     distInfo
	hasDist  bool
	trailing int64 // offset of data after the document
	// hasTrailing: something follows the top-level value.
	hasTrailing bool
}

// topKey is one top-level key, with its value when it is a scalar.
type topKey struct {
	key, value string
}

type deviceProp struct {
	id      int64
	hasID   bool
	name    string
	hasName bool
}

type distInfo struct {
	rank, world      int64
	hasRank, hasWrld bool
	backend          string
}

const (
	maxTopKeys   = 200
	maxDevices   = 1024
	maxValueText = 160
)

// topObject reads the top-level object (buf[pos] == '{').
func (r *reader) topObject() {
	s := r.s
	r.top.afterIndex = -1
	if s.objectStart() {
		return
	}
	for {
		raw, esc := s.nextKey()
		var k string
		if esc {
			k = string(unescape(nil, raw))
		} else {
			k = string(raw)
		}
		value := ""
		switch k {
		case "traceEvents":
			if s.nonWS() == '[' {
				r.top.sawEvents = true
				r.eventsArray()
				r.top.afterIndex = len(r.top.keys) + 1
			} else {
				r.top.eventsNot = true
				s.skipValue()
			}
		case "baseTimeNanoseconds":
			value = r.scalar()
			if n, ok := parseInt([]byte(value)); ok {
				r.top.base, r.top.hasBase = n, true
			} else {
				r.top.badBase = value
			}
		case "deviceProperties":
			r.deviceProps()
		case "distributedInfo":
			r.distributed()
		case "INFO", "WARNING", "ERROR":
			r.logLines(k)
		case "tally":
			r.readTallyBlock() // tally export's own block (tallyblock.go)
		default:
			value = r.scalar()
		}
		if len(r.top.keys) < maxTopKeys {
			r.top.keys = append(r.top.keys, topKey{key: k, value: value})
		} else {
			r.top.keysMore++
		}
		if !s.objectNext() {
			return
		}
	}
}

// scalar returns a scalar value as text (strings unquoted, clipped) and
// skips containers, naming their kind.
func (r *reader) scalar() string {
	s := r.s
	switch c := s.nonWS(); {
	case c == '"':
		raw, esc := s.str()
		if esc {
			raw = unescape(nil, raw)
		}
		return clip(raw, maxValueText)
	case c == '-' || isDigit(c):
		return clip(s.checkedNum(), maxValueText)
	case c == '{':
		s.skipValue()
		return "(object)"
	case c == '[':
		s.skipValue()
		return "(array)"
	case c == 't':
		s.lit("true")
		return "true"
	case c == 'f':
		s.lit("false")
		return "false"
	case c == 'n':
		s.lit("null")
		return "null"
	}
	s.skipValue()
	return ""
}

// deviceProps reads deviceProperties: the id and name of each device.
func (r *reader) deviceProps() {
	s := r.s
	r.top.devicesSeen = true
	if s.nonWS() != '[' {
		s.skipValue()
		return
	}
	if s.arrayStart() {
		return
	}
	for {
		if s.nonWS() == '{' && len(r.top.devices) < maxDevices {
			var d deviceProp
			if !s.objectStart() {
				for {
					k, _ := s.nextKey()
					switch string(k) {
					case "id":
						v := r.scalar()
						d.id, d.hasID = parseInt([]byte(v))
					case "name":
						d.name, d.hasName = r.scalar(), true
					default:
						s.skipValue()
					}
					if !s.objectNext() {
						break
					}
				}
			}
			r.top.devices = append(r.top.devices, d)
		} else {
			s.skipValue()
			r.top.devicesMore++
		}
		if !s.arrayNext() {
			return
		}
	}
}

// distributed reads distributedInfo: rank, world size and backend.
func (r *reader) distributed() {
	s := r.s
	if s.nonWS() != '{' {
		s.skipValue()
		return
	}
	r.top.hasDist = true
	d := &r.top.dist
	if s.objectStart() {
		return
	}
	for {
		k, _ := s.nextKey()
		switch string(k) {
		case "rank":
			d.rank, d.hasRank = parseInt([]byte(r.scalar()))
		case "world_size":
			d.world, d.hasWrld = parseInt([]byte(r.scalar()))
		case "backend":
			d.backend = r.scalar()
		default:
			s.skipValue()
		}
		if !s.objectNext() {
			return
		}
	}
}

// logLines reads INFO/WARNING/ERROR: arrays of log lines (a single string
// is accepted too).
func (r *reader) logLines(level string) {
	s := r.s
	switch s.nonWS() {
	case '"':
		r.logs.line(level, r.scalarString())
	case '[':
		if s.arrayStart() {
			return
		}
		for {
			if s.nonWS() == '"' {
				r.logs.line(level, r.scalarString())
			} else {
				s.skipValue()
			}
			if !s.arrayNext() {
				return
			}
		}
	default:
		s.skipValue()
	}
}

// scalarString reads a whole string value (log lines are kept verbatim).
func (r *reader) scalarString() string {
	raw, esc := r.s.str()
	if esc {
		return string(unescape(nil, raw))
	}
	return string(raw)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
