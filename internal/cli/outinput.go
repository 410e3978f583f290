package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/internal/safetext"
)

// outputsClash refuses outputs that name one of the inputs or each other,
// before anything is read: an output is written by a rename over its path
// after the inputs are read, so `-o trace.json trace.json` replaced the
// trace with its own report, and `--html F -o F` (or record's `-o F
// --report F`) kept one output and lost the other, each with exit 0.
// Files are compared as files (another spelling of the path, a link); an
// output that does not exist yet names no input. A directory input's
// files are not walked here: the output would be one of them only if a
// reader recognised it, and rewriting an earlier output there is common.
func outputsClash(outs, ins []string) error {
	type file struct {
		path string
		st   os.FileInfo
	}
	var seen []file
	for _, o := range outs {
		if o == "" || o == "-" {
			continue
		}
		st, err := os.Stat(o)
		if err != nil {
			// Not there yet: only another output can name it.
			for _, s := range seen {
				if filepath.Clean(s.path) == filepath.Clean(o) {
					return errors.New(safetext.Sprintf("%s is named as two outputs: one would replace the other; give each its own name", o))
				}
			}
			seen = append(seen, file{o, nil})
			continue
		}
		if !st.Mode().IsRegular() {
			continue // a device (/dev/stdout, /dev/null) or a directory: not replaced by a rename
		}
		for _, s := range seen {
			if s.st != nil && os.SameFile(s.st, st) {
				return errors.New(safetext.Sprintf("%s is named as two outputs (%s and %s): one would replace the other; give each its own name", o, s.path, o))
			}
		}
		seen = append(seen, file{o, st})
		for _, in := range ins {
			if in == "" || in == "-" {
				continue
			}
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return errors.New(safetext.Sprintf("output %s is the input %s: writing it would replace what it is made from; give the output another name", o, in))
			}
		}
	}
	return nil
}

// layerFiles are the files tally layers may read of REF and OURS: each a
// comma-separated list of files, or a directory whose files (not walked
// further) are the dumps.
func layerFiles(sides ...string) []string {
	var files []string
	for _, side := range sides {
		for _, p := range strings.Split(side, ",") {
			files = append(files, p)
			if ents, err := os.ReadDir(p); err == nil {
				for _, e := range ents {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
	}
	return files
}
