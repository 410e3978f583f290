package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tallyprof/tally/export"
	"github.com/tallyprof/tally/internal/cli"
	"github.com/tallyprof/tally/internal/exportcmd"

	_ "modernc.org/sqlite" // the SQLite engine, as in tally-full
)

// The tests run the command line as tally-full does, every engine linked:
// the handover itself is tested on the two built programs
// (handover_test.go).
func init() { cli.Exporter = exportcmd.Run }

// tally lists export's formats without linking the export package: the
// list must be export.Names.
func TestExportFormatsAreExportNames(t *testing.T) {
	var out bytes.Buffer
	cli.Main([]string{"export", "-h"}, &out, &out)
	if want := "Formats: " + strings.Join(export.Names, ", ") + "\n"; !strings.Contains(out.String(), want) {
		t.Errorf("tally export -h does not list %q:\n%s", want, out.String())
	}
}
