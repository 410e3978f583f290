package catalog

import (
	"bufio"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testdata = "../testdata/hrx"

func TestIDWorkedExamples(t *testing.T) {
	for _, c := range []struct {
		family, name string
		want         uint64
	}{
		{"loom_libs", "ggml_mul_mat_f32_f32_wmma", 5916100870017593149},
		{"loom_libs", "ggml_flash_attention_decode_split_f32_f16_wmma_next_q8", 11938313152504284411},
		{"qwen3_moe", "qwen3_moe_flash_attention_decode_split_f32_f16_wmma_next_q8", 3172731442743964756},
		{"hrx", "ggml_gather_add_f32", 17577429741783502992},
		{"qwen3_moe", "ggml_gather_add_f32", 4776018431174492170},
	} {
		if got := ID(c.family, c.name); got != c.want {
			t.Errorf("ID(%s, %s) = %d, want %d", c.family, c.name, got, c.want)
		}
	}
}

// The catalog basis is not FNV-64's: the standard library must disagree.
func TestIDIsNotStandardFNV(t *testing.T) {
	h := fnv.New64a()
	h.Write([]byte("loom_libs\x00ggml_mul_mat_f32_f32_wmma"))
	if h.Sum64() != 14798533967170007439 {
		t.Fatalf("hash/fnv: got %d, want the spec's 14798533967170007439", h.Sum64())
	}
	if ID("loom_libs", "ggml_mul_mat_f32_f32_wmma") == h.Sum64() {
		t.Fatal("ID: got the standard FNV-64 offset basis's hash, want tally's own basis")
	}
}

func TestIDTable(t *testing.T) {
	f, err := os.Open(filepath.Join(testdata, "kernel_ids.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if cols[0] == "family" {
			continue
		}
		want, _ := strconv.ParseUint(cols[2], 10, 64)
		if got := ID(cols[0], cols[1]); got != want {
			t.Errorf("%s:%s = %d, want %d", cols[0], cols[1], got, want)
		}
		rows++
	}
	if rows != 9 {
		t.Fatalf("got %d rows, want 9", rows)
	}
}

func TestLoadManifest(t *testing.T) {
	c, err := Load([]string{filepath.Join(testdata, "manifest.json")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 9 || c.Exports != 9 {
		t.Fatalf("Len %d Exports %d, want 9", c.Len(), c.Exports)
	}
	e, st := c.Lookup(11938313152504284411)
	if st != Found || e.Label() != "loom_libs:ggml_flash_attention_decode_split_f32_f16_wmma_next_q8" {
		t.Fatalf("lookup: got %v, %v; want the flash attention entry and status Found", e, st)
	}
	if _, st := c.Lookup(0); st != Uncatalogued {
		t.Fatalf("id 0: got %v, want Uncatalogued", st)
	}
	if _, st := c.Lookup(14896872061627543929); st != NotFound {
		t.Fatalf("unknown id: got %v, want NotFound", st)
	}
}

// A build has several kernel directories: a directory is searched for all.
func TestLoadTwoDirectories(t *testing.T) {
	dir := filepath.Join(testdata, "build", "kernels")
	c, err := Load([]string{filepath.Join(dir, "loom-libs"), filepath.Join(dir, "hrx")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 9 || len(c.Manifests) != 2 {
		t.Fatalf("got Len %d from %v, want 9 from 2 manifests", c.Len(), c.Manifests)
	}
	one, err := Load([]string{filepath.Join(dir, "loom-libs")})
	if err != nil {
		t.Fatal(err)
	}
	if _, st := one.Lookup(ID("hrx", "ggml_gather_add_f32")); st != NotFound {
		t.Fatalf("an id from the other directory: got %v, want NotFound", st)
	}
	all, err := Load([]string{dir})
	if err != nil || all.Len() != 9 {
		t.Fatalf("recursive: got %v, %d; want no error, 9 entries", err, all.Len())
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load([]string{dir}); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("empty directory: got error %v, want \"no manifest.json\"", err)
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.json")}); err == nil {
		t.Fatal("missing file: got no error, want one")
	}
	bad := filepath.Join(dir, "manifest.json")
	os.WriteFile(bad, []byte(`{"schema":"x"}`), 0o644)
	if _, err := Load([]string{bad}); err == nil {
		t.Fatal("manifest without exports: got no error, want one")
	}
}

func TestSkippedDuplicateCollision(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "manifest.json")
	os.WriteFile(p, []byte(`{"exports":[
		{"name":"a","family":"f"},
		{"name":"a","family":"f","target_selector":"gfx1151"},
		{"name":"nofamily"},
		{"family":"f"},
		7
	]}`), 0o644)
	c, err := Load([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 || c.Duplicates != 1 {
		t.Fatalf("got Len %d, Duplicates %d; want 1, 1", c.Len(), c.Duplicates)
	}
	if c.Skipped["export without a family"] != 1 || c.Skipped["export without a name"] != 1 || c.Skipped["export is not an object"] != 1 {
		t.Fatalf("got skipped %v, want one each without a family, without a name, not an object", c.Skipped)
	}
	// Force a collision through Add: two names on one id resolve to neither.
	c2 := New()
	c2.entries[42] = Entry{Family: "x", Name: "y"}
	c2.Add("x", "y", "m") // duplicate, not a collision
	if _, st := c2.Lookup(42); st != Found {
		t.Fatalf("a duplicate: got %v, want the entry still Found", st)
	}
	id := ID("f", "a")
	c.entries[id] = Entry{Family: "g", Name: "other"}
	c.Add("f", "a", p)
	if _, st := c.Lookup(id); st != Collision {
		t.Fatalf("collision: got %v, want Collision", st)
	}
}

func TestAnonymous(t *testing.T) {
	if got := Anonymous("p303", 14896872061627543929); got != "p303:#14896872061627543929" {
		t.Fatalf("got %q, want \"p303:#14896872061627543929\"", got)
	}
}

func TestLoadTSV(t *testing.T) {
	c, err := Load([]string{filepath.Join(testdata, "kernel_ids.tsv")})
	if err != nil || c.Len() != 9 {
		t.Fatalf("got %v, %d; want no error, 9 entries", err, c.Len())
	}
	p := filepath.Join(t.TempDir(), "x.tsv")
	os.WriteFile(p, []byte("hip\tk\t123\n"), 0o644)
	if _, err := Load([]string{p}); err == nil {
		t.Fatal("a wrong id: got no error, want one")
	}
}
