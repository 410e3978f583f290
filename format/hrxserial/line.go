package hrxserial

import (
	"bytes"
	"math"

	"github.com/tallyprof/tally/internal/decimal"
)

// The parser works on byte slices of the read buffer and never allocates:
// a kept trace has ~7 million lines per GB.

var (
	tracePrefix  = []byte("hrx debug serial: ")
	syncFailed   = []byte("HRX debug serial sync failed phase=")
	invalidProg  = []byte("invalid HRX prepared command program")
	headerPrefix = []byte("# tally kept trace v")
	headerV1     = []byte("# tally kept trace v1")
	phaseKey     = []byte(" phase=")
	preBegin     = []byte("sync-begin phase=command-pre-dispatch")
)

type event uint8

const (
	evBegin event = iota + 1
	evEnd
	evFailed
	evSyncBegin
	evSyncEnd
)

type phase uint8

const (
	phUnknown phase = iota
	phProgram
	phList
	phPre
	phDispatch
	phPost
	phUploadPre
	phUploadPost
	phUploadBuffer // host-staging-upload-buffer-pre/post
	phDownloadPre
	phDownloadPost
	phProgramSync // rebind, arena, bind, constants, counters (program detail)
)

// stamp splits a leading "<digits> " timestamp off a line: 1-20 digits and one
// space. ok is false for an untimed line; overflow reports a stamp past the
// int64 ns every time of the model is: one of 2^63 or more would wrap to a
// negative time (an unfinished dispatch's launch drawn before the epoch).
func stamp(b []byte) (t uint64, rest []byte, ok, overflow bool) {
	t, n, over := decimal.Prefix(b)
	if n == 0 || n > decimal.MaxDigits || n >= len(b) || b[n] != ' ' {
		return 0, b, false, false
	}
	if over || t > math.MaxInt64 {
		return 0, b, false, true
	}
	return t, b[n+1:], true, false
}

// parseEvent reads "<event> phase=<phase>[ <detail>]" (after the trace
// prefix). ok is false when the line does not match the grammar.
func parseEvent(b []byte) (ev event, ph phase, phaseName, detail []byte, ok bool) {
	// A command's first line, one in six: no search, no phase lookup.
	if bytes.HasPrefix(b, preBegin) {
		switch rest := b[len(preBegin):]; {
		case len(rest) == 0:
			return evSyncBegin, phPre, phasePre, nil, true
		case rest[0] == ' ' && len(rest) > 1:
			return evSyncBegin, phPre, phasePre, rest[1:], true
		}
	}
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return 0, 0, nil, nil, false
	}
	switch string(b[:sp]) {
	case "begin":
		ev = evBegin
	case "end":
		ev = evEnd
	case "failed":
		ev = evFailed
	case "sync-begin":
		ev = evSyncBegin
	case "sync-end":
		ev = evSyncEnd
	default:
		return 0, 0, nil, nil, false
	}
	b = b[sp:]
	if !bytes.HasPrefix(b, phaseKey) {
		return 0, 0, nil, nil, false
	}
	b = b[len(phaseKey):]
	end := bytes.IndexByte(b, ' ')
	if end < 0 {
		phaseName = b
	} else {
		phaseName = b[:end]
		detail = b[end+1:]
		if len(detail) == 0 { // "phase=x " with a trailing space is not in the grammar
			return 0, 0, nil, nil, false
		}
	}
	if len(phaseName) == 0 {
		return 0, 0, nil, nil, false
	}
	for _, c := range phaseName {
		if (c < 'a' || c > 'z') && c != '-' {
			return 0, 0, nil, nil, false
		}
	}
	return ev, phaseOf(phaseName), phaseName, detail, true
}

func phaseOf(name []byte) phase {
	switch string(name) {
	case "command-pre-dispatch":
		return phPre
	case "command-dispatch":
		return phDispatch
	case "command-post-dispatch":
		return phPost
	case "command-program":
		return phProgram
	case "command-list":
		return phList
	case "host-staging-upload-pre":
		return phUploadPre
	case "host-staging-upload-post":
		return phUploadPost
	case "host-staging-upload-buffer-pre", "host-staging-upload-buffer-post":
		return phUploadBuffer
	case "host-staging-download-pre":
		return phDownloadPre
	case "host-staging-download-post":
		return phDownloadPost
	case "host-staging-rebind-pre", "host-staging-rebind-post",
		"transient-arena-acquire-pre", "transient-arena-acquire-post",
		"transient-bind-pre", "transient-bind-post",
		"constant-initialization-pre", "constant-initialization-post",
		"completion-counter-initialization-pre", "completion-counter-initialization-post":
		return phProgramSync
	}
	return phUnknown
}

// Detail keys, as bits of detail.has.
const (
	hasMain = 1 << iota
	hasInit
	hasArena
	hasList
	hasIndex
	hasListCommands
	hasOrdinal
	hasKind
	hasKernelID
	hasBindings
	hasValue
	hasLength
)

type listName uint8

const (
	listNone listName = iota
	listInit
	listMain
)

func (l listName) String() string {
	switch l {
	case listInit:
		return "init"
	case listMain:
		return "main"
	}
	return "?"
}

// detail holds no pointer, so that copying one (a command keeps its own)
// is a plain copy: the kind is where it lies in the detail's text.
type detail struct {
	has                                    uint16
	main, init, arena                      uint64
	list                                   listName
	index, listCommands, ordinal, bindings uint64
	kernelID                               uint64
	kernel                                 bool  // kind is Kernel (case-insensitive)
	kindAt, kindLen                        int32 // kind's offset and length in the detail
}

// kindIn is d's kind in det, the text d was parsed from (or a copy).
func (d *detail) kindIn(det []byte) []byte { return det[d.kindAt : d.kindAt+d.kindLen] }

// parseDetail reads "key=value" pairs separated by single spaces. It accepts
// the keys of every detail form in any order; unknown keys fail the line.
// Numbers are read as the key's value is found: one pass over the detail.
func parseDetail(b []byte, d *detail) bool {
	return commandDetail(b, d) || detailByKey(b, d)
}

// detailByKey is parseDetail for keys in any order.
func detailByKey(b []byte, d *detail) bool {
	whole := len(b)
	*d = detail{}
	for len(b) > 0 {
		eq := 0
		for eq < len(b) && b[eq] != '=' {
			eq++
		}
		if eq == 0 || eq == len(b) {
			return false
		}
		key := b[:eq]
		b = b[eq+1:]
		var bit uint16
		var dst *uint64
		switch string(key) {
		case "index":
			bit, dst = hasIndex, &d.index
		case "list_commands":
			bit, dst = hasListCommands, &d.listCommands
		case "ordinal":
			bit, dst = hasOrdinal, &d.ordinal
		case "kernel_id":
			bit, dst = hasKernelID, &d.kernelID
		case "bindings":
			bit, dst = hasBindings, &d.bindings
		case "main_commands":
			bit, dst = hasMain, &d.main
		case "init_commands":
			bit, dst = hasInit, &d.init
		case "transient_arena":
			bit, dst = hasArena, &d.arena
		case "list", "kind", "length", "value":
		default:
			return false
		}
		if dst != nil {
			// A number: 1-20 digits up to the next blank or the end.
			v, n, over := decimal.Prefix(b)
			if n == 0 || n > decimal.MaxDigits || over || (n < len(b) && b[n] != ' ') || d.has&bit != 0 {
				return false
			}
			*dst = v
			d.has |= bit
			if b = b[n:]; len(b) > 0 {
				if b = b[1:]; len(b) == 0 {
					return false // a trailing blank
				}
			}
			continue
		}
		sp := bytes.IndexByte(b, ' ')
		var val []byte
		if sp < 0 {
			val, b = b, nil
		} else {
			val, b = b[:sp], b[sp+1:]
			if len(b) == 0 {
				return false
			}
		}
		if len(val) == 0 {
			return false
		}
		switch string(key) {
		case "list":
			bit = hasList
			switch string(val) {
			case "init":
				d.list = listInit
			case "main":
				d.list = listMain
			default:
				return false
			}
		case "kind":
			bit = hasKind
			d.kindAt, d.kindLen = int32(whole-len(b)-len(val)-1), int32(len(val))
			if len(b) == 0 {
				d.kindAt++ // no blank after the last value
			}
			d.kernel = equalFold(val, "kernel")
		case "length":
			bit = hasLength
			if !isUint(val) {
				return false
			}
		case "value":
			bit = hasValue
			v := val
			if v[0] == '-' {
				v = v[1:]
			}
			if !isUint(v) {
				return false
			}
		}
		if d.has&bit != 0 {
			return false // a key twice
		}
		d.has |= bit
	}
	return true
}

// commandDetail is parseDetail for a command's detail in the order every
// writer puts it: list, index, list_commands, ordinal, kind, then kernel_id
// and bindings. It returns false for anything else, which parseDetail then
// reads key by key.
func commandDetail(b []byte, d *detail) bool {
	*d = detail{}
	whole := len(b)
	switch {
	case bytes.HasPrefix(b, listMain_):
		d.list = listMain
	case bytes.HasPrefix(b, listInit_):
		d.list = listInit
	default:
		return false
	}
	b = b[len(listMain_):]
	var ok bool
	if d.index, b, ok = number(b, keyIndex); !ok {
		return false
	}
	if d.listCommands, b, ok = number(b, keyListCommands); !ok {
		return false
	}
	if d.ordinal, b, ok = number(b, keyOrdinal); !ok {
		return false
	}
	if !bytes.HasPrefix(b, keyKind) {
		return false
	}
	b = b[len(keyKind):]
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		sp = len(b)
	}
	if sp == 0 {
		return false
	}
	d.kindAt, d.kindLen = int32(whole-len(b)), int32(sp)
	d.kernel = equalFold(b[:sp], "kernel")
	d.has = formCommand
	if b = b[sp:]; len(b) == 0 {
		return true
	}
	b = b[1:]
	if d.kernelID, b, ok = number(b, keyKernelID); !ok {
		return false
	}
	if d.bindings, b, ok = number(b, keyBindings); !ok || len(b) != 0 {
		return false
	}
	d.has |= hasKernelID | hasBindings
	return true
}

var (
	listMain_       = []byte("list=main ")
	listInit_       = []byte("list=init ")
	keyIndex        = []byte("index=")
	keyListCommands = []byte("list_commands=")
	keyOrdinal      = []byte("ordinal=")
	keyKind         = []byte("kind=")
	keyKernelID     = []byte("kernel_id=")
	keyBindings     = []byte("bindings=")
)

// number reads key and its value, 1-20 digits, at the start of b, and
// the blank after it when more follows; ok is false when b does not start
// so or ends in a blank.
func number(b, key []byte) (v uint64, rest []byte, ok bool) {
	if !bytes.HasPrefix(b, key) {
		return 0, b, false
	}
	b = b[len(key):]
	v, n, over := decimal.Prefix(b)
	if n == 0 || n > decimal.MaxDigits || over {
		return 0, b, false
	}
	if n == len(b) {
		return v, nil, true
	}
	if b[n] != ' ' || n+1 == len(b) {
		return 0, b, false
	}
	return v, b[n+1:], true
}

func isUint(b []byte) bool {
	_, ok := decimal.Uint(b)
	return ok
}

// Forms a phase's detail must have, by bits.
const (
	formProgram  = hasMain | hasInit | hasArena
	formPrepared = hasMain | hasInit
	formList     = hasList | hasListCommands | hasMain
	formCommand  = hasList | hasIndex | hasListCommands | hasOrdinal | hasKind
	formStaging  = hasValue | hasLength
)

// wellFormed checks that a detail has exactly the keys its phase's form
// requires. Command details of kind Kernel also carry kernel_id and bindings.
func wellFormed(ph phase, d *detail, empty bool) bool {
	switch ph {
	case phProgram, phProgramSync:
		return !empty && d.has == formProgram
	case phUploadPre, phUploadPost, phDownloadPre, phDownloadPost:
		return !empty && d.has == formPrepared
	case phUploadBuffer:
		return !empty && d.has == formStaging
	case phList:
		return !empty && d.has == formList
	case phPre, phPost:
		if empty {
			return true
		}
		fallthrough
	case phDispatch:
		if empty {
			return false
		}
		if d.kernel {
			return d.has == formCommand|hasKernelID|hasBindings
		}
		return d.has&^(hasKernelID|hasBindings) == formCommand
	}
	return true // unknown phases: any detail
}

// equalFold compares ASCII case-insensitively without allocating: one
// ggml-hrx variant writes kinds as "Kernel", another as "kernel".
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}
