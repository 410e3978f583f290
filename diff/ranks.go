package diff

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ranksOf is the ranks the side's inputs state, each once.
func ranksOf(s *Side) map[string]bool {
	out := map[string]bool{}
	for _, c := range s.Captures {
		if c.Source.Rank != "" {
			out[c.Source.Rank] = true
		}
	}
	return out
}

// missingRanks sets each side's MissingRanks: the ranks the other side's
// inputs state and its own do not. Sides of ranks 0–3 and 0–2 compare
// per-run figures over different ranks (the missing rank may be the slow
// one), so the difference is stated, never compared as if equal. Only when
// both sides state ranks and one side holds several: a side whose inputs
// state none has no ranks to miss, and one rank against another (rank 0
// vs rank 1) is a comparison asked for.
func missingRanks(a, b *Side) {
	ra, rb := ranksOf(a), ranksOf(b)
	if len(ra) == 0 || len(rb) == 0 || len(ra) == 1 && len(rb) == 1 {
		return
	}
	a.MissingRanks, b.MissingRanks = without(rb, ra), without(ra, rb)
}

// without lists the ranks of x not in y, numbers in numeric order.
func without(x, y map[string]bool) []string {
	var out []string
	for r := range x {
		if !y[r] {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ni, ei := strconv.ParseInt(out[i], 10, 64)
		nj, ej := strconv.ParseInt(out[j], 10, 64)
		if ei == nil && ej == nil {
			return ni < nj
		}
		return out[i] < out[j]
	})
	return out
}

// rankNote states the ranks one side lacks.
func rankNote(a, b *Side) []string {
	var parts []string
	for _, s := range [][2]*Side{{a, b}, {b, a}} {
		if len(s[0].MissingRanks) > 0 {
			parts = append(parts, fmt.Sprintf("side %s lacks %s that side %s holds", s[0].Label, rankWords(s[0].MissingRanks), s[1].Label))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{"ranks differ: " + strings.Join(parts, "; ") + ": the per-run figures are over different ranks (the missing one may be the slow one); give the same ranks on both sides"}
}

func rankWords(rs []string) string {
	if len(rs) == 1 {
		return "rank " + rs[0]
	}
	return "ranks " + strings.Join(rs, ", ")
}
