package layers

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// DefaultPattern names the engine's dumps (layer_<l>.f32) and a reference
// saved the same way with NumPy (layer_<l>.npy).
const DefaultPattern = "layer_{l}.f32|layer_{l}.npy"

// pattern matches file names holding a layer number at {l}.
type pattern struct {
	src string
	re  *regexp.Regexp
}

// compilePattern turns "blocks.{l}.npy" (alternatives joined by '|') into a
// name matcher: literal text, {l} the layer number (may be negative: -1 is
// the embedding row), * any text.
func compilePattern(p string) (*pattern, error) {
	var alts []string
	for _, alt := range strings.Split(p, "|") {
		if strings.Count(alt, "{l}") != 1 {
			return nil, fmt.Errorf("file pattern %q: each alternative needs exactly one {l} (the layer number)", alt)
		}
		var b strings.Builder
		for i, part := range strings.Split(alt, "{l}") {
			if i > 0 {
				b.WriteString(`(-?[0-9]+)`)
			}
			lits := strings.Split(part, "*")
			for j, lit := range lits {
				if j > 0 {
					b.WriteString(".*")
				}
				b.WriteString(regexp.QuoteMeta(lit))
			}
		}
		alts = append(alts, "(?:"+b.String()+")")
	}
	re, err := regexp.Compile("^(?:" + strings.Join(alts, "|") + ")$")
	if err != nil {
		return nil, err
	}
	return &pattern{src: p, re: re}, nil
}

// maxLayer bounds a layer number: beyond it a name is no layer's.
const maxLayer = 1 << 20

// layerOf returns the layer number a file name holds, if it matches. A
// name that matches with a number out of range (layer_-2.f32,
// layer_99999999999999999999.f32) is unusable: problem says why, so the
// file is named in the report rather than dropped as if it were not there.
func (p *pattern) layerOf(name string) (l int64, ok bool, problem string) {
	m := p.re.FindStringSubmatch(name)
	if m == nil {
		return 0, false, ""
	}
	for _, g := range m[1:] {
		if g != "" {
			v, err := strconv.ParseInt(g, 10, 64)
			if err != nil || v < -1 || v >= maxLayer {
				return 0, false, fmt.Sprintf("layer number %s is out of range (-1 to %d)", g, maxLayer-1)
			}
			return v, true, ""
		}
	}
	return 0, false, ""
}

// listing is one side's files by layer.
type listing struct {
	arg   string
	files map[int64][]string // more than one file for a layer is malformed
	count int
	// unusable are files whose names match the pattern with a layer
	// number out of range.
	unusable []Unusable
}

// Unusable is a file whose name matches a side's pattern but names no
// layer tally layers can pair: it is reported, and --strict fails on it.
type Unusable struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
}

// list finds one side's layer files: arg is a directory, a file, or a
// comma-separated list of files.
func list(arg string, p *pattern) (*listing, error) {
	l := &listing{arg: arg, files: map[int64][]string{}}
	var paths []string
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		ents, err := os.ReadDir(arg)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !e.IsDir() {
				paths = append(paths, filepath.Join(arg, e.Name()))
			} else if _, ok, _ := p.layerOf(e.Name()); ok {
				// Named as a layer's dump: not passed over in silence.
				l.unusable = append(l.unusable, Unusable{filepath.Join(arg, e.Name()), "a directory, not a dump file: the layer's dump is not read"})
			}
		}
	} else {
		for _, f := range strings.Split(arg, ",") {
			if f == "" {
				continue
			}
			if _, err := os.Stat(f); err != nil {
				return nil, err
			}
			paths = append(paths, f)
		}
	}
	have := map[string]bool{}
	for _, path := range paths {
		have[path] = true
	}
	lone := map[int64]string{} // sidecars without their .f32, by layer
	for _, path := range paths {
		if data, ok := strings.CutSuffix(path, ".json"); ok && !have[data+".f32"] {
			if n, ok, _ := p.layerOf(filepath.Base(data + ".f32")); ok {
				lone[n] = path
				continue
			}
		}
		n, ok, problem := p.layerOf(filepath.Base(path))
		if problem != "" {
			l.unusable = append(l.unusable, Unusable{path, problem})
		}
		if !ok {
			continue
		}
		l.files[n] = append(l.files[n], path)
		l.count++
	}
	// A sidecar states a .f32 dump's shape: without its data file, and
	// with no other file for its layer, the dump was not (or not wholly)
	// written — not a layer that never ran.
	for _, n := range slices.Sorted(maps.Keys(lone)) {
		if len(l.files[n]) == 0 {
			l.unusable = append(l.unusable, Unusable{lone[n], fmt.Sprintf("the sidecar of layer %d without its data file %s: the dump was not written", n, strings.TrimSuffix(filepath.Base(lone[n]), ".json")+".f32")})
		}
	}
	if l.count == 0 && len(l.unusable) == 0 {
		return nil, fmt.Errorf("%s: no file matches %q (name the files with --map REF_PATTERN=OURS_PATTERN, e.g. --map 'blocks.{l}.npy=layer_{l}.f32')", arg, p.src)
	}
	for _, fs := range l.files {
		sort.Strings(fs)
	}
	return l, nil
}
