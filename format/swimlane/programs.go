package swimlane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// maxConfigBytes bounds one kernel_config.py read into memory.
const maxConfigBytes = 16 << 20

// program is an L2 program of the build: a next_levels/ subdir with a
// kernel_config.py, and its table.
type program struct {
	name  string
	table *Table // nil when the file could not be read or tokenized
	why   string // why the table is unusable ("" when usable)
	// user is the user-supplied name map for this program (--name-map),
	// which names its kernels instead of the table; userPath its file.
	user     *Table
	userPath string
	used     int64 // dispatches resolved to this program
}

// names is the table a dispatch of p is named from: the user's map when
// one was given, else the program's kernel_config.py table when usable.
func (p *program) names() *Table {
	switch {
	case p.user != nil:
		return p.user
	case p.why == "":
		return p.table
	}
	return nil
}

type reader struct {
	root string
	sink capture.Sink
	c    *capture.Capture

	programs map[string]*program
	names    []string // program names, sorted

	kernels  map[kernelKey]capture.KernelID
	queues   map[queueKey]capture.QueueID
	progIDs  map[string]capture.ProgramID
	runs     map[capture.ProgramID]int64
	rankDirs int

	dispatches [][2]string // inventory: dispatch dir, what it held
	converted  int64
	tasks      int64
}

type kernelKey struct {
	prog capture.ProgramID
	id   int64 // func_id; -1 unresolved
}

type queueKey struct {
	rank, core int64
}

// loadPrograms reads next_levels/*/kernel_config.py. A build without
// next_levels/ has no programs: every dispatch is then unresolved.
func (r *reader) loadPrograms() error {
	r.programs = map[string]*program{}
	dir := filepath.Join(r.root, "next_levels")
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return format.FileError(dir, err, "check the directory's permissions", "cannot list next_levels/")
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name(), "kernel_config.py")
		st, err := os.Stat(path)
		if err != nil {
			continue // a subdir without kernel_config.py is not a program
		}
		p := &program{name: e.Name()}
		r.count(path)
		r.programs[p.name] = p
		r.names = append(r.names, p.name)
		if st.Size() > maxConfigBytes {
			p.why = fmt.Sprintf("%s is %d bytes, over the %d-byte limit", path, st.Size(), maxConfigBytes)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			p.why = "cannot read " + path + ": " + err.Error()
			continue
		}
		t, err := ParseKernels(string(src))
		if err != nil {
			p.why = fmt.Sprintf("%s:%v (not Python tally can read; names unresolved)", path, strings.TrimPrefix(err.Error(), "line "))
			continue
		}
		p.table = t
		switch {
		case !t.Found:
			p.why = path + " has no KERNELS table"
		case t.NonLiteral != "":
			p.why = path + ": KERNELS is not a literal table (" + t.NonLiteral + ")"
		}
		r.tableGaps(p, path)
	}
	sort.Strings(r.names)
	return nil
}

// tableGaps states what the table skipped.
func (r *reader) tableGaps(p *program, path string) {
	t := p.table
	g := func() *capture.Gap {
		return r.gap(KernelTable, "", "kernel_config.py entries tally could not use: the kernels they describe get anonymous labels (program:#id) if they run")
	}
	for _, s := range t.Skipped {
		g().Add(capture.Item{What: s.Reason, Where: fmt.Sprintf("%s:%d", path, s.Line), Program: p.name})
	}
	for _, d := range t.Duplicates {
		g().Add(capture.Item{What: "duplicate " + d, Where: path, Program: p.name})
	}
}

// resolve finds the program of a dispatch (spec §2): by its marker, by the
// build having one program, or not at all. how says which.
func (r *reader) resolve(d dispatchDir) (p *program, how string) {
	marker, why := readMarker(filepath.Join(d.path, "dispatch_program.json"))
	if marker != "" {
		if p := r.programs[marker]; p != nil {
			if p.user != nil {
				return p, "marker; names from user-supplied map"
			}
			return p, "marker"
		}
		return nil, fmt.Sprintf("the marker names program %q, which next_levels/ does not have (programs: %s)", marker, r.programList())
	}
	if len(r.names) == 1 {
		how := "inferred: single program in build (" + why + ")"
		if r.programs[r.names[0]].user != nil {
			how += "; names from user-supplied map"
		}
		return r.programs[r.names[0]], how
	}
	if len(r.names) == 0 {
		return nil, why + ", and the build has no program (no next_levels/*/kernel_config.py)"
	}
	return nil, fmt.Sprintf("%s, and the build has %d programs (%s)", why, len(r.names), r.programList())
}

func (r *reader) programList() string {
	if len(r.names) == 0 {
		return "none"
	}
	return strings.Join(r.names, ", ")
}

// gap returns the gap of kind for program ("" = the run), setting its
// summary.
func (r *reader) gap(kind capture.Kind, prog, summary string) *capture.Gap {
	g := r.c.Accounting.Gap(kind, prog)
	if g.Summary == "" {
		g.Summary = summary
	}
	return g
}
