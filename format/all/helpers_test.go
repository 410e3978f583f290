package all

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeFile writes data to dir/name, making the directories name holds,
// and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// eachFixture runs check as a subtest for every reader's promise fixtures,
// readers in name order, named reader/variant.
func eachFixture(t *testing.T, check func(t *testing.T, reader string, fx promiseFixture)) {
	names := make([]string, 0, len(promiseFixtures))
	for n := range promiseFixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, reader := range names {
		for _, fx := range promiseFixtures[reader] {
			t.Run(strings.Trim(reader+"/"+fx.variant, "/"), func(t *testing.T) { check(t, reader, fx) })
		}
	}
}
