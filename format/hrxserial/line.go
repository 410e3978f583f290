package hrxserial

import "bytes"

// The parser works on byte slices of the read buffer and never allocates:
// a kept trace has ~7 million lines per GB.

var (
	tracePrefix  = []byte("hrx debug serial: ")
	syncFailed   = []byte("HRX debug serial sync failed phase=")
	invalidProg  = []byte("invalid HRX prepared command program")
	headerPrefix = []byte("# tally kept trace v")
	headerV1     = []byte("# tally kept trace v1")
	phaseKey     = []byte(" phase=")
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
// space. ok is false for an untimed line; overflow reports a stamp too large
// for 64 bits.
func stamp(b []byte) (t uint64, rest []byte, ok, overflow bool) {
	// One pass; the overflow check is only needed past 19 digits.
	n := 0
	for n < len(b) {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		t = t*10 + uint64(c)
		n++
	}
	if n == 0 || n > 20 || n >= len(b) || b[n] != ' ' {
		return 0, b, false, false
	}
	if n == 20 {
		v, okv := parseUint(b[:n])
		if !okv {
			return 0, b, false, true
		}
		t = v
	}
	return t, b[n+1:], true, false
}

// parseEvent reads "<event> phase=<phase>[ <detail>]" (after the trace
// prefix). ok is false when the line does not match the grammar.
func parseEvent(b []byte) (ev event, ph phase, phaseName, detail []byte, ok bool) {
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

type detail struct {
	has                                    uint16
	main, init, arena                      uint64
	list                                   listName
	index, listCommands, ordinal, bindings uint64
	kernelID                               uint64
	kernel                                 bool   // kind is Kernel (case-insensitive)
	kind                                   []byte // aliases the line
}

// parseDetail reads "key=value" pairs separated by single spaces. It accepts
// the keys of every detail form in any order; unknown keys fail the line.
func parseDetail(b []byte, d *detail) bool {
	*d = detail{}
	for len(b) > 0 {
		eq := bytes.IndexByte(b, '=')
		if eq <= 0 {
			return false
		}
		key := b[:eq]
		b = b[eq+1:]
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
		var bit uint16
		var dst *uint64
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
			d.kind = val
			d.kernel = equalFold(val, "kernel")
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
		case "length":
			bit, dst = hasLength, nil
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
		default:
			return false
		}
		if d.has&bit != 0 {
			return false // a key twice
		}
		d.has |= bit
		if dst != nil {
			v, ok := parseUint(val)
			if !ok {
				return false
			}
			*dst = v
		}
	}
	return true
}

func isUint(b []byte) bool {
	_, ok := parseUint(b)
	return ok
}

func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
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
