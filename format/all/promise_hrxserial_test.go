package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// hrx-serial: a kept trace (stamped) of one program run of two kernel
// commands. Raw stderr has no times, so it has no impossible-time arm; the
// kept trace stands for both. A command's identity is (run, list, index).
func init() {
	promiseFixtures["hrx-serial"] = append(promiseFixtures["hrx-serial"], promiseFixture{
		variant: "kept",
		opts:    &format.Options{Manifests: []string{"../../testdata/hrx/manifest.json"}},
		base: func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.kept", []byte(hrxTrace(hrxPlain)))
		},
		// Every line of the second command carries a kernel_id that does
		// not parse: six malformed lines, no dispatch.
		unreadable: func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.kept", []byte(hrxTrace(hrxBadID)))
		},
		// The second command's post-dispatch sync-end is stamped at the
		// int64 maximum: a 9.2e18 ns "kernel".
		impossible: func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.kept", []byte(hrxTrace(hrxHugeEnd)))
		},
		// The second command's six lines written twice.
		repeated: func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.kept", []byte(hrxTrace(hrxTwice)))
		},
		repeatKind: capture.DuplicateEvent,
		// The last line (end phase=command-program) dropped. Raw stderr and
		// kept traces have no end marker: the no_end_marker note comes
		// with the kept-trace end record (another branch).
		cut: func(t *testing.T, dir string) string {
			lines := strings.SplitAfter(hrxTrace(hrxPlain), "\n")
			return fixture.Write(t, dir, "run.kept", []byte(strings.Join(lines[:len(lines)-2], "")))
		},
		endMarker: false,
		// Records are the trace's lines after its header line.
		records: picked(func() []string {
			return strings.SplitAfter(strings.TrimSuffix(hrxTrace(hrxPlain), "\n"), "\n")[1:]
		}, func(t *testing.T, dir string, lines []string) string {
			head := strings.SplitAfter(hrxTrace(hrxPlain), "\n")[0]
			return fixture.Write(t, dir, "run.kept", []byte(head+strings.TrimSuffix(strings.Join(lines, ""), "\n")+"\n"))
		}),
	})
}

type hrxVariant int

const (
	hrxPlain hrxVariant = iota
	hrxBadID
	hrxHugeEnd
	hrxTwice
)

// hrxTrace writes the trace: program p2 (two main commands), one run.
func hrxTrace(v hrxVariant) string {
	var b strings.Builder
	t := uint64(1000)
	line := func(s string) {
		fmt.Fprintf(&b, "%d hrx debug serial: %s\n", t, s)
		t += 100
	}
	b.WriteString("# tally kept trace v1 clock=monotonic unit=ns\n")
	const prog = "main_commands=2 init_commands=0 transient_arena=0"
	line("begin phase=command-program " + prog)
	line("begin phase=command-list list=main list_commands=2 main_commands=2")
	command := func(index int, id string) {
		det := fmt.Sprintf("list=main index=%d list_commands=2 ordinal=%d kind=Kernel kernel_id=%s bindings=3", index, index, id)
		for _, ev := range []string{"sync-begin phase=command-pre-dispatch", "sync-end phase=command-pre-dispatch",
			"begin phase=command-dispatch", "end phase=command-dispatch", "sync-begin phase=command-post-dispatch"} {
			line(ev + " " + det)
		}
		if index == 1 && v == hrxHugeEnd {
			fmt.Fprintf(&b, "9223372036854775807 hrx debug serial: sync-end phase=command-post-dispatch %s\n", det)
			t = 9223372036854775807 // the stamps after it do not go back
			return
		}
		line("sync-end phase=command-post-dispatch " + det)
	}
	id := func(k int) string { return fmt.Sprint(hrxgen.Kernels[k].ID()) }
	command(0, id(0))
	switch v {
	case hrxBadID:
		command(1, id(1)+"x")
	case hrxTwice:
		command(1, id(1))
		command(1, id(1))
	default:
		command(1, id(1))
	}
	line("end phase=command-list list=main list_commands=2 main_commands=2")
	line("end phase=command-program " + prog)
	return b.String()
}
