// Package all registers every reader tally ships, with every engine they
// read with (SQLite for nsys and rocpd). Import it for its side effect:
// _ "github.com/tallyprof/tally/format/all".
package all

import (
	_ "github.com/tallyprof/tally/format/readers"

	_ "modernc.org/sqlite" // the SQLite engine of the nsys and rocpd readers
)
