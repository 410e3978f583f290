package kineto

import (
	"strings"
	"unicode/utf8"
)

// Interned names and queues. Each distinct name is converted to a string
// once; lookups use m[string(b)], which Go performs without allocating.

// nameClass flags a name that is not a real name (spec §12).
type nameClass uint8

const (
	nameOK      nameClass = iota
	nameEmpty             // ""
	nameUnknown           // the writer's "unknown" for unprintable names
	nameBadUTF8           // not valid UTF-8: shown with U+FFFD in JSON
	nameInvalid           // runtime call "INVALID": the writer could not name it
)

func classifyName(s string) nameClass {
	switch {
	case s == "":
		return nameEmpty
	case s == "unknown":
		return nameUnknown
	case s == "INVALID":
		return nameInvalid
	case !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError):
		return nameBadUTF8
	}
	return nameOK
}

// kname is one device-work name within one device category.
type kname struct {
	name  string
	cat   catID
	class nameClass
}

// callInfo is one runtime/driver call name.
type callInfo struct {
	name    string
	kind    callKind
	class   nameClass
	count   int64 // calls read
	linked  int64 // device events linked to calls of this name
	noGPU   int64 // launch calls without device event
	inCapt  int64 // ... of which inside a stream capture
	firstAt int64 // input offset of the first call
}

// qkey identifies a queue: (device, stream) as the event's pid and tid say.
type qkey struct{ dev, stream int64 }

// queueInfo is one device queue.
type queueInfo struct {
	key        qkey
	devKnown   bool
	dispatches int64
	ns         int64
}

// threadKey identifies a host thread, for stream-capture brackets.
type threadKey struct{ pid, tid int64 }

// internKname returns the id of (cat, name).
func (r *reader) internKname(cat catID, name []byte) uint32 {
	r.keyBuf = append(append(r.keyBuf[:0], byte(cat)), name...)
	if k, ok := r.knameIdx[string(r.keyBuf)]; ok {
		return k
	}
	s := string(name)
	k := uint32(len(r.knames))
	r.knames = append(r.knames, kname{name: s, cat: cat, class: classifyName(s)})
	r.knameIdx[string(r.keyBuf)] = k
	return k
}

// internCall returns the id of a runtime call name.
func (r *reader) internCall(name []byte, off int64) uint32 {
	if k, ok := r.callIdx[string(name)]; ok {
		return k
	}
	s := string(name)
	k := uint32(len(r.calls))
	r.calls = append(r.calls, callInfo{name: s, kind: classifyCall(s), class: classifyName(s), firstAt: off})
	r.callIdx[s] = k
	return k
}

// queueOf returns the queue of a device event: pid is the device, tid the
// stream ("stream 7" in 2021 files); args.device/args.stream stand in when
// pid/tid are not numbers.
func (r *reader) queueOf(e *event) uint32 {
	k, known := deviceKey(e)
	return intern(r.queueIdx, &r.queues, k, queueInfo{key: k, devKnown: known})
}

// deviceKey normalises pid/tid of a device-side event.
func deviceKey(e *event) (qkey, bool) {
	k := qkey{dev: -1, stream: -1}
	known := true
	switch {
	case e.pid.numeric():
		k.dev = e.pid.n
	case e.hasDevice:
		k.dev = e.device
	default:
		known = false
	}
	switch {
	case e.tid.numeric():
		k.stream = e.tid.n
	case e.hasStream:
		k.stream = e.stream
	}
	return k, known
}

// internThread returns the id of a host thread.
func (r *reader) internThread(e *event) uint32 {
	k := threadKey{pid: e.pid.n, tid: e.tid.n}
	return intern(r.threadIdx, &r.threads, k, k)
}

// stripStep splits a trailing step number: "ProfilerStep#550" →
// ("ProfilerStep", 550, true). Other uses of '#' ("Optimizer.step#SGD.step",
// "## forward ##") are left alone.
func stripStep(name string) (string, int64, bool) {
	i := strings.LastIndexByte(name, '#')
	if i <= 0 || i == len(name)-1 || !allDigits(name[i+1:]) || len(name)-i > 19 {
		return name, 0, false
	}
	n, ok := parseInt([]byte(name[i+1:]))
	if !ok {
		return name, 0, false
	}
	return name[:i], n, true
}
