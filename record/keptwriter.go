package record

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tallyprof/tally/format/kept"
	"golang.org/x/sys/unix"
)

// keptWriter appends stamped lines to the kept trace. Lines reach the file at
// least every flushEvery so that a kill of tally loses at most that much, and
// the first failed write (open, write, flush, sync, close) stops it for good:
// a kept trace is either whole or its loss is reported.
type keptWriter struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	path    string
	err     error
	lines   int64 // lines handed to the buffer
	flushed int64 // lines known to be in the file
	total   int64 // bytes the buffer accepted
	stop    chan struct{}
	done    chan struct{}
	onError func(error)
}

func createKept(path string, flushEvery time.Duration, onError func(error)) (*keptWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create the kept trace: %w", err)
	}
	k := &keptWriter{f: f, w: bufio.NewWriterSize(f, 256<<10), path: path,
		stop: make(chan struct{}), done: make(chan struct{}), onError: onError}
	go k.flusher(flushEvery)
	return k, nil
}

// monotonic reads CLOCK_MONOTONIC, the clock the kept-trace format names.
func monotonic() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("CLOCK_MONOTONIC unavailable: " + err.Error())
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// header writes the kept-trace header line. It announces the end record
// (end=1), so that a reader knows a file without one was cut.
func (k *keptWriter) header(extra string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.write([]byte(kept.Header + " " + kept.EndDue + extra + "\n"))
}

// end writes the end record, the file's last line. After a failed write it
// writes nothing: that failure is already the error Run returns.
func (k *keptWriter) end(e kept.Ending) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.write([]byte(e.Record() + "\n"))
}

// line stamps and appends one line (without its '\n'), and returns its
// line number in the file.
func (k *keptWriter) line(t uint64, b []byte) int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	var num [24]byte
	s := strconv.AppendUint(num[:0], t, 10)
	s = append(s, ' ')
	k.write(s)
	k.write(b)
	k.write([]byte{'\n'})
	return k.lines
}

func (k *keptWriter) write(b []byte) {
	if k.err != nil || len(b) == 0 {
		return // an empty line's body: nothing to write
	}
	n, err := k.w.Write(b)
	k.total += int64(n)
	if err != nil {
		k.fail(err)
		return
	}
	if b[len(b)-1] == '\n' {
		k.lines++
	}
}

// flush moves buffered lines to the file; callers hold mu.
func (k *keptWriter) flush() {
	if k.err != nil {
		return
	}
	if err := k.w.Flush(); err != nil {
		k.fail(err)
		return
	}
	k.flushed = k.lines
}

func (k *keptWriter) fail(err error) {
	inFile := k.total - int64(k.w.Buffered())
	k.err = fmt.Errorf("writing the kept trace %s failed: %w. The file holds its first %d bytes (at least %d lines); every line after that was lost, so that trace is short", k.path, err, inFile, k.flushed)
	if k.onError != nil {
		go k.onError(k.err)
	}
}

func (k *keptWriter) flusher(every time.Duration) {
	defer close(k.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			k.mu.Lock()
			k.flush()
			k.mu.Unlock()
		case <-k.stop:
			return
		}
	}
}

// close flushes, syncs and closes the file, and returns the first error.
func (k *keptWriter) close() error {
	close(k.stop)
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	k.flush()
	if k.err == nil {
		if err := k.f.Sync(); err != nil && !isNotSupported(err) {
			k.fail(err)
		}
	}
	if err := k.f.Close(); err != nil && k.err == nil {
		k.fail(err)
	}
	return k.err
}

// isNotSupported is true for fsync on files that cannot be synced (pipes,
// character devices): nothing is lost by that.
func isNotSupported(err error) bool {
	return err == unix.EINVAL || err == unix.ENOTSUP || isPathErrno(err, unix.EINVAL)
}

func isPathErrno(err error, errno unix.Errno) bool {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err == errno
	}
	return false
}

// flushNow moves the buffered lines to the file now (the header, before the
// first tick); a failure is kept as every other.
func (k *keptWriter) flushNow() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.flush()
}
