package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/layers"
)

const layersSynopsis = `Usage: tally layers [flags] REF OURS

Compares per-layer tensors layer by layer: REF and OURS are directories (or a file, or a
comma-separated list of files) holding raw float32 dumps layer_<l>.f32 (with an optional
layer_<l>.json sidecar giving their shape) or NumPy .npy files. Prints cosine, max |diff|,
relative L2 and per-row cosine minimum per layer, NaN/Inf counts per side, the layer where
agreement steps down, and every layer not written or malformed (docs/layers.md).

Flags:
`

func cmdLayers(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("layers", layersSynopsis, stderr)
	// Its own exit statement: the findings, not a capture's gaps, set it.
	fs.Usage = func() {
		io.WriteString(stderr, layersSynopsis)
		fs.PrintDefaults()
		writeExamples(stderr, "layers")
		io.WriteString(stderr, "\nExit status: 0 written; 1 --strict and a finding (a layer not written, malformed, unmeasured,\nwith NaN/Inf, with no agreement left or disagreeing with the log; an unusable file; a step change:\ndocs/layers.md lists them); 2 usage or input error, or nothing compared (no layer with a file on\nboth sides that could be read, e.g. a --hidden that fits none of the dumps).\n")
	}
	var hidden int64
	fs.Func("hidden", "row width `H` of raw dumps without a sidecar (0: from .npy shapes or sidecars, else compared as flat vectors)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("give a row width in elements, or 0 (from shapes and sidecars)")
		}
		hidden = n
		return nil
	})
	mapping := fs.String("map", "", "file names as `REF_PATTERN=OURS_PATTERN`, {l} the layer number, * any text (default "+layers.DefaultPattern+" on both sides)")
	logPath := fs.String("log", "", "engine `LOG` (raw or kept) whose [L] lines are compared with row 0 of each of OURS's dumps")
	asJSON := fs.Bool("json", false, "write JSON (schema "+layers.Schema+", see docs/layers.md)")
	strict := fs.Bool("strict", false, "exit 1 on any finding: a layer not written, malformed, unmeasured, with NaN/Inf, with no agreement left or disagreeing with the log, an unusable file, or a step change")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	pos, code, ok := parseArgs(fs, args, 2, "give REF and OURS")
	if !ok {
		return code
	}
	if err := outputsClash([]string{*out}, append(layerFiles(pos[0], pos[1]), *logPath)); err != nil {
		return usageError(fs, "%v", err)
	}
	rep, err := layers.Run(pos[0], pos[1], layers.Options{Hidden: hidden, Map: *mapping, Log: *logPath})
	if err != nil {
		safetext.Fprintf(stderr, "tally layers: %v\n", err)
		return exitcode.Error
	}
	err = writeOutput(*out, stdout, func(w io.Writer) error {
		if *asJSON {
			return rep.WriteJSON(w)
		}
		return rep.WriteText(w)
	})
	if err != nil {
		safetext.Fprintf(stderr, "tally layers: %v\n", err)
		return exitcode.Error
	}
	if rep.NothingCompared != "" {
		// A comparison of nothing must not read as agreement, with or
		// without --strict; the reason goes where the user looks too
		// when the report went to -o or to a script as JSON.
		fmt.Fprintf(stderr, "tally layers: nothing compared: %s\n", rep.NothingCompared)
		return exitcode.Error
	}
	if *strict && rep.Findings() {
		return exitcode.Failed
	}
	return exitcode.OK
}
