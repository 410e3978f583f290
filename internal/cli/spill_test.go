package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestSpillLimitFlag: --spill-limit reaches the readers' options as bytes;
// unlimited (the default) is 0, and a zero or unreadable size is refused
// with a message naming the flag.
func TestSpillLimitFlag(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want int64
		err  string
	}{
		{"", 0, ""},
		{"1KiB", 1024, ""},
		{"3G", 3 << 30, ""},
		{"unlimited", 0, ""},
		{"0", 0, "above 0"},
		{"lots", 0, "not a size"},
	} {
		var rf readerFlags
		fs := flag.NewFlagSet("report", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		rf.register(fs)
		args := []string{}
		if c.arg != "" {
			args = []string{"--spill-limit", c.arg}
		}
		err := fs.Parse(args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "spill-limit") {
				t.Errorf("--spill-limit %q: got %v, want an error naming the flag and saying %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("--spill-limit %q: got error %v, want none", c.arg, err)
		}
		if got := rf.options().Reader.SpillLimit; got != c.want {
			t.Errorf("--spill-limit %q: got SpillLimit %d, want %d", c.arg, got, c.want)
		}
	}
	// The flag is the readers' own: every command that reads traces has it.
	if code, _, stderr := tally("report", "--spill-limit", "0", "x.json"); code != 2 || !strings.Contains(stderr, "spill-limit") {
		t.Errorf("tally report --spill-limit 0: exit %d, %q; want 2 and the flag named", code, stderr)
	}
}
