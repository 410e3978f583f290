package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// DetectedByScan is the note on a capture whose reader was chosen by
// scanning the whole input, not its head.
const DetectedByScan capture.Kind = "detected_by_scan"

func init() { capture.RegisterNote(DetectedByScan) }

// rescan handles a text input whose head (the first 64 KiB) held no line
// of its real format — an engine that prints a long loading log before its
// first profiler line, kept by `tally record` — so that a weaker sign (a
// kept-trace header) picked a reader that then found nothing.
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
	g.Add(capture.Item{What: fmt.Sprintf("%s claimed by %s", units.Plural(int64(lines), "line", "lines"), best.Name), Where: in.Path})
	again.Accounting.SortGaps()
	return again, nil
}

// scanUnclaimed reads an input whose head no sniffer claims. A file longer
// than the head may hold its format's lines further in (a loading log
// longer than 64 KiB before the first one): it is scanned with every
// reader's line claims, and read by the reader with the most. Anything
// else — a short file, a stream, a file with no claimed line — is refused
// with the list of formats: no reader reads a file it has no evidence for.
func scanUnclaimed(in *Input, head []byte, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	whole := len(head) < sniffLen // the sniffers saw all of it
	if whole || in.IsStream() {
		return nil, unknownFormat(in, head, whole, false)
	}
	best, lines, err := claimScan(in, "")
	if err != nil {
		return nil, FileError(in.Path, err, "check the file and the disk", "scanning for a known format: %v", err)
	}
	if best.Name == "" {
		return nil, unknownFormat(in, head, false, true)
	}
	c, err := readChecked(best, in, opts, sink)
	if err != nil {
		return c, err
	}
	g := c.Accounting.Gap(DetectedByScan, "")
	g.Summary = fmt.Sprintf("the first %d KiB of the input hold no magic, header or line of any format; scanning the whole input found %s lines, and it was read as %s (give --format %s to skip the scan)",
		sniffLen>>10, best.Name, best.Name, best.Name)
	g.Add(capture.Item{What: fmt.Sprintf("%s claimed by %s", units.Plural(int64(lines), "line", "lines"), best.Name), Where: in.Path})
	c.Accounting.SortGaps()
	return c, nil
}

// unknownFormat is the error for an input no reader recognises: what it
// looked like, how much of it was looked at, the formats, and --format.
func unknownFormat(in *Input, head []byte, whole, scanned bool) error {
	kind := looksLike(head)
	var seen string
	switch {
	case whole:
		seen = fmt.Sprintf("it is %s with no magic number, header or line of any format tally reads", kind)
	case scanned:
		seen = fmt.Sprintf("it is %s whose first %d KiB hold no magic number, header or line of any format tally reads, and no line of which is one a line reader uses", kind, sniffLen>>10)
	default:
		seen = fmt.Sprintf("it is %s whose first %d KiB hold no magic number, header or line of any format tally reads (a stream is not scanned further)", kind, sniffLen>>10)
	}
	return FileError(in.Path, ErrUnknownFormat, "give --format NAME to read it as one of them; 'tally formats' says what each reads",
		"%v: %s (formats: %s)", ErrUnknownFormat, seen, Names())
}

// looksLike names the broad kind of a head, so that the refusal says what
// tally saw.
func looksLike(head []byte) string {
	h := bytes.TrimLeft(TrimBOM(head), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return "an SQLite database"
	case bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:max(0, len(head)-utf8.UTFMax)]): // the cut may split a rune
		return "binary data"
	case len(h) > 0 && (h[0] == '{' || h[0] == '['):
		return "JSON text"
	}
	return "text"
}

// claimScan counts, per reader other than skip, the lines of the input it
// claims (raw, or behind a kept trace's arrival stamp) and its sniffer,
// shown that line alone, takes as evidence; it returns the reader with the
// most.
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
				if (f.Claims(line) || f.Claims(body)) && f.Sniff(line) >= Likely {
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
