package all

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Every registered reader says which reader options it reads
// (Format.Uses): the run states an option none of its inputs' readers
// uses (unused_option), so a reader left out of the list would have its
// option called unused, and a reader listing an option it ignores would
// hide that it was.
func TestReadersDeclareUses(t *testing.T) {
	for _, f := range format.Formats() {
		if f.Uses == nil {
			t.Errorf("reader %s: got Uses nil, want the options it reads listed (an empty list when none)", f.Name)
		}
		for i, o := range f.Uses {
			if !slices.Contains(format.ReaderOptions, o) || slices.Contains(f.Uses[:i], o) {
				t.Errorf("reader %s: got Uses %v, want each of format.ReaderOptions at most once", f.Name, f.Uses)
			}
		}
	}
}

// usesUntested are the (reader, option) pairs no small input shows a
// change for, and where their reader's own test does.
var usesUntested = map[[2]string]string{
	{"kineto", string(format.OptSpillLimit)}: "the dispatch log spills past 8 MiB of records only: format/kineto TestSpillLimit",
}

// usesInputs are inputs for the (reader, option) pairs the promise base
// inputs do not exercise.
var usesInputs = map[[2]string]func(t *testing.T, dir string) string{
	// Kernel 1 starts 6 µs after its launch call ended, on an idle
	// device: unrecorded device work at a 1 ns threshold, not at 1 ms.
	{"kineto", string(format.OptUnrecordedWait)}: func(t *testing.T, dir string) string {
		tr := newKinetoTrace(false)
		tr.kernels[1][1] = tr.kernels[1][1][:len(tr.kernels[1][1])-1] + "9"
		return tr.write(t, dir, tr.doc(tr.events(nil, -1), false))
	},
}

// On every reader's promise base input, set one reader option at a time:
// a reader that does not list it reads the same capture and dispatches,
// to the byte; a reader that lists it reads another (on one of its
// fixtures at least) — unless usesUntested says why not.
func TestReadersUseWhatTheyDeclare(t *testing.T) {
	changed := map[[2]string]bool{}
	try := func(t *testing.T, reader, in string, fxOpts *format.Options, opt format.Option) {
		t.Helper()
		f, _ := format.Lookup(reader)
		without, with := optionPair(t, t.TempDir(), fxOpts, opt)
		if readPrint(t, in, without) == readPrint(t, in, with) {
			return
		}
		changed[[2]string{reader, string(opt)}] = true
		if !slices.Contains(f.Uses, opt) {
			t.Errorf("%s: %s changes what it reads, got Uses %v: want %s listed", reader, opt.Flag(), f.Uses, opt)
		}
	}
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		base := fx.base(t, t.TempDir())
		for _, opt := range format.ReaderOptions {
			try(t, reader, base, fx.opts, opt)
		}
	})
	for key, in := range usesInputs {
		try(t, key[0], in(t, t.TempDir()), nil, format.Option(key[1]))
	}
	for _, f := range format.Formats() {
		for _, opt := range f.Uses {
			key := [2]string{f.Name, string(opt)}
			if !changed[key] && usesUntested[key] == "" {
				t.Errorf("%s lists %s in Uses: got no input read differently with it, want one (usesInputs), or a usesUntested reason", f.Name, opt)
			}
		}
	}
}

// optionPair is the fixture's options without opt and with it set to a
// value any reader that reads it acts on.
func optionPair(t *testing.T, dir string, fxOpts *format.Options, opt format.Option) (without, with *format.Options) {
	t.Helper()
	var o format.Options
	if fxOpts != nil {
		o = *fxOpts
	}
	without, with = &o, new(format.Options)
	*with = o
	switch opt {
	case format.OptManifests:
		without.Manifests, without.Catalog = nil, nil
		with.Manifests = []string{"../../testdata/hrx/manifest.json"}
	case format.OptNameMap:
		m := fixture.Write(t, dir, "map/name_map.json", []byte(`{"level": 2, "callable_id_to_name": {"0": "user_rms_norm", "1": "user_matmul"}}`))
		without.NameMaps, with.NameMaps = nil, []string{"decode=" + m}
	case format.OptUnrecordedWait:
		without.UnrecordedWait, with.UnrecordedWait = 0, time.Nanosecond
	case format.OptSpillLimit:
		without.SpillLimit, with.SpillLimit = 0, 1
	case format.OptOps:
		without.Ops, with.Ops = false, true
	default:
		t.Fatalf("option %s: got no value to set, want optionPair to set every format.ReaderOptions", opt)
	}
	return without, with
}

// readPrint is the capture and the dispatches read from path, as JSON.
func readPrint(t *testing.T, path string, opts *format.Options) string {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadPath(path, "", opts, &col)
	if err != nil {
		t.Fatalf("%s: got error %v, want a capture", path, err)
	}
	b, err := json.Marshal(struct {
		C *capture.Capture
		D []capture.Dispatch
	}{c, col.Dispatches})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
