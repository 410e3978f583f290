// Package progress draws a one-line progress bar on a terminal while a long
// read runs. It stays silent for reads that end within Delay, so short runs
// print nothing, and clears its line when done so the report that follows
// starts on a clean line.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Mode is the --progress setting.
type Mode string

const (
	Never  Mode = "never"
	Auto   Mode = "auto" // only when the output is a terminal
	Always Mode = "always"
)

// ParseMode checks a --progress value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Never, Auto, Always:
		return m, nil
	}
	return "", fmt.Errorf("--progress %q: give never, auto or always", s)
}

// Enabled reports whether mode draws a bar on w: always, never, or (auto)
// when w is a terminal.
func (m Mode) Enabled(w io.Writer) bool {
	switch m {
	case Always:
		return true
	case Never:
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bar draws the progress of a read of Size bytes, asking Done how far it is.
type Bar struct {
	W     io.Writer
	Label string
	Size  int64
	Done  func() int64
	// Suffix, when set, is appended to each frame (e.g. how many of a
	// set of inputs are done).
	Suffix func() string
	// Delay is how long a read runs before the bar appears; Every how
	// often it is redrawn.
	Delay, Every time.Duration

	stop    chan struct{}
	wg      sync.WaitGroup
	drawn   bool
	started time.Time
}

// Start begins watching in the background.
func (b *Bar) Start() {
	if b.Delay == 0 {
		b.Delay = time.Second
	}
	if b.Every == 0 {
		b.Every = 200 * time.Millisecond
	}
	b.stop = make(chan struct{})
	b.started = time.Now()
	b.wg.Add(1)
	go b.loop()
}

func (b *Bar) loop() {
	defer b.wg.Done()
	wait := time.NewTimer(b.Delay)
	defer wait.Stop()
	select {
	case <-b.stop:
		return
	case <-wait.C:
	}
	tick := time.NewTicker(b.Every)
	defer tick.Stop()
	for {
		b.draw()
		select {
		case <-b.stop:
			return
		case <-tick.C:
		}
	}
}

// Stop ends the bar and clears its line if it was drawn.
func (b *Bar) Stop() {
	if b.stop == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
	if time.Since(b.started) >= b.Delay {
		b.draw() // a last frame at the end of a read that outlasted Delay
	}
	if b.drawn {
		fmt.Fprint(b.W, "\r\033[K")
	}
}

const width = 30

func (b *Bar) draw() {
	done := b.Done()
	frac := 0.0
	if b.Size > 0 {
		frac = min(float64(done)/float64(b.Size), 1)
	}
	fill := int(frac * width)
	elapsed := time.Since(b.started).Truncate(100 * time.Millisecond)
	suffix := ""
	if b.Suffix != nil {
		suffix = b.Suffix()
	}
	fmt.Fprintf(b.W, "\r\033[K%s [%s%s] %3.0f%% %s of %s, %s%s", b.Label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, mib(done), mib(b.Size), elapsed, suffix)
	b.drawn = true
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
