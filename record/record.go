// Package record runs a command and keeps its trace: every stderr line, and
// every stdout line a registered line reader claims (format.Format.Claims:
// hrx debug serial lines, NPU engine [prof]/[L] lines), stamped with the
// monotonic clock when it arrives, in tally's kept-trace format
// (docs/kept-trace.md), ending with an end record that says how the command
// ended (so a reader tells a cut file, and a stopped run, from a whole one).
// Other output passes through unchanged.
package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	keptfmt "github.com/tallyprof/tally/format/kept"
	"golang.org/x/sys/unix"
)

// Options says what to run and where its trace goes.
type Options struct {
	Command []string
	// Kept is the kept-trace path.
	Kept string
	// Stdout and Stderr receive the command's non-trace output.
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	// FlushEvery bounds how long a stamped line may sit in memory
	// (default 100 ms): a kill of tally loses at most that much.
	FlushEvery time.Duration
	// Signals are forwarded to the command while it runs (default SIGINT
	// and SIGTERM).
	Signals []os.Signal
}

// Result is how the command ended and what was kept.
type Result struct {
	// ExitCode is the command's exit status, or 128+N if signal N killed it.
	ExitCode int
	Signal   syscall.Signal // the signal that killed the command, or 0
	// Lines counts lines written to the kept trace (header and end record
	// included); TraceLines those that a registered reader claims.
	Lines, TraceLines int64
	// Claimed counts the claimed lines per format name.
	Claimed map[string]int64
	// CutLines are the kept-trace line numbers of claimed lines that
	// arrived without their '\n' (the stream closed inside them: the
	// command was killed mid-write). They are kept as they arrived, so a
	// number at their end may be cut; CutGap reports them.
	CutLines []int64
	// Passed counts lines passed through to Stdout/Stderr.
	Passed int64
	// PassErr is the first failed pass-through write; lines after it were
	// not shown (the kept trace is not affected).
	PassErr error
	// Unshown counts the lines not shown after PassErr.
	Unshown int64
	// Unread is the signal on which tally record stopped reading the
	// command's output after the command had exited, while a process it
	// started still held that output open (0: read to its end).
	Unread syscall.Signal
	// Abandoned is true when the kept trace's write had failed, the
	// command had exited, and a process it started still held its output
	// open: tally record stopped reading it (abandonHeld) rather than wait
	// for that process, since nothing more could be kept.
	Abandoned bool
}

var newline = []byte{'\n'}

// ErrWrite wraps a failed write of the kept trace.
var ErrWrite = errors.New("kept trace write failed")

// Run runs the command to its end. It returns an error (and still a Result
// when the command ran) if the command could not start or the kept trace
// could not be written — in which case the command was stopped, since what
// it would print next could not be kept.
func Run(opt Options) (*Result, error) {
	if len(opt.Command) == 0 {
		return nil, errors.New("no command to run: tally record [flags] -- CMD [ARGS]")
	}
	if opt.FlushEvery <= 0 {
		opt.FlushEvery = 100 * time.Millisecond
	}
	if opt.Signals == nil {
		opt.Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	}
	cmd := exec.Command(opt.Command[0], opt.Command[1:]...)
	cmd.Stdin = opt.Stdin
	// Pipes of our own, not StdoutPipe: the command can then be waited for
	// while its output is still read (held.go).
	p, err := newPipes()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = p.outW, p.errW
	outPipe, errPipe := p.outR, p.errR

	// The signals are caught before the kept trace is created: one that
	// lands in between is queued and forwarded to the command once it has
	// started (it then ends, and the end record says so), rather than
	// killing tally and leaving an empty kept trace.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, opt.Signals...)
	defer signal.Stop(sigs)

	var stopOnce sync.Once
	writeFailed := make(chan struct{}) // closed on the kept trace's first failed write
	stopChild := func(error) {
		stopOnce.Do(func() {
			close(writeFailed)
			if cmd.Process != nil {
				cmd.Process.Signal(syscall.SIGTERM)
				time.AfterFunc(3*time.Second, func() { cmd.Process.Kill() })
			}
		})
	}
	kept, err := createKept(opt.Kept, opt.FlushEvery, stopChild)
	if err != nil {
		p.closeAll()
		return nil, err
	}

	if err := cmd.Start(); err != nil {
		p.closeAll()
		kept.close()
		os.Remove(opt.Kept)
		return nil, fmt.Errorf("cannot start %s: %w", opt.Command[0], err)
	}
	p.started()
	exited := make(chan struct{}) // closed when the command has exited
	var waitErr error
	var ended uint64
	go func() {
		waitErr = cmd.Wait()
		ended = monotonic()
		close(exited)
	}()
	// The header reaches the file now, not at the first tick: a kill of
	// tally in the first 100 ms then leaves a trace that reads as cut,
	// not an empty file.
	kept.header(fmt.Sprintf(" pid=%d cmd=%s", cmd.Process.Pid, strconv.Quote(strings.Join(opt.Command, " "))))
	kept.flushNow()

	forwardDone := make(chan struct{})
	forwarded := make(chan []string, 1) // the signals passed on, once the forwarder stops
	var unread syscall.Signal           // set before the pipes close, read after the pumps end
	go func() {
		var names []string
		for {
			select {
			case s := <-sigs:
				select {
				case <-exited:
					// Nothing to forward to: the command has exited, and a
					// process it started holds its output open. Stop
					// reading, rather than ignore the signal until that
					// process ends (it may never).
					if unread == 0 {
						unread, _ = s.(syscall.Signal)
						if unread == 0 {
							unread = syscall.SIGTERM
						}
						p.stopReading()
					}
					continue
				default:
				}
				cmd.Process.Signal(s)
				if len(names) < 8 {
					names = append(names, signalName(s))
				}
			case <-forwardDone:
				forwarded <- names
				return
			}
		}
	}()

	res := &Result{Claimed: map[string]int64{}}
	var mu sync.Mutex // guards res counters and the pass-through writers
	// The claimers are taken once: the registry locks on every call.
	claimers := format.Claimers()
	var wg sync.WaitGroup
	pump := func(r io.Reader, pass io.Writer, keepAll bool) {
		defer wg.Done()
		readLines(r, func(line []byte, cut bool) {
			t := monotonic()
			claim := format.Claim(claimers, line)
			isTrace := claim != ""
			var at int64
			if isTrace || keepAll {
				at = kept.line(t, line)
			}
			mu.Lock()
			defer mu.Unlock()
			if isTrace {
				res.TraceLines++
				res.Claimed[claim]++
				if cut {
					res.CutLines = append(res.CutLines, at)
				}
				return
			}
			if res.PassErr != nil {
				res.Unshown++
				return
			}
			res.Passed++
			_, err := pass.Write(line)
			if err == nil {
				_, err = pass.Write(newline)
			}
			res.PassErr = err
		})
	}
	wg.Add(2)
	go pump(outPipe, opt.Stdout, false)
	go pump(errPipe, opt.Stderr, true) // the trace format keeps every stderr line: fault messages sit between trace lines
	pumped := make(chan struct{})
	go func() { wg.Wait(); close(pumped) }()
	abandoned := make(chan bool, 1)
	go func() { abandoned <- abandonHeld(p, writeFailed, exited, pumped) }()
	<-pumped
	res.Abandoned = <-abandoned
	<-exited
	close(forwardDone)
	end := keptfmt.Ending{Exit: cmd.ProcessState.ExitCode(), Forwarded: <-forwarded, At: ended, HasAt: true}
	p.closeAll()
	res.ExitCode = end.Exit
	if unread != 0 {
		res.Unread = unread
		end.Unread = signalName(unread)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(ws.Signal())
		end.Signal = signalName(ws.Signal())
	}
	// The end record says how the command ended; a file without it was cut.
	kept.end(end)
	werr := kept.close()
	res.Lines = kept.lines
	if werr != nil {
		return res, fmt.Errorf("%w: %v", ErrWrite, werr)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, waitErr
	}
	return res, nil
}

// SignalName is a signal's name as the end record writes it ("SIGINT"),
// or its number when it has no name.
func SignalName(s os.Signal) string { return signalName(s) }

// signalName is SignalName.
func signalName(s os.Signal) string {
	sig, ok := s.(syscall.Signal)
	if !ok {
		return s.String()
	}
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return strconv.Itoa(int(sig))
}

// CutGap adds a truncated_input gap to a when claimed lines arrived cut
// (CutLines): the reader took them as whole lines, so the report must not
// read complete. kept is the kept trace's path, for the items.
func (r *Result) CutGap(a *capture.Accounting, kept string) {
	if len(r.CutLines) == 0 {
		return
	}
	// A gap of its own: the reader may have a truncated_input gap already.
	g := &capture.Gap{Kind: capture.TruncatedInput,
		Summary: "the command's output closed inside a trace line (no final newline: it was killed or crashed mid-write); the line is kept as it arrived and was read as a whole line, so a number at its end may be cut"}
	for _, n := range r.CutLines {
		g.Add(capture.Item{What: "trace line without its newline", Where: fmt.Sprintf("%s:%d", kept, n)})
	}
	a.Gaps = append(a.Gaps, g)
}

// Format is the reader whose lines the run printed most, or def when no
// registered reader claimed a line.
func (r *Result) Format(def string) string {
	best, n := def, int64(0)
	for name, c := range r.Claimed {
		if c > n || c == n && name < best {
			best, n = name, c
		}
	}
	return best
}

// maxLine bounds the memory one line may take: a longer line is delivered in
// pieces of this size.
const maxLine = 16 << 20

// readLines calls fn for every line of r as it arrives, without its '\n'. A
// last line without '\n' is delivered with what arrived, and cut set.
func readLines(r io.Reader, fn func(line []byte, cut bool)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			if len(long) >= maxLine {
				fn(long, false)
				long = long[:0]
			}
			continue
		}
		if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
		}
		if len(chunk) > 0 {
			ended := chunk[len(chunk)-1] == '\n'
			fn(bytes.TrimSuffix(chunk, []byte{'\n'}), !ended)
		}
		if err != nil {
			return
		}
	}
}
