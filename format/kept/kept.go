// Package kept holds the grammar of tally's kept traces (docs/kept-trace.md)
// that the recorder (package record) writes and the line readers
// (hrx-serial, npu-prof) read: the header, and the end record that says how
// the recorded command ended. A reader follows a file's end with an End and
// turns it into gaps at the end of its read (End.Account).
package kept

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

const (
	// Header starts every kept trace of version 1; writers append
	// " key=value" pairs, readers ignore unknown keys.
	Header = "# tally kept trace v1 clock=monotonic unit=ns"
	// EndDue is the header key that announces an end record: a file whose
	// header has it and whose last record is not the end record was cut.
	EndDue = "end=1"
	// EndPrefix starts the end record, the last line of a kept trace.
	EndPrefix = "# tally kept trace end"
)

// Ending is how the recorded command ended, as the end record states it.
type Ending struct {
	// Exit is the command's exit status; -1 when a signal killed it.
	Exit int
	// Signal names the signal that killed the command ("SIGINT"), or is
	// "" when it exited.
	Signal string
	// Forwarded are the signals tally record passed on to the command
	// while it ran (a Ctrl-C, a kill of tally), in order.
	Forwarded []string
	// At is the monotonic ns when the command ended (the stamps' clock);
	// HasAt is false when the record does not say.
	At    uint64
	HasAt bool
	// Unread names the signal on which tally record stopped reading the
	// output after the command had exited, while a process it started
	// still held the output open: what that process wrote after is not
	// kept (unread=SIG; "" when the output was read to its end).
	Unread string
}

// Record is the end record line, without its '\n':
//
//	# tally kept trace end exit=0 at=912412105945
//	# tally kept trace end signal=SIGINT forwarded=SIGINT at=912412105945
func (e Ending) Record() string {
	var b strings.Builder
	b.WriteString(EndPrefix)
	if e.Signal != "" {
		b.WriteString(" signal=" + e.Signal)
	} else {
		b.WriteString(" exit=" + strconv.Itoa(e.Exit))
	}
	if len(e.Forwarded) > 0 {
		b.WriteString(" forwarded=" + strings.Join(e.Forwarded, ","))
	}
	if e.HasAt {
		b.WriteString(" at=" + strconv.FormatUint(e.At, 10))
	}
	if e.Unread != "" {
		b.WriteString(" unread=" + e.Unread)
	}
	return b.String()
}

// IsEnd reports whether a line is an end record (well formed or not).
func IsEnd(line []byte) bool {
	return bytes.HasPrefix(line, []byte(EndPrefix)) && (len(line) == len(EndPrefix) || line[len(EndPrefix)] == ' ')
}

// ParseEnd reads an end record. It needs exactly one of exit= and signal=;
// unknown keys are ignored, so later writers can add some.
func ParseEnd(line []byte) (Ending, error) {
	e := Ending{Exit: -1}
	if !IsEnd(line) {
		return e, fmt.Errorf("not an end record")
	}
	haveExit := false
	for _, f := range strings.Fields(string(line[len(EndPrefix):])) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return e, fmt.Errorf("%q is not key=value", f)
		}
		switch k {
		case "exit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 255 || haveExit {
				return e, fmt.Errorf("exit=%s is not one exit status 0-255", v)
			}
			e.Exit, haveExit = n, true
		case "signal":
			if !signalName(v) || e.Signal != "" {
				return e, fmt.Errorf("signal=%s is not one signal name", v)
			}
			e.Signal = v
		case "forwarded":
			for _, s := range strings.Split(v, ",") {
				if !signalName(s) {
					return e, fmt.Errorf("forwarded=%s is not a list of signal names", v)
				}
				e.Forwarded = append(e.Forwarded, s)
			}
		case "unread":
			if !signalName(v) || e.Unread != "" {
				return e, fmt.Errorf("unread=%s is not one signal name", v)
			}
			e.Unread = v
		case "at":
			t, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return e, fmt.Errorf("at=%s is not a time in ns", v)
			}
			e.At, e.HasAt = t, true
		}
	}
	if haveExit == (e.Signal != "") {
		return e, fmt.Errorf("it must say exit= or signal=, not both or neither")
	}
	if haveExit {
		e.Signal = ""
	} else {
		e.Exit = -1
	}
	return e, nil
}

// signalName accepts SIG followed by capitals and digits, or a number (a
// signal without a name).
func signalName(s string) bool {
	if _, err := strconv.ParseUint(s, 10, 8); err == nil {
		return true
	}
	if len(s) < 4 || s[:3] != "SIG" || len(s) > 16 {
		return false
	}
	for _, c := range s[3:] {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// Clean is true when the command exited with status 0.
func (e Ending) Clean() bool { return e.Signal == "" && e.Exit == 0 }

// stopSignals are the signals that stop a program from outside (a Ctrl-C,
// a kill, a closed terminal), as opposed to a crash (SIGSEGV, SIGABRT: the
// ROCm runtime aborts the process on a fatal queue error).
var stopSignals = map[string]int{"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGKILL": 9, "SIGTERM": 15}

// Stopped names the signal that stopped the command from outside, or is ""
// when it was not stopped: killed by a stop signal, ended with any non-zero
// status after tally record forwarded a signal to it (a program that traps
// SIGINT and exits 130), or exited with 128+N for a stop signal N (a shell
// whose child was stopped).
func (e Ending) Stopped() string {
	if e.Clean() {
		return ""
	}
	if _, ok := stopSignals[e.Signal]; ok {
		return e.Signal
	}
	if e.Signal == "" && len(e.Forwarded) > 0 {
		return e.Forwarded[len(e.Forwarded)-1]
	}
	for name, n := range stopSignals {
		if e.Signal == "" && e.Exit == 128+n {
			return name
		}
	}
	return ""
}

// String says how the command ended, e.g. "killed by SIGINT (forwarded
// by tally record)" or "exit status 3".
func (e Ending) String() string {
	s := "exit status " + strconv.Itoa(e.Exit)
	if e.Signal != "" {
		s = "killed by " + e.Signal
	}
	if len(e.Forwarded) > 0 {
		s += " after tally record forwarded " + strings.Join(e.Forwarded, ", ") + " to it"
	} else if st := e.Stopped(); st != "" && e.Signal == "" {
		s += " (128+" + st + ": the status a shell gives a command " + st + " stopped)"
	}
	if e.Unread != "" {
		s += "; tally record then stopped reading its output on " + e.Unread + ": a process it started held the output open, and what that process wrote after is not kept"
	}
	return s
}
