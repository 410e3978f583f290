package format

import (
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// Option is a setting of Options that only some readers use, named as the
// command line spells its flag. Each reader lists the ones it reads in
// Format.Uses, so that a run can say when one was given and no input's
// reader used it (UnusedOption) instead of dropping it without a word.
//
// The settings ReadPath applies for every reader are no reader's to list:
// ProgramBy (done for a reader that does not implement a value,
// programby.go), MaxDuration (capture.Checked's ceiling on every dispatch)
// and Watch.
type Option string

// The reader options.
const (
	// OptManifests is Options.Manifests (and Catalog, which replaces it).
	OptManifests Option = "manifests"
	// OptNameMap is Options.NameMaps.
	OptNameMap Option = "name-map"
	// OptUnrecordedWait is Options.UnrecordedWait.
	OptUnrecordedWait Option = "unrecorded-wait"
	// OptSpillLimit is Options.SpillLimit.
	OptSpillLimit Option = "spill-limit"
	// OptOps is Options.Ops (tally report --by op, export --per-op). A run
	// does not state it unused: the op table says of each capture that its
	// format records no host ops (render.NoOpSource).
	OptOps Option = "ops"
)

// ReaderOptions lists every Option, in the order notes name them.
var ReaderOptions = []Option{OptManifests, OptNameMap, OptUnrecordedWait, OptSpillLimit, OptOps}

// UnusedOption (a note) is a reader option given for a run none of whose
// inputs was read by a reader that uses it: it changed nothing, and the
// report says so rather than let the user believe, say, that their
// manifests named the kernels.
const UnusedOption capture.Kind = "unused_option"

func init() { capture.RegisterNote(UnusedOption) }

// Given is an Option set in Options, with its value as a note shows it.
type Given struct {
	Option Option
	Value  string
}

// Flag is the option as the command line spells it: "--manifests".
func (o Option) Flag() string { return "--" + string(o) }

// Given lists the Options set in o (not Ops: see OptOps), in ReaderOptions
// order.
func (o *Options) Given() []Given {
	if o == nil {
		return nil
	}
	var out []Given
	switch {
	case o.Catalog != nil:
		out = append(out, Given{OptManifests, o.Catalog.Describe()})
	case len(o.Manifests) > 0:
		out = append(out, Given{OptManifests, strings.Join(o.Manifests, " ")})
	}
	if len(o.NameMaps) > 0 {
		out = append(out, Given{OptNameMap, strings.Join(o.NameMaps, " ")})
	}
	if o.UnrecordedWait > 0 {
		out = append(out, Given{OptUnrecordedWait, o.UnrecordedWait.String()})
	}
	if o.SpillLimit > 0 {
		out = append(out, Given{OptSpillLimit, sizeText(o.SpillLimit)})
	}
	return out
}

// Users are the names of the registered readers that list opt in
// Format.Uses, sorted.
func Users(opt Option) []string {
	var out []string
	for _, f := range Formats() {
		if slices.Contains(f.Uses, opt) {
			out = append(out, f.Name)
		}
	}
	return out
}

// Uses reports whether the reader named name (a capture's Source.Format)
// lists opt.
func Uses(name string, opt Option) bool {
	f, ok := Lookup(name)
	return ok && slices.Contains(f.Uses, opt)
}
