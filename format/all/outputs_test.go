package all

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/cli"
	"github.com/tallyprof/tally/internal/exportcmd"
)

// Every output of the command line states the same accounting as tally
// report --json, for every reader's promise fixture and every damaged arm
// of it: the text report, --strict's exit status, the HTML page, both
// timeline formats' metadata, the csv and jsonl exports' tables and gaps
// files, and tally diff of the arm against the base (text and JSON).

// The command line as tally-full runs it: every engine linked (format/all
// links SQLite), the export package as its Exporter.
func init() { cli.Exporter = exportcmd.Run }

// tallyRun runs the command line in process.
func tallyRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = cli.Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// outputArm is one input of a fixture, by arm name.
type outputArm struct {
	name string
	make func(t *testing.T, dir string) string
}

func fixtureArms(fx promiseFixture) []outputArm {
	arms := []outputArm{{"base", fx.base}, {"unreadable", fx.unreadable}, {"impossible", fx.impossible}}
	if fx.repeated != nil {
		arms = append(arms, outputArm{"repeated", fx.repeated})
	}
	return append(arms, outputArm{"cut", fx.cut})
}

func TestOutputsAgree(t *testing.T) { eachArm(t, checkOutputsAgree, checkRefusedEverywhere) }

// eachArm runs agree on every reader's fixture and arm (input in, its
// base, an empty directory out for the outputs; flags the fixture's
// manifests), and refused instead on a cut input the reader refuses.
// -short: the base, unreadable and cut arms only.
func eachArm(t *testing.T, agree, refused func(t *testing.T, flags []string, base, in, out string)) {
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		var flags []string
		if fx.opts != nil {
			for _, m := range fx.opts.Manifests {
				flags = append(flags, "--manifests", m)
			}
		}
		dir := t.TempDir()
		base := fx.base(t, subdir(t, dir, "base"))
		for i, arm := range fixtureArms(fx) {
			if testing.Short() && i > 1 && arm.name != "cut" {
				continue
			}
			t.Run(arm.name, func(t *testing.T) {
				out := subdir(t, dir, arm.name+"-out")
				in := base
				if arm.name != "base" {
					in = arm.make(t, subdir(t, dir, arm.name))
				}
				if arm.name == "cut" && fx.cutIsError {
					refused(t, flags, base, in, out)
					return
				}
				agree(t, flags, base, in, out)
			})
		}
	})
}

// Real traces with what the fixtures lack: unfinished dispatches and a
// device fault (an hrx kept trace), a gap whose device time is known (a
// Kineto trace missing its GPU annotations' share). Each is diffed
// against itself.
func TestOutputsAgreeRealTraces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		path  string
	}{
		{"hrx-decode-fault", []string{"--manifests", "../../examples/kernels"}, "../../examples/decode-fault.kept"},
		{"kineto-qwen", nil, "../kineto/testdata/tracelens__h100_qwen1.5-0.5b.json.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOutputsAgree(t, tc.flags, tc.path, tc.path, t.TempDir())
		})
	}
}

// reportJSON runs args (tally report --json of an input) and returns the
// document, its accounting, and the exit codes every output of that input
// must end with, without and with --strict. An empty capture (no dispatch
// at all) is exit 2 with every output written; its empty_capture gap is
// compared as any other.
func reportJSON(t *testing.T, args []string) (js string, want accountingView, okCode, strictCode int) {
	t.Helper()
	code, js, errOut := tallyRun(args...)
	want = viewJSON(t, js)
	if want.gaps["empty_capture"] > 0 {
		okCode = 2
	}
	if code != okCode {
		t.Fatalf("report --json: exit %d, want %d: %s", code, okCode, errOut)
	}
	strictCode = map[string]int{"complete": 0, "incomplete": 1}[want.verdict]
	if okCode != 0 {
		strictCode = okCode
	}
	return js, want, okCode, strictCode
}

// checkOutputsAgree runs every output of in (flags before it) into dir and
// compares each with tally report --json.
func checkOutputsAgree(t *testing.T, flags []string, base, in, dir string) {
	cmd := func(args ...string) []string { return append(append(args, flags...), in) }
	_, want, okCode, strictCode := reportJSON(t, cmd("report", "--json"))
	compare := func(what string, got accountingView) {
		t.Helper()
		for _, d := range got.disagreements(want) {
			t.Errorf("%s: %s", what, d)
		}
	}

	_, text, _ := tallyRun(cmd("report")...)
	tv := viewText(t, text)
	compare("report (text)", tv)
	// The reader's words: how much the gaps touch, in the verdict and
	// under each gap.
	clause := ""
	if i := strings.Index(tv.sentence, " — "); i >= 0 {
		clause, _, _ = strings.Cut(tv.sentence[i+len(" — "):], ". What they list")
	}
	if (clause == "") != (want.verdict == "complete") {
		t.Errorf("text verdict %q: want the figure of what the gaps touch exactly when incomplete (%s)", tv.sentence, want.verdict)
	}

	code, _, _ := tallyRun(cmd("report", "--strict")...)
	if code != strictCode {
		t.Errorf("report --strict: exit %d, want %d (the JSON says %s)", code, strictCode, want.verdict)
	}

	page := filepath.Join(dir, "r.html")
	if code, _, errOut := tallyRun(cmd("report", "--html", page)...); code != okCode {
		t.Fatalf("report --html: got exit %d: %s; want %d", code, errOut, okCode)
	}
	hv := viewHTML(t, readOut(t, page))
	compare("report --html", hv)
	// The text says where it listed program gaps; the page has them under
	// their program too, and says nothing.
	textSentence := listedAbove.ReplaceAllString(tv.sentence, "")
	// An empty page's headline says so first.
	htmlSentence := hv.sentence
	if i := strings.LastIndex(htmlSentence, ". INCOMPLETE: "); want.empty == 1 && strings.HasPrefix(htmlSentence, "NO DISPATCH RECORDED: ") && i > 0 {
		htmlSentence = htmlSentence[i+len(". "):]
	}
	if htmlSentence != textSentence || !slices.Equal(hv.touchLines, tv.touchLines) {
		t.Errorf("report --html: verdict %q, touches %q; want the text report's %q, %q", hv.sentence, hv.touchLines, tv.sentence, tv.touchLines)
	}

	for _, name := range []string{"t.json", "t.perfetto-trace"} {
		path := filepath.Join(dir, name)
		if code, _, errOut := tallyRun(cmd("timeline", "-o", path)...); code != okCode {
			t.Fatalf("timeline -o %s: got exit %d: %s; want %d", name, code, errOut, okCode)
		}
		var meta map[string]any
		if strings.HasSuffix(name, ".json") {
			meta = chromeMeta(t, readOut(t, path))
		} else {
			meta = perfettoMeta(t, readOut(t, path))
		}
		checkTimeline(t, "timeline "+name, meta, want)
		if in0, _ := meta["tally_input_0"].(string); !strings.Contains(in0, clause) {
			t.Errorf("timeline %s: input verdict %q, want the text report's figure %q", name, in0, clause)
		}
	}

	for _, to := range []string{"csv", "jsonl"} {
		path := filepath.Join(dir, "e."+to)
		code, _, errOut := tallyRun(cmd("export", "--to", to, "--strict", "-o", path)...)
		if code != strictCode {
			t.Errorf("export --to %s --strict: exit %d, want %d (the JSON says %s): %s", to, code, strictCode, want.verdict, errOut)
		}
		table, gaps := readOut(t, path), readOut(t, path+".gaps."+to)
		if to == "csv" {
			compare("export csv", viewExportCSV(t, table, gaps))
		} else {
			compare("export jsonl", viewExportJSONL(t, table, gaps))
		}
	}

	baseFlags := append(append([]string{}, flags...), base)
	_, dtext, _ := tallyRun(append(append([]string{"diff"}, baseFlags...), in)...)
	compare("diff (text) side B", viewDiffText(t, dtext))
	if clause != "" && !strings.Contains(dtext, "   the gaps touch: "+clause+"\n") {
		t.Errorf("diff (text): side B: want \"the gaps touch: %s\", got:\n%.2000s", clause, dtext)
	}
	code, djs, errOut := tallyRun(append(append([]string{"diff", "--json"}, baseFlags...), in)...)
	if code != okCode {
		t.Fatalf("diff --json: got exit %d: %s; want %d", code, errOut, okCode)
	}
	compare("diff --json side B", viewDiffJSON(t, djs))
}

// checkTimeline compares a timeline's metadata with the JSON report: the
// verdict (a timeline that draws less than the capture holds is
// incomplete for that reason too), every gap and note kind with its count,
// and the dispatches drawn plus those it says it did not draw.
func checkTimeline(t *testing.T, what string, meta map[string]any, want accountingView) {
	t.Helper()
	got, kinds, notDrawn := viewTimelineMeta(meta)
	wantVerdict := want.verdict
	if notDrawn > 0 {
		wantVerdict = "incomplete"
	}
	if got.verdict != wantVerdict {
		t.Errorf("%s: verdict %q, want %s (not drawn: %d)", what, meta["tally_verdict"], wantVerdict, notDrawn)
	}
	wantKinds := map[string]int64{}
	for k, n := range want.gaps {
		wantKinds[k] = n
	}
	for k, n := range want.notes {
		wantKinds[k] += n
	}
	for k, n := range kinds {
		if n == 0 {
			delete(kinds, k)
		}
	}
	if !mapsEqual(kinds, wantKinds) {
		t.Errorf("%s: tally_gap_* %v, want %v", what, kinds, wantKinds)
	}
	// Unfinished dispatches are drawn to the capture's end, or counted in
	// the input's verdict as not drawn.
	unfin := int64(-1)
	if n, ok := meta["tally_unfinished"].(int64); ok {
		unfin = n
	} else if n, ok := meta["tally_unfinished"].(float64); ok {
		unfin = int64(n)
	}
	in0, _ := meta["tally_input_0"].(string)
	if m := unfinishedNotDrawn.FindStringSubmatch(in0); m != nil {
		unfin += atoi(m[1])
	}
	if unfin != want.unfinished {
		t.Errorf("%s: %v unfinished drawn, input %q: %d in all, want %d", what, meta["tally_unfinished"], in0, unfin, want.unfinished)
	}
	if got.dispatches+notDrawn != want.dispatches {
		t.Errorf("%s: %d slices drawn + %d not drawn, want %d dispatches", what, got.dispatches, notDrawn, want.dispatches)
	}
}

var listedAbove = regexp.MustCompile(` \(\d+ listed under their programs? above\)$`)

var unfinishedNotDrawn = regexp.MustCompile(`unfinished_not_drawn (\d+)`)

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// checkRefusedEverywhere: an input refused with an error (a database cut
// at a page boundary) is refused by every command, never reported as
// empty or complete.
func checkRefusedEverywhere(t *testing.T, flags []string, base, in, dir string) {
	cmd := func(args ...string) []string { return append(append(args, flags...), in) }
	for _, args := range [][]string{
		cmd("report"), cmd("report", "--json"), cmd("report", "--html", filepath.Join(dir, "r.html")),
		cmd("export", "--to", "csv", "-o", filepath.Join(dir, "e.csv")),
		append(append([]string{"diff"}, append(append([]string{}, flags...), base)...), in),
	} {
		if code, _, errOut := tallyRun(args...); code != 2 || errOut == "" {
			t.Errorf("tally %s: exit %d (%q), want 2 and why", strings.Join(args[:2], " "), code, errOut)
		}
	}
	path := filepath.Join(dir, "t.json")
	// Its only input failed: exit 2, as tally report, the file written.
	code, _, errOut := tallyRun(cmd("timeline", "-o", path)...)
	if code != 2 {
		t.Fatalf("timeline: exit %d, want 2: %s", code, errOut)
	}
	meta := chromeMeta(t, readOut(t, path))
	if v, _ := meta["tally_verdict"].(string); !strings.HasPrefix(v, "incomplete") || meta["tally_failed_inputs"] != float64(1) {
		t.Errorf("timeline of a refused input: verdict %q, failed inputs %v, want incomplete and 1", v, meta["tally_failed_inputs"])
	}
}

func readOut(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
