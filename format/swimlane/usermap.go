package swimlane

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// loadUserMaps reads the name maps the user passed explicitly (spec §4:
// "when the user passes it explicitly, and then say 'names from
// user-supplied map'"), each "PROGRAM=FILE". A map names PROGRAM's kernels
// only; a program the build lacks becomes known by its map, so a marker
// naming it resolves to it. A bad map is an error: the user asked for it.
func (r *reader) loadUserMaps(specs []string) error {
	for _, spec := range specs {
		name, path, ok := strings.Cut(spec, "=")
		if !ok || name == "" || path == "" {
			return format.FileError(spec, nil, "give --name-map PROGRAM=FILE (PROGRAM: a next_levels/ subdir name)", "not a PROGRAM=FILE name map")
		}
		var m nameMap
		if err := decodeFile(path, &m); err != nil {
			return err
		}
		if m.Level != 2 {
			return format.FileError(path, nil, "give the level-2 map of one L2 program (pypto writes one per dispatch dir)",
				"a level-%d name map: its ids are not func_ids, so it cannot name chip records", m.Level)
		}
		t := &Table{Names: map[int64]string{}, Found: true, source: "the user-supplied map " + path}
		for k, v := range m.Names {
			id, err := strconv.ParseInt(k, 10, 64)
			if err != nil || id < 0 {
				return format.FileError(path, nil, "callable_id_to_name keys are decimal func_ids", "key %q is not a func_id", k)
			}
			t.Names[id] = v
		}
		p := r.programs[name]
		if p == nil {
			p = &program{name: name, why: "no next_levels/" + name + "/kernel_config.py"}
			r.programs[name] = p // known by its map; not a program of the build (no inference)
		}
		if p.user != nil {
			return format.FileError(path, nil, "give one --name-map per program", "a second name map for program %s (the first: %s)", name, p.userPath)
		}
		p.user, p.userPath = t, path
	}
	return nil
}

// userMapNotes states, per user-supplied map, that names came from it, how
// it compares with the program's own table, and whether anything used it.
func (r *reader) userMapNotes() {
	for _, name := range slices.Sorted(maps.Keys(r.programs)) {
		p := r.programs[name]
		if p.user == nil {
			continue
		}
		what := fmt.Sprintf("names from user-supplied map %s (%d names) for program %s", p.userPath, len(p.user.Names), p.name)
		switch {
		case p.table == nil || !p.table.Usable():
			what += "; the program has no usable kernel_config.py table to compare with"
		case len(diffNames(stringKeys(p.user.Names), p.table)) == 0:
			what += "; agrees with its kernel_config.py"
		default:
			what += fmt.Sprintf("; differs from its kernel_config.py %v — the map's names are shown", diffNames(stringKeys(p.user.Names), p.table))
		}
		if p.used == 0 {
			what += "; not used: no dispatch of this program was read"
		}
		r.gap(UserNameMap, "", "kernels named from a name map the user passed (--name-map), not from their program's kernel_config.py: the user vouches for it").
			Add(capture.Item{What: what, Where: p.userPath})
	}
}

func stringKeys(m map[int64]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strconv.FormatInt(k, 10)] = v
	}
	return out
}
