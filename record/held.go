package record

import (
	"os"
	"sync"
	"time"
)

// pipes carry the command's stdout and stderr. They are tally record's own
// (os.Pipe), not exec's StdoutPipe, so that the command can be waited for
// while its output is read: a process the command started (a server put in
// the background, a daemon) inherits the write ends and may hold them open
// long after the command exited. tally record reads on — every line is
// kept — but a signal then has no command to go to, and before it was
// forwarded to the dead process and ignored: Ctrl-C did nothing until that
// process ended, if ever. Now it stops the reading (stopReading), and the
// end record says so (unread=SIG).
type pipes struct {
	outR, outW, errR, errW *os.File
	stop                   sync.Once
}

func newPipes() (*pipes, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	return &pipes{outR: outR, outW: outW, errR: errR, errW: errW}, nil
}

// started closes the write ends the command has inherited: the readers
// then see the end of the output when the last process holding it is
// gone.
func (p *pipes) started() {
	p.outW.Close()
	p.errW.Close()
}

// stopReading ends the pumps' reads where they are (a Read blocked on a
// pipe returns when the file is closed); lines in flight are not kept.
func (p *pipes) stopReading() {
	p.stop.Do(func() {
		p.outR.Close()
		p.errR.Close()
	})
}

// closeAll closes every end still open.
func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.outR, p.outW, p.errR, p.errW} {
		f.Close() // an end closed already says so, and that is all
	}
}

// abandonGrace is how long the output may drain after the command exited
// once the kept trace's write has failed.
const abandonGrace = 2 * time.Second

// abandonHeld stops the reading when the kept trace's write has failed and
// the command has exited but its output stays open (a process it started
// holds it): nothing more can be kept, and waiting for that process —
// which may never end — would hang tally record with its error unsaid.
// It returns whether it stopped the reading; it returns false as soon as
// the pumps end by themselves.
func abandonHeld(p *pipes, writeFailed, exited, pumped <-chan struct{}) bool {
	for _, c := range []<-chan struct{}{writeFailed, exited} {
		select {
		case <-c:
		case <-pumped:
			return false
		}
	}
	select {
	case <-pumped:
		return false
	case <-time.After(abandonGrace):
	}
	p.stopReading()
	return true
}
