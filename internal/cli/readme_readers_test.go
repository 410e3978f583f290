package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
)

// The README's readers table names every registered reader, and only
// those: iree-jsonl was missing from it (issue 20).
func TestReadmeReaders(t *testing.T) {
	b := readFile(t, "../../README.md")
	_, table, ok := strings.Cut(b, "\n## Readers\n")
	if !ok {
		t.Fatal("README: got no '## Readers' section, want one")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	for _, f := range format.Formats() {
		if !listed[f.Name] {
			t.Errorf("README's readers table lacks %s; want every reader 'tally formats' lists", f.Name)
		}
		delete(listed, f.Name)
	}
	for name := range listed {
		t.Errorf("README's readers table: got %s, which is no reader; want only readers", name)
	}
}
