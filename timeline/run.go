package timeline

import (
	"io"

	"github.com/tallyprof/tally/format"
)

// Options selects the readers and the output format.
type Options struct {
	// Format forces a reader by name; empty detects it per input.
	Format string
	Reader format.Options
	// As is the output format.
	As Format
}

// Summary is what Run wrote.
type Summary struct {
	Stats   Stats
	Verdict string
	// Failed counts inputs that could not be read at all.
	Failed int
	// Complete is true when the verdict is "complete".
	Complete bool
}

// Run reads every input and writes one timeline of them all to out. An
// input that cannot be read is a gap of the whole (drawn on the run's
// accounting track), never hiding the others. The error is the output's
// (a failed write), never an input's.
func Run(paths []string, out io.Writer, opt Options) (*Summary, error) {
	w := New(out, opt.As)
	for _, p := range paths {
		in := w.Input(p)
		c, err := format.ReadFile(p, opt.Format, &opt.Reader, in)
		if err != nil {
			w.Failed(p, err)
			continue
		}
		in.Finish(c)
	}
	return w.summary(w.Close())
}

func (w *Writer) summary(err error) (*Summary, error) {
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	v := w.verdict()
	return &Summary{Stats: w.stats, Verdict: v, Failed: len(w.failures), Complete: v == "complete"}, nil
}
