package cleanup

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Signals are the signals Catch handles: the ones a person or a job
// scheduler sends to stop a command (Ctrl-C, kill, a closed terminal).
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Catch arms the signal handler: on the first of Signals, every tracked
// temporary is removed and the signal is raised again with its default
// action, so the process ends as it would have without the handler —
// killed by that signal, which a shell reports as status 128+N (130 for
// SIGINT) — and a script running tally stops as it should. A signal the
// process was started with ignored (nohup, a background job of a
// non-interactive shell) stays ignored. stop disarms it.
//
// The handler is installed when the first temporary is made (Hold, Track),
// not by Catch: until then a signal has nothing to remove, and its default
// action ends the process as the handler would. A command that makes
// none (tally version, a report to standard output) never starts the
// signal machinery, a few milliseconds of a short run.
func Catch() (stop func()) {
	armMu.Lock()
	armed = true
	mu.Lock()
	tracked := len(live) > 0
	mu.Unlock()
	if tracked {
		ensureInstalledLocked()
	}
	armMu.Unlock()
	return func() {
		if caught.Load() {
			// The handler is removing the temporaries and will end the
			// process by the signal: a command whose write failed because
			// its temporary was removed must not end first with its own
			// exit status (2, "no such file").
			select {}
		}
		armMu.Lock()
		defer armMu.Unlock()
		armed = false
		if uninstall != nil {
			uninstall()
			uninstall = nil
		}
	}
}

var (
	caught    atomic.Bool // a signal of Signals arrived: the handler ends the process
	armMu     sync.Mutex
	armed     bool   // between Catch and its stop
	uninstall func() // the installed handler's, nil when none is
)

// ensureInstalled installs the handler when Catch has armed it and it is
// not installed yet.
func ensureInstalled() {
	armMu.Lock()
	ensureInstalledLocked()
	armMu.Unlock()
}

func ensureInstalledLocked() {
	if armed && uninstall == nil {
		uninstall = install()
	}
}

// install starts the handler Catch describes and returns what stops it.
func install() (stop func()) {
	ch := make(chan os.Signal, 1)
	for _, s := range Signals {
		if !signal.Ignored(s) {
			signal.Notify(ch, s)
		}
	}
	quit := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			caught.Store(true)
			step.Lock() // waits for a rename in progress; never released
			removeTracked()
			signal.Reset(sig)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(sig)
			}
			// Where a signal cannot be raised again, end as a shell
			// reports a death by signal.
			time.Sleep(time.Second)
			n := 1
			if s, ok := sig.(syscall.Signal); ok {
				n = int(s)
			}
			os.Exit(128 + n)
		case <-quit:
			signal.Stop(ch)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit) }) }
}
