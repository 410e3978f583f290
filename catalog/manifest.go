package catalog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Entry is one catalogued kernel.
type Entry struct {
	Family   string
	Name     string
	Manifest string // path of the manifest it came from
}

// Label is the display form "family:name".
func (e Entry) Label() string { return e.Family + ":" + e.Name }

// Catalog maps kernel ids to names for one build. Load it from every
// manifest of the build that produced the trace; ids from other builds may
// name other kernels.
type Catalog struct {
	entries    map[uint64]Entry
	collisions map[uint64][]Entry
	// Manifests are the files read, in order.
	Manifests []string
	// Exports counts exports read; Duplicates the same (family, name) seen
	// again (target variants share an id); Skipped the exports not usable,
	// by reason.
	Exports    int
	Duplicates int
	Skipped    map[string]int
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{entries: map[uint64]Entry{}, collisions: map[uint64][]Entry{}, Skipped: map[string]int{}}
}

// Status is the outcome of a lookup.
type Status int

const (
	Found Status = iota
	NotFound
	Uncatalogued // id 0: the runtime's "no catalogued kernel"
	Collision    // two (family, name) pairs hash to this id: neither is used
)

// Lookup names an id.
func (c *Catalog) Lookup(id uint64) (Entry, Status) {
	if id == 0 {
		return Entry{}, Uncatalogued
	}
	if c == nil {
		return Entry{}, NotFound
	}
	if _, bad := c.collisions[id]; bad {
		return Entry{}, Collision
	}
	e, ok := c.entries[id]
	if !ok {
		return Entry{}, NotFound
	}
	return e, Found
}

// Len is the number of distinct ids catalogued.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.entries)
}

// Collisions lists ids that two different kernels hash to.
func (c *Catalog) Collisions() map[uint64][]Entry { return c.collisions }

// Add catalogues (family, name) from manifest.
func (c *Catalog) Add(family, name, manifest string) {
	id := ID(family, name)
	e := Entry{Family: family, Name: name, Manifest: manifest}
	if prev, bad := c.collisions[id]; bad {
		for _, p := range prev {
			if p.Family == family && p.Name == name {
				c.Duplicates++
				return
			}
		}
		c.collisions[id] = append(prev, e)
		return
	}
	if old, ok := c.entries[id]; ok {
		if old.Family == family && old.Name == name {
			c.Duplicates++
			return
		}
		c.collisions[id] = []Entry{old, e}
		delete(c.entries, id)
		return
	}
	c.entries[id] = e
}

type manifestFile struct {
	Schema  string            `json:"schema"`
	Exports []json.RawMessage `json:"exports"`
}

type export struct {
	Name   *string `json:"name"`
	Family *string `json:"family"`
}

// LoadManifest reads one manifest.json.
func (c *Catalog) LoadManifest(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return c.ParseManifest(data, path)
}

// ParseManifest adds the exports of a manifest.json held in memory; path
// names it in messages and in Manifests.
func (c *Catalog) ParseManifest(data []byte, path string) error {
	var m manifestFile
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: not a kernel manifest: %v", path, err)
	}
	if m.Exports == nil {
		return fmt.Errorf("%s: no \"exports\" array: is this a ggml-hrx kernel manifest.json?", path)
	}
	c.Manifests = append(c.Manifests, path)
	for _, raw := range m.Exports {
		var e export
		if err := json.Unmarshal(raw, &e); err != nil {
			c.Skipped["export is not an object"]++
			continue
		}
		switch {
		case e.Name == nil || *e.Name == "":
			c.Skipped["export without a name"]++
			continue
		case e.Family == nil || *e.Family == "":
			// The generator would assume qwen3_moe; a guessed family
			// would give a wrong id, so the export is not catalogued.
			c.Skipped["export without a family"]++
			continue
		}
		c.Exports++
		c.Add(*e.Family, *e.Name, path)
	}
	return nil
}

// LoadTSV reads extra "family<TAB>name" lines for kernels no manifest lists
// (hip, hrx_atom). Lines starting with '#' and a "family<TAB>name" header are
// ignored; a third column (an id) is checked against the hash.
func (c *Catalog) LoadTSV(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	c.Manifests = append(c.Manifests, path)
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "family\t") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 2 || cols[0] == "" || cols[1] == "" {
			return fmt.Errorf("%s:%d: want family<TAB>name", path, i+1)
		}
		if len(cols) >= 3 && cols[2] != "" {
			if want := fmt.Sprint(ID(cols[0], cols[1])); cols[2] != want {
				return fmt.Errorf("%s:%d: id %s does not match the catalog hash of %s:%s (%s)", path, i+1, cols[2], cols[0], cols[1], want)
			}
		}
		c.Exports++
		c.Add(cols[0], cols[1], path)
	}
	return nil
}

// Load reads each path: a manifest.json, a .tsv name list, or a directory
// searched recursively for manifest.json files. It fails when a directory
// holds no manifest, so a typo never yields an empty catalog silently.
func Load(paths []string) (*Catalog, error) {
	c := New()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--manifests %s: %v", p, err)
		}
		if !st.IsDir() {
			if strings.HasSuffix(p, ".tsv") {
				err = c.LoadTSV(p)
			} else {
				err = c.LoadManifest(p)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == "manifest.json" {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--manifests %s: %v", p, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--manifests %s: no manifest.json below this directory (a build's kernel directories are ggml/src/ggml-hrx/kernel-corpus/kernels/<dir>/)", p)
		}
		sort.Strings(found)
		for _, m := range found {
			if err := c.LoadManifest(m); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Describe is one line naming what the catalog was built from.
func (c *Catalog) Describe() string {
	if c == nil || len(c.Manifests) == 0 {
		return "no manifests given"
	}
	s := fmt.Sprintf("%d kernels from %s", c.Len(), strings.Join(c.Manifests, ", "))
	var extra []string
	if c.Duplicates > 0 {
		extra = append(extra, fmt.Sprintf("%d duplicate exports", c.Duplicates))
	}
	if len(c.collisions) > 0 {
		extra = append(extra, fmt.Sprintf("%d id collisions (those ids stay anonymous)", len(c.collisions)))
	}
	reasons := make([]string, 0, len(c.Skipped))
	for r, n := range c.Skipped {
		reasons = append(reasons, fmt.Sprintf("%d skipped: %s", n, r))
	}
	sort.Strings(reasons)
	extra = append(extra, reasons...)
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, "; ") + ")"
	}
	return s
}
