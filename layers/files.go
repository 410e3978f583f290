package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// layerOf returns the layer number a file name holds, if it matches.
func (p *pattern) layerOf(name string) (int64, bool) {
	m := p.re.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	for _, g := range m[1:] {
		if g != "" {
			v, err := strconv.ParseInt(g, 10, 64)
			return v, err == nil && v >= -1 && v < 1<<20
		}
	}
	return 0, false
}

// listing is one side's files by layer.
type listing struct {
	arg   string
	files map[int64][]string // more than one file for a layer is malformed
	count int
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
	for _, path := range paths {
		n, ok := p.layerOf(filepath.Base(path))
		if !ok {
			continue
		}
		l.files[n] = append(l.files[n], path)
		l.count++
	}
	if l.count == 0 {
		return nil, fmt.Errorf("%s: no file matches %q (name the files with --map REF_PATTERN=OURS_PATTERN, e.g. --map 'blocks.{l}.npy=layer_{l}.f32')", arg, p.src)
	}
	for _, fs := range l.files {
		sort.Strings(fs)
	}
	return l, nil
}
