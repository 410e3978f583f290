package cli

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Complete Kineto traces: a reader that uses none of --manifests and
// --name-map.
const (
	kinetoA = "../../format/kineto/testdata/hta__triton_example.json.gz"
	kinetoB = "../../format/kineto/testdata/hta__cuda_event_sync.json.gz"
)

// everyOutput runs every output of tally on ins with flags, and returns
// what each wrote, by name: the text and JSON reports, inspect (of one
// input), the HTML page, both timelines, every export and the diff (text
// and JSON) of ins against themselves.
func everyOutput(t *testing.T, flags []string, ins ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	run := func(name string, args ...string) string {
		t.Helper()
		code, stdout, errOut := tally(append(args, flags...)...)
		if code != 0 {
			t.Fatalf("%s: tally %s: got exit %d: %s, want 0", name, strings.Join(args, " "), code, errOut)
		}
		return stdout
	}
	file := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	out["text"] = run("text", append([]string{"report"}, ins...)...)
	out["json"] = run("json", append([]string{"report", "--json"}, ins...)...)
	if len(ins) == 1 {
		out["inspect"] = run("inspect", "inspect", ins[0])
		out["inspect json"] = run("inspect json", "inspect", "--json", ins[0])
	}
	html := filepath.Join(dir, "page.html")
	run("html", append([]string{"report", "--html", html}, ins...)...)
	out["html"] = file(html)
	for _, name := range []string{"t.perfetto-trace", "t.json"} {
		p := filepath.Join(dir, name)
		run(name, append([]string{"timeline", "-o", p}, ins...)...)
		out["timeline "+name] = file(p)
	}
	for _, to := range []string{"csv", "jsonl", "pprof", "kineto", "parquet"} {
		p := filepath.Join(dir, "e-"+to)
		if to == "kineto" && len(ins) == 1 {
			p += ".json" // a file TraceLens loads; a directory for several
		}
		run(to, append([]string{"export", "--to", to, "-o", p}, ins...)...)
		switch to {
		case "csv", "jsonl":
			out["export "+to] = file(p + ".gaps." + to)
		case "pprof":
			zr, err := gzip.NewReader(strings.NewReader(file(p)))
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			out["export pprof"] = string(b)
		case "kineto":
			if len(ins) == 1 {
				out["export kineto"] = file(p)
			} else {
				out["export kineto"] = file(filepath.Join(p, "_tally_export.json"))
			}
		case "parquet":
			out["export parquet"] = file(filepath.Join(p, "gaps.parquet"))
		}
	}
	side := []string{ins[0], ins[0]} // A B
	if len(ins) > 1 {
		side = append(append(append([]string(nil), ins...), "--"), ins...) // A1 A2 -- B1 B2
	}
	out["diff"] = run("diff", append([]string{"diff"}, side...)...)
	out["diff json"] = run("diff json", append([]string{"diff", "--json"}, side...)...)
	return out
}

// --manifests and --name-map given for Kineto traces, which no reader of
// theirs uses, are a note in every output, of the one input or of the
// whole run; the text and JSON reports name the option, its value and
// the readers that use it. An option one input's reader uses (hrx-serial's
// --manifests beside a Kineto trace), or none given, is no note anywhere.
func TestUnusedOptionEveryOutput(t *testing.T) {
	nameMap := writeFile(t, t.TempDir(), "name_map.json", `{"level": 2, "callable_id_to_name": {"0": "k"}}`)
	flags := []string{"--manifests", kernels, "--name-map", "decode=" + nameMap}
	for _, tc := range []struct {
		name string
		ins  []string
		read string
	}{
		{"one input", []string{kinetoA}, "1 input read by kineto"},
		{"two inputs", []string{kinetoA, kinetoB}, "2 inputs read by kineto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := everyOutput(t, flags, tc.ins...)
			for name, o := range outs {
				if !strings.Contains(o, "unused_option") {
					t.Errorf("%s: got no unused_option note, want one", name)
				}
			}
			containsAll(t, "text report", outs["text"], "COMPLETE: every input unit is accounted for and no gap was found (1 note)",
				"note unused_option (2): --manifests, --name-map: options given that no input's reader uses",
				"    - --manifests "+kernels+": no input was read by a reader that uses it (hrx-serial); "+tc.read+"\n",
				"    - --name-map decode="+nameMap+": no input was read by a reader that uses it (swimlane); "+tc.read+"\n")
			if len(tc.ins) > 1 {
				// The run's own gap, item by item, no empty "()" of a where.
				containsAll(t, "diff", outs["diff"], "A: note unused_option (2): --manifests, --name-map: ",
					"\n   - --manifests "+kernels+": no input was read by a reader that uses it (hrx-serial); "+tc.read+"\n")
			}
			var doc struct {
				Accounting struct {
					Complete bool `json:"complete"`
					Gaps     []struct {
						Kind  string `json:"kind"`
						Note  bool   `json:"note"`
						Count int    `json:"count"`
						Items []struct {
							What string `json:"what"`
						} `json:"items"`
					} `json:"gaps"`
				} `json:"accounting"`
			}
			decodeJSON(t, outs["json"], &doc)
			found := false
			for _, g := range doc.Accounting.Gaps {
				if g.Kind != "unused_option" {
					continue
				}
				found = true
				if !g.Note || g.Count != 2 || len(g.Items) != 2 || !strings.HasPrefix(g.Items[0].What, "--manifests "+kernels+": ") {
					t.Errorf("JSON: got unused_option %+v, want a note of 2 items, --manifests first", g)
				}
			}
			if !found || !doc.Accounting.Complete {
				t.Errorf("JSON accounting: got unused_option %v, complete %v; want the note and complete", found, doc.Accounting.Complete)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		flags []string
		ins   []string
	}{
		{"--manifests with an hrx trace among the inputs", []string{"--manifests", kernels}, []string{example, kinetoA}},
		{"no option given", nil, []string{kinetoA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, o := range everyOutput(t, tc.flags, tc.ins...) {
				if strings.Contains(o, "unused_option") {
					t.Errorf("%s: got an unused_option note, want none", name)
				}
			}
		})
	}
}

// The note never fails --strict: the exit status is the one without the
// option, complete (0) or not (1), for the report and the timeline.
func TestUnusedOptionStrict(t *testing.T) {
	seen := map[int]bool{}
	for _, ins := range [][]string{{kinetoA}, {kinetoA, kinetoB}, {example}, {example, kinetoA}} {
		for _, cmd := range [][]string{{"report", "--strict"}, {"timeline", "--strict", "-o", filepath.Join(t.TempDir(), "t.json")}} {
			args := append(append([]string(nil), cmd...), ins...)
			want, _, _ := tally(args...)
			seen[want] = true
			args = append(args, "--name-map", "p="+kernels+"/hrx/manifest.json")
			code, stdout, errOut := tally(args...)
			if code != want {
				t.Errorf("tally %s: got exit %d (%s), want %d, as without --name-map", strings.Join(args, " "), code, errOut, want)
			}
			if cmd[0] == "report" && !strings.Contains(stdout, "note unused_option (1)") {
				t.Errorf("tally %s: got no unused_option note, want one", strings.Join(args, " "))
			}
		}
	}
	if !seen[0] || !seen[1] {
		t.Errorf("got exits %v without the option, want both 0 and 1 among them", seen)
	}
}
