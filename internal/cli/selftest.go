package cli

import (
	"fmt"
	"io"

	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/selftest"
)

func cmdSelftest(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("selftest", "Usage: tally selftest\n\nChecks this binary against small embedded traces (complete, cut, fault, raw, a file no reader recognises, a\nkept trace without a trace line, an empty file, an IREE bundle, a Kineto trace);\nexits 1 if any check fails.\n", stderr)
	if code, ok := parseNoArgs(fs, args); !ok {
		return code
	}
	failed, err := selftest.Run(stdout, selftest.Checks)
	if err != nil {
		fmt.Fprintf(stderr, "tally selftest: %v\n", err)
		return exitcode.Error
	}
	if failed > 0 {
		return exitcode.Failed
	}
	return exitcode.OK
}
