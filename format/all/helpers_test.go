package all

import (
	"sort"
	"strings"
	"testing"
)

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
