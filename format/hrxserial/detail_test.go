package hrxserial

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
)

var details = []string{
	"list=main index=12 list_commands=41 ordinal=12 kind=Kernel kernel_id=5916100870017593149 bindings=3",
	"list=init index=0 list_commands=4 ordinal=0 kind=kernel kernel_id=1 bindings=0",
	"list=main index=3 list_commands=41 ordinal=3 kind=Copy",
	"list=main index=3 list_commands=41 ordinal=3 kind=Copy kernel_id=9 bindings=1",
	"index=3 list=main list_commands=41 ordinal=3 kind=Kernel kernel_id=9 bindings=1", // another order
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel bindings=1 kernel_id=9",
	"list=main index=3 list_commands=41 ordinal=3 kind=a=b",
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel kernel_id=18446744073709551615 bindings=3",
	// Not details: each must fail both ways.
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel kernel_id=18446744073709551616 bindings=3",
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel kernel_id=9 bindings=3 ",
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel kernel_id=9 bindings=",
	"list=main index=3 list_commands=41 ordinal=3 kind= kernel_id=9 bindings=3",
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel ",
	"list=main index=3  list_commands=41 ordinal=3 kind=Kernel",
	"list=main index=x3 list_commands=41 ordinal=3 kind=Kernel",
	"list=main index=3x list_commands=41 ordinal=3 kind=Kernel",
	"list=main index=3 list_commands=41 ordinal=3 kind=Kernel kernel_id=9 bindings=3 extra=1",
	"list=main index=3 index=3 list_commands=41 ordinal=3 kind=Kernel",
	"list=other index=3 list_commands=41 ordinal=3 kind=Kernel",
	"list=mainx index=3 list_commands=41 ordinal=3 kind=Kernel",
	"main_commands=41 init_commands=2 transient_arena=0",
	"value=-3 length=4096",
	"",
}

// sameDetail fails unless the ordered parse, where it answers, agrees with
// the parse key by key, and kind sits at kindAt.
func sameDetail(t *testing.T, b []byte) {
	var fast, slow detail
	okFast := commandDetail(b, &fast)
	okSlow := detailByKey(b, &slow)
	if okFast && !okSlow {
		t.Fatalf("%q: got the ordered parse taking a detail the key-by-key parse refuses, want it refused too", b)
	}
	if okFast && fast != slow {
		t.Fatalf("%q: got ordered parse %+v, want the key-by-key parse's %+v", b, fast, slow)
	}
	for _, d := range []*detail{&fast, &slow} {
		if d.has&hasKind == 0 {
			continue
		}
		// The kind follows "kind=" and ends at a blank or the end.
		at, end := int(d.kindAt), int(d.kindAt+d.kindLen)
		if at < len("kind=") || end > len(b) || string(b[at-len("kind="):at]) != "kind=" || (end < len(b) && b[end] != ' ') || bytes.IndexByte(d.kindIn(b), ' ') >= 0 {
			t.Fatalf("%q: got kind at %d, %d bytes: %q; want the value after kind=, up to a blank or the end", b, at, d.kindLen, b[min(at, len(b)):min(end, len(b))])
		}
	}
}

func TestDetail(t *testing.T) {
	for i, s := range details {
		sameDetail(t, []byte(s))
		var d detail
		ok := parseDetail([]byte(s), &d)
		if want := i < 8 || s == "" || strings.HasPrefix(s, "main_commands") || strings.HasPrefix(s, "value"); ok != want {
			t.Errorf("parseDetail(%q) = %v, want %v", s, ok, want)
		}
	}
	var d detail
	if !commandDetail([]byte(details[0]), &d) || d.index != 12 || d.kernelID != 5916100870017593149 || !d.kernel || d.list != listMain {
		t.Fatalf("ordered parse of %q: got %+v, want index 12, kernel id 5916100870017593149, a kernel on list main", details[0], d)
	}
	if commandDetail([]byte(details[4]), &d) {
		t.Fatalf("ordered parse of keys out of order %q: got it taken, want it refused", details[4])
	}
}

func FuzzDetail(f *testing.F) {
	for _, s := range details {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameDetail(t, b) })
}

// A non-kernel command's kind is named after its last line, which may lie
// in a later block than its first: the reading goroutine has refilled the
// first line's buffer by then (go test -race sees it write what the parser
// still reads), so the kind is read from the command's own copy.
func TestKindAcrossBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("# tally kept trace v1 clock=monotonic unit=ns\n")
	b.WriteString("1 hrx debug serial: begin phase=command-program main_commands=60000 init_commands=0 transient_arena=0\n")
	b.WriteString("2 hrx debug serial: begin phase=command-list list=main list_commands=60000 main_commands=60000\n")
	ts := 3
	for i := 0; i < 60000; i++ {
		det := fmt.Sprintf("list=main index=%d list_commands=60000 ordinal=%d kind=Copy", i, i)
		for _, ev := range []string{"sync-begin phase=command-pre-dispatch", "sync-end phase=command-pre-dispatch", "sync-begin phase=command-post-dispatch", "sync-end phase=command-post-dispatch"} {
			fmt.Fprintf(&b, "%d hrx debug serial: %s %s\n", ts, ev, det)
			ts++
		}
	}
	fmt.Fprintf(&b, "%d hrx debug serial: end phase=command-list list=main list_commands=60000 main_commands=60000\n", ts)
	fmt.Fprintf(&b, "%d hrx debug serial: end phase=command-program main_commands=60000 init_commands=0 transient_arena=0\n", ts+1)
	data := b.String()
	if len(data) < 4*blockSize {
		t.Fatalf("trace of %d bytes, want over %d (four blocks)", len(data), 4*blockSize)
	}
	// A SectionReader states its size: the reader uses full blocks.
	r := io.NewSectionReader(strings.NewReader(data), 0, int64(len(data)))
	c, err := ReadStream(r, "copies", catalog.New(), capture.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Programs[0].Notes, "; ")
	if want := "60000 non-kernel commands (Copy 60000)"; !strings.Contains(got, want) {
		t.Fatalf("notes %q, want them to hold %q", got, want)
	}
}
