package cli

import (
	"flag"
	"io"
	"path/filepath"
	"time"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/progress"
)

// progressDelay overrides the bar's delay (tests); 0 keeps its default.
var progressDelay time.Duration

// progressFlag is --progress: a bar on standard error while a long input,
// or a set of inputs, is read.
type progressFlag struct {
	mode progress.Mode
	out  io.Writer
}

func (p *progressFlag) register(fs *flag.FlagSet) {
	p.mode, p.out = progress.Auto, fs.Output()
	fs.Var(&choiceFlag{choices: []string{string(progress.Never), string(progress.Auto), string(progress.Always)}, check: func(s string) error {
		m, err := progress.ParseMode(s)
		p.mode = m
		return err
	}}, "progress", "progress bar on standard error for inputs that take over a second, by `mode`: never, auto (when standard error is a terminal; the default) or always")
}

// watch starts the bar for in, when enabled; inputs.Options.Watch.
func (p *progressFlag) watch(in *format.Input) func() {
	if !p.mode.Enabled(p.out) || in.IsStream() {
		return func() {} // a stream's size is unknown until its end
	}
	b := &progress.Bar{W: p.out, Label: "tally: reading " + filepath.Base(in.Path), Size: in.Size, Done: format.TrackProgress(in).Done, Delay: progressDelay}
	b.Start()
	return b.Stop
}

// set is the one bar of a set of inputs read in parallel (many-input
// reports, timelines), when enabled; nil otherwise.
func (p *progressFlag) set() inputs.Progress {
	if !p.mode.Enabled(p.out) {
		return nil
	}
	return &progress.Set{W: p.out, Delay: progressDelay}
}
