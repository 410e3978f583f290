// Package readers registers every reader tally ships, without the engines
// that are slow to initialise: the nsys and rocpd readers are registered
// (their files are recognised and listed) but read only where the program
// also links the SQLite engine (format.Engine). The tally command imports
// this package and hands SQLite inputs to tally-full; a Go program that
// reads every format imports format/all instead.
package readers

import (
	_ "github.com/tallyprof/tally/format/hrxserial"
	_ "github.com/tallyprof/tally/format/ireeprof"
	_ "github.com/tallyprof/tally/format/kineto"
	_ "github.com/tallyprof/tally/format/npuprof"
	_ "github.com/tallyprof/tally/format/nsys"
	_ "github.com/tallyprof/tally/format/probereader"
	_ "github.com/tallyprof/tally/format/rocprof"
	_ "github.com/tallyprof/tally/format/swimlane"
)
