// Package inputs is how every tally command reads what it was given, one
// input or many, in two steps:
//
//   - Expand turns the arguments (files, "-" for standard input,
//     directories) into the inputs to read and the files passed over;
//     Paths names inputs as they are, with no directory walked.
//   - Expansion.Read reads every input in parallel, each through the one
//     read function (format.ReadPath) with its own reader, aggregator,
//     accounting and, optionally, a sink of the caller's (a timeline, an
//     export), and returns an analysis.Run: each input's capture and
//     tables, or its error, and the merged view of them all.
//
// A failing input is a gap of the whole, never hiding the others; whether
// the command reports one input or a run of many is the run's to say
// (analysis.Run.Many), decided here from what the arguments named.
package inputs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/format"
)

// Expansion is what the arguments name: the inputs to read, in order, and
// the files passed over.
type Expansion struct {
	Paths   []string
	Skipped []analysis.Skipped
	// certain holds the reader of each walked file its head was certainly
	// recognised as: Read then reads it with that reader instead of
	// opening it and sniffing its head again, the same choice (a certain
	// detection is never second-guessed). A 64-rank directory: 64 head
	// reads (4 MiB) and sniffs fewer. A file sniffed without a certain
	// reader maps to "".
	certain map[string]string
	// many: several arguments, or a directory walked for its traces (so
	// even one input found there is reported as a run of inputs).
	many bool
}

// Many reports whether the arguments named a run of inputs (several, or a
// directory of traces) rather than one input (a file, standard input, or a
// run directory a directory reader claims).
func (e *Expansion) Many() bool { return e.many }

// Paths names exactly these inputs, in order: no directory is walked (a
// directory is read by the directory reader that claims it, or fails).
func Paths(paths ...string) *Expansion {
	return &Expansion{Paths: paths, many: len(paths) != 1}
}

// Expand turns arguments into inputs. A file is an input whatever it holds
// (its reader will say). A directory is one input when a directory reader
// claims it (format.DetectDir); otherwise its files are walked in name
// order, hidden ones left out, and each whose content a reader recognises
// (confidence Likely or better; formatName forces one reader) is an input —
// `rank*/…`, `*.pt.trace.json.gz` — the others are listed as skipped. A
// path that cannot be opened is still an input: reading it fails, and that
// failure is a gap of the whole. A path that names a file already among
// the inputs (the same path again, a link to it, a file of a walked
// directory), or a file holding the same bytes as one of them, is listed
// as skipped, not read twice (passRepeats).
func Expand(args []string, formatName string) *Expansion {
	e := &Expansion{many: len(args) != 1}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() || isDirInput(a) {
			e.Paths = append(e.Paths, a)
			continue
		}
		e.many = true
		e.walk(a, formatName)
	}
	e.passRepeats()
	return e
}

func (e *Expansion) walk(root, formatName string) {
	var files []string
	var other []analysis.Skipped
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable subdirectory: an input that will fail, so it is
			// stated as a failed input rather than silently missing.
			files = append(files, p)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && isDirInput(p) {
				files = append(files, p)
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
			return nil
		}
		// A link, a pipe, a socket, a device: WalkDir does not follow
		// links, so without this a symlinked rank trace would be neither
		// read nor listed. A link to a file or to a directory input is an
		// input; anything else is listed as skipped, never dropped.
		if st, serr := os.Stat(p); serr == nil && (st.Mode().IsRegular() || (st.IsDir() && isDirInput(p))) {
			files = append(files, p)
			return nil
		}
		other = append(other, analysis.Skipped{Path: p, Reason: notRegular(p)})
		return nil
	})
	if err != nil {
		files = append(files, root)
	}
	sort.Strings(files)
	reasons, certain := recogniseAll(files, formatName)
	for i, p := range files {
		if reasons[i] != "" {
			e.Skipped = append(e.Skipped, analysis.Skipped{Path: p, Reason: reasons[i]})
			continue
		}
		e.Paths = append(e.Paths, p)
		if e.certain == nil {
			e.certain = map[string]string{}
		}
		e.certain[p] = certain[i] // "" too: sniffed, no reader certain
	}
	e.Skipped = append(e.Skipped, other...)
	sort.SliceStable(e.Skipped, func(i, j int) bool { return e.Skipped[i].Path < e.Skipped[j].Path })
}

// notRegular says why a directory entry that is neither a file nor a
// directory is not read.
func notRegular(p string) string {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return fmt.Sprintf("a link that cannot be followed: %v", err)
	case st.IsDir():
		return "a link to a directory no directory reader recognises: not followed (give the directory itself)"
	}
	return "not a regular file (pipe, socket or device): not read (give it as an argument to read it)"
}

// recogniseAll is recognise for every file, one per core at a time: each
// opens its file and sniffs its head, which for a directory of ranks is
// otherwise a serial pass before the parallel read.
func recogniseAll(files []string, formatName string) (reasons, certain []string) {
	reasons = make([]string, len(files))
	certain = make([]string, len(files))
	if formatName != "" {
		return reasons, certain // every file is an input
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				reasons[i], certain[i] = recognise(files[i], formatName)
			}
		}()
	}
	wg.Wait()
	return reasons, certain
}

// recognise returns "" when p is an input, else why it is passed over;
// and the reader's name when a reader is certain of it.
func recognise(p, formatName string) (reason, certain string) {
	if formatName != "" {
		return "", ""
	}
	in, err := format.Open(p)
	if err != nil {
		if st, serr := os.Stat(p); serr == nil && st.IsDir() {
			return "", "" // a directory input (or an unreadable one: it fails, visibly)
		}
		return "", "" // unreadable: reading fails and is reported
	}
	defer in.Close()
	if in.Size == 0 {
		return "", "" // an empty trace is an empty_capture, said loudly by its read
	}
	f, conf, err := format.Sniff(in)
	if err != nil {
		return "", ""
	}
	switch {
	case conf == format.Companion:
		return fmt.Sprintf("a file the %s reader reads beside its main input, not an input by itself", f.Name), ""
	case conf < format.Likely:
		return fmt.Sprintf("no reader recognises it (give --format NAME to read it as one)"), ""
	case conf == format.Certain:
		return "", f.Name
	}
	return "", ""
}

func isDirInput(p string) bool {
	_, conf := format.DetectDir(p)
	return conf >= format.Likely
}
