// Package all registers every reader tally ships. Import it for its side
// effect: _ "github.com/tallyprof/tally/format/all".
package all

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
