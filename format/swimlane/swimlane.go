// Package swimlane reads pypto/simpler L3 run directories: per-rank,
// per-dispatch chip swimlane records, each dispatch's program marker, and
// every L2 program's kernel_config.py. Each task's kernel is named from the
// program that ran that dispatch — never from another program's table and
// never from a name_map.json left in the dispatch dir
// (docs/formats/swimlane.md; spec ../shared/specs/swimlane.md).
package swimlane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Name is the reader's --format name.
const Name = "swimlane"

func init() {
	format.Register(format.Format{
		Name:        Name,
		Description: "pypto/simpler L3 run directory (next_levels/*/kernel_config.py, dfx_outputs/rank*/d*/chip_swimlane_records.json): give the directory",
		Sniff:       Sniff,
		Read:        Read,
		Uses:        []format.Option{format.OptNameMap},
	})
	format.RegisterDir(format.DirFormat{Name: Name, SniffDir: SniffDir, ReadDir: ReadDir})
}

// Sniff never claims a file: a swimlane run is a directory.
func Sniff(head []byte) format.Confidence { return format.No }

// Read refuses a single file: a swimlane run is a directory (ReadDir).
func Read(in *format.Input, _ *format.Options, _ capture.Sink) (*capture.Capture, error) {
	return nil, format.FileError(in.Path, nil, "give the run's <output_dir> (the directory holding dfx_outputs/ and next_levels/)",
		"a swimlane run is a directory, not one file")
}

// SniffDir is Certain for a directory with dfx_outputs/rank*/ and
// next_levels/, Likely with dfx_outputs/rank*/ alone.
func SniffDir(path string) format.Confidence {
	ranks, _ := filepath.Glob(filepath.Join(path, "dfx_outputs", "rank*"))
	if len(ranks) == 0 {
		return format.No
	}
	if st, err := os.Stat(filepath.Join(path, "next_levels")); err == nil && st.IsDir() {
		return format.Certain
	}
	return format.Likely
}

// dispatchDir is one dfx_outputs/rank<w>/d<k>.
type dispatchDir struct {
	rank, k int64
	rankDir string // "rank0"
	path    string
}

func (d dispatchDir) label() string { return fmt.Sprintf("%s/d%d", d.rankDir, d.k) }

// ReadDir reads a run directory.
func ReadDir(root string, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	dfx := filepath.Join(root, "dfx_outputs")
	if st, err := os.Stat(dfx); err != nil || !st.IsDir() {
		return nil, format.FileError(root, err, "give the run's <output_dir>, the directory holding dfx_outputs/", "no dfx_outputs/ directory")
	}
	r := &reader{root: root, sink: sink, c: &capture.Capture{}, kernels: map[kernelKey]capture.KernelID{},
		queues: map[queueKey]capture.QueueID{}, progIDs: map[string]capture.ProgramID{}, runs: map[capture.ProgramID]int64{}}
	r.c.Clock = capture.Clock{Domain: "device-counter", Unit: "ns", Timed: true,
		Description: "ns from each chip's device system counter (cycles × 10⁹ / the records' clock_freq_hz; 20 ns steps at a2a3's 50 MHz); chips' counters are not aligned with each other or with the host"}
	if err := r.loadPrograms(); err != nil {
		return nil, err
	}
	if opts != nil {
		if err := r.loadUserMaps(opts.NameMaps); err != nil {
			return nil, err
		}
	}
	dirs, err := r.dispatchDirs(dfx)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		r.dispatch(d)
	}
	r.finish(len(dirs))
	return r.c, nil // Source.Bytes: the sizes of the files read (see count)
}

// dispatchDirs lists rank*/d<k> in rank order, then k numerically. Other
// subdirectories are ignored (they are not dispatches).
func (r *reader) dispatchDirs(dfx string) ([]dispatchDir, error) {
	ranks, err := os.ReadDir(dfx)
	if err != nil {
		return nil, format.FileError(dfx, err, "check the directory's permissions", "cannot list dfx_outputs/")
	}
	var out []dispatchDir
	for _, re := range ranks {
		w, ok := numbered(re.Name(), "rank")
		if !ok || !re.IsDir() {
			continue
		}
		r.rankDirs++
		rp := filepath.Join(dfx, re.Name())
		ds, err := os.ReadDir(rp)
		if err != nil {
			r.gap(capture.SkippedInput, "", "directories that could not be listed: their dispatches are not in the tables").Add(capture.Item{What: err.Error(), Where: rp})
			continue
		}
		for _, de := range ds {
			k, ok := numbered(de.Name(), "d")
			if !ok || !de.IsDir() {
				continue
			}
			out = append(out, dispatchDir{rank: w, k: k, rankDir: re.Name(), path: filepath.Join(rp, de.Name())})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		return out[i].k < out[j].k
	})
	return out, nil
}

// numbered parses prefix+digits names ("rank3", "d12").
func numbered(name, prefix string) (int64, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok || s == "" || strings.Trim(s, "0123456789") != "" || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
