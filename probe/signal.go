package probe

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// HandleSignals makes SIGINT and SIGTERM close the session — drain every
// ring, write what is in flight and the end record, with a note naming the
// signal — and then re-raise the signal with its default action, so the
// process ends as it would have without the handler. It is opt-in because
// it takes over those signals (signal.Reset disables the program's own
// Notify for them at that point). stop turns the handler off.
func (s *Session) HandleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			s.drainMu.Lock()
			if s.signal == nil {
				s.signal = sig
			}
			s.drainMu.Unlock()
			s.Close()
			signal.Reset(sig)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(sig)
			}
		case <-quit:
			signal.Stop(ch)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit) }) }
}
