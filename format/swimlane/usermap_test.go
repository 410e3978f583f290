package swimlane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func readWith(t *testing.T, dir string, maps ...string) (*result, error) {
	t.Helper()
	agg := analysis.NewAggregator()
	var col capture.Collect
	c, err := format.ReadPath(dir, "", &format.Options{NameMaps: maps, ProgramBy: format.ByAnnotation}, capture.Tee{agg, &col})
	if err != nil {
		return nil, err
	}
	checkModel(t, c, col.Dispatches)
	return &result{c: c, disp: col.Dispatches, tables: agg.Tables(c)}, nil
}

func userItems(c *capture.Capture) string {
	g := c.Accounting.Find(UserNameMap)
	if g == nil {
		return ""
	}
	var s []string
	for _, it := range g.Items {
		s = append(s, it.What)
	}
	return strings.Join(s, "\n")
}

// A map the user passes names its program's kernels — only that program's —
// and the report says so (spec §4: "names from user-supplied map").
func TestUserSuppliedNameMap(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "allreduce.json")
	write(t, m, `{"level": 2, "orchestrator_name": null, "callable_id_to_name": {"0": "barrier_spin"}}`)
	r, err := readWith(t, seed, "allreduce="+m)
	if err != nil {
		t.Fatal(err)
	}
	n := r.names()
	// func_id 1 is absent from the map: anonymous, never the table's name
	// nor the other program's.
	if n["allreduce"]["barrier_spin"] != 2 || n["allreduce"]["allreduce:#1"] != 2 || n["allreduce"]["cross_card_wait"] != 0 || n["allreduce"]["rms_norm"] != 0 {
		t.Errorf("got allreduce kernels %v, want barrier_spin 2, allreduce:#1 2", n["allreduce"])
	}
	if n["decode"]["rms_norm"] != 4 || n["decode"]["barrier_spin"] != 0 {
		t.Errorf("got decode kernels %v, want rms_norm 4 (the map is allreduce's only)", n["decode"])
	}
	items := userItems(r.c)
	if !strings.Contains(items, "names from user-supplied map "+m) || !strings.Contains(items, "differs from its kernel_config.py") {
		t.Errorf("got user_name_map note %q, want it to name map %s and that it differs from kernel_config.py", items, m)
	}
	if !r.c.Accounting.Find(UserNameMap).Note {
		t.Error("user_name_map: got not a note, want a note")
	}
	var absent bool
	for _, it := range r.c.Accounting.Find(capture.UnresolvedName).Items {
		absent = absent || strings.Contains(it.What, "absent from the user-supplied map")
	}
	if !absent {
		t.Error("got the id missing from the map not said to be missing from it, want it said")
	}

	// A marker naming a program the build lacks resolves by the user's map.
	root := variant(t, func(root string) {
		write(t, filepath.Join(root, "dfx_outputs/rank1/d1/dispatch_program.json"), `{"program": "moe"}`)
	})
	write(t, filepath.Join(dir, "moe.json"), `{"level": 2, "callable_id_to_name": {"0": "moe_gate", "1": "moe_combine"}}`)
	r, err = readWith(t, root, "moe="+filepath.Join(dir, "moe.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := r.names()["moe"]; n["moe_gate"]+n["moe_combine"] == 0 || gapCount(r.c, UnresolvedProgram) != 0 {
		t.Errorf("got moe kernels %v, unresolved %d; want moe_gate or moe_combine, 0", n, gapCount(r.c, UnresolvedProgram))
	}
	// Without the map, the same dispatch is unresolved.
	r, _ = readWith(t, root)
	if gapCount(r.c, UnresolvedProgram) != 1 || userItems(r.c) != "" {
		t.Errorf("without --name-map: got unresolved %d, note %q; want 1 and none", gapCount(r.c, UnresolvedProgram), userItems(r.c))
	}
	// A map no dispatch used says so.
	r, _ = readWith(t, seed, "moe="+filepath.Join(dir, "moe.json"))
	if !strings.Contains(userItems(r.c), "not used: no dispatch of this program was read") {
		t.Errorf("unused map: got %q, want not used: no dispatch of this program was read", userItems(r.c))
	}
}

// A map the user asked for that cannot be used is an error naming it.
func TestUserNameMapErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	write(t, good, `{"level": 2, "callable_id_to_name": {"0": "x"}}`)
	l3 := filepath.Join(dir, "l3.json")
	write(t, l3, `{"level": 3, "callable_id_to_name": {"0": "x"}}`)
	badKey := filepath.Join(dir, "key.json")
	write(t, badKey, `{"level": 2, "callable_id_to_name": {"zero": "x"}}`)
	cut := filepath.Join(dir, "cut.json")
	write(t, cut, `{"level": 2, "callable_id_to_`)
	for _, c := range []struct {
		maps []string
		want string
	}{
		{[]string{"allreduce"}, "PROGRAM=FILE"},
		{[]string{"=" + good}, "PROGRAM=FILE"},
		{[]string{"allreduce=" + l3}, "level-3"},
		{[]string{"allreduce=" + badKey}, `key "zero"`},
		{[]string{"allreduce=" + cut}, cut},
		{[]string{"allreduce=" + filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"allreduce=" + good, "allreduce=" + good}, "second name map"},
	} {
		_, err := readWith(t, seed, c.maps...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.maps, err, c.want)
		}
	}
	if _, err := os.Stat(good); err != nil {
		t.Fatal(err)
	}
}
