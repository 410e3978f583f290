package sqlitein

import (
	"regexp"
	"sync"
)

// SchemaNames returns a test for a database's head: whether the schema
// SQLite keeps in plain text on its first pages creates a table, or an
// index or view on one, whose name starts with one of names (a regexp
// alternation, e.g. `StringIds\b|CUPTI_ACTIVITY_KIND_`). The name must stand
// in SQL — after TABLE, ON or VIEW — not anywhere in the file: another
// program's database whose rows merely mention it is not claimed. The
// pattern is compiled on first use, so start-up pays for no regexp.
func SchemaNames(names string) func(head []byte) bool {
	re := sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?i:TABLE|ON|VIEW)\s+["'\[` + "`" + `]?(?:` + names + `)`)
	})
	return func(head []byte) bool { return IsSQLite(head) && re().Match(head) }
}
