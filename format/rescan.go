package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/tallyprof/tally/capture"
)

// DetectedByScan is the note on a capture whose reader was chosen by
// scanning the whole input, not its head.
const DetectedByScan capture.Kind = "detected_by_scan"

func init() { capture.RegisterNote(DetectedByScan) }

// rescan handles a text input whose head (the first 64 KiB) held no line
// of its real format — an engine that prints a long loading log before its
// first profiler line, kept by `tally record` — so that a weaker sign (a
// kept-trace header, plain text) picked a reader that then found nothing.
// When that reader's capture is empty, the whole input is scanned with
// every reader's line claims, and the reader claiming the most lines reads
// it again. Only files are rescanned (a stream cannot be read twice), and
// only captures without a single dispatch (the caller checks that the sink
// has seen nothing).
func rescan(first Format, c *capture.Capture, in *Input, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	if c.Accounting.CountOf(capture.EmptyCapture) == 0 || in.IsStream() || in.Size <= sniffLen {
		return c, nil
	}
	best, lines, err := claimScan(in, first.Name)
	if err != nil || best.Name == "" {
		return c, nil // the first reader's empty capture says what it found
	}
	again, err := readChecked(best, in, opts, sink)
	if err != nil {
		return nil, err
	}
	g := again.Accounting.Gap(DetectedByScan, "")
	g.Summary = fmt.Sprintf("the first %d KiB of the input hold no %s line, so the %s reader was tried first and found nothing; scanning the whole input found %s lines, and it was read as %s (give --format %s to skip the scan)",
		sniffLen>>10, best.Name, first.Name, best.Name, best.Name, best.Name)
	g.Add(capture.Item{What: fmt.Sprintf("%d lines claimed by %s", lines, best.Name), Where: in.Path})
	again.Accounting.SortGaps()
	return again, nil
}

// claimScan counts, per reader other than skip, the lines of the input it
// claims (raw, or behind a kept trace's arrival stamp), and returns the
// reader with the most.
func claimScan(in *Input, skip string) (Format, int64, error) {
	var claimers []Format
	for _, f := range Claimers() {
		if f.Name != skip {
			claimers = append(claimers, f)
		}
	}
	if len(claimers) == 0 {
		return Format{}, 0, nil
	}
	r, err := in.Reader()
	if err != nil {
		return Format{}, 0, err
	}
	counts := make([]int64, len(claimers))
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull { // a long line: classified by its start
			_, err = br.ReadSlice('\n')
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 && line[0] != '#' {
			body := unstamp(line)
			for i, f := range claimers {
				if f.Claims(line) || f.Claims(body) {
					counts[i]++
					break
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Format{}, 0, err
		}
	}
	best := -1
	for i, n := range counts {
		if n > 0 && (best < 0 || n > counts[best]) {
			best = i
		}
	}
	if best < 0 {
		return Format{}, 0, nil
	}
	return claimers[best], counts[best], nil
}

// countingSink counts the dispatches passed on: a rescan may only replace
// a read whose sink saw nothing.
type countingSink struct {
	next capture.Sink
	n    int64
}

func (s *countingSink) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	s.n++
	s.next.Dispatch(c, d)
}

// unstamp removes a kept trace's "<1-20 digits> " arrival stamp.
func unstamp(b []byte) []byte {
	i := 0
	for i < len(b) && i < 21 && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > 0 && i <= 20 && i < len(b) && b[i] == ' ' {
		return b[i+1:]
	}
	return b
}
