package capture

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutName(t *testing.T) {
	short := strings.Repeat("k", MaxName)
	if got, cut := CutName(short); cut || got != short {
		t.Errorf("CutName of %d bytes: cut %v, want the name unchanged", len(short), cut)
	}
	// A 3-byte rune across the cut: the cut falls on its boundary.
	long := strings.Repeat("行", MaxName/3+10)
	got, cut := CutName(long)
	if !cut {
		t.Fatalf("CutName of %d bytes: not cut, want cut", len(long))
	}
	if len(got) > MaxName {
		t.Errorf("cut name is %d bytes, want at most %d", len(got), MaxName)
	}
	if !utf8.ValidString(got) {
		t.Error("cut name is not valid UTF-8, want a cut on a rune boundary")
	}
	marker := "…[truncated from " + itoa(len(long)) + " bytes]"
	if !strings.HasSuffix(got, marker) || !strings.HasPrefix(long, strings.TrimSuffix(got, marker)) {
		t.Errorf("cut name ends %q, want a prefix of the name then %q", got[len(got)-40:], marker)
	}
	if again, cut := CutName(got); cut || again != got {
		t.Error("a cut name was cut again, want it unchanged")
	}
	// A reader's kept prefix with the full length it counted.
	if got := CutPrefix("abc", 1<<30); got != "abc…[truncated from 1073741824 bytes]" {
		t.Errorf("CutPrefix = %q, want the kept bytes and the marker", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestLongNamesCountedAndScoped(t *testing.T) {
	c := &Capture{}
	prog := "step" + strings.Repeat("p", MaxName)
	kern := strings.Repeat("k", MaxName+1)
	p := c.AddProgram(Program{Name: prog, Instances: 1})
	c.AddKernel(Kernel{Program: p, Name: kern})
	c.AddKernel(Kernel{Program: p, Name: "short"})
	c.AddQueue(Queue{Name: strings.Repeat("q", 2*MaxName)})
	// A gap scoped by the full program name finds the cut program.
	c.Accounting.Gap(GraphLaunch, prog).Add(Item{What: "x", Kernel: kern})
	if err := c.CheckValid(); err != nil {
		t.Fatalf("CheckValid: %v, want a valid capture", err)
	}
	for _, n := range []string{c.Programs[0].Name, c.Kernels[0].Name, c.Queues[0].Name, c.Accounting.Gaps[0].Items[0].Kernel} {
		if len(n) > MaxName {
			t.Errorf("a name of %d bytes is in the model, want at most %d", len(n), MaxName)
		}
	}
	if c.Kernels[1].Name != "short" {
		t.Errorf("short name %q, want it unchanged", c.Kernels[1].Name)
	}
	g := c.Accounting.Find(LongName)
	if g == nil || g.Count != 3 || !g.Note {
		t.Fatalf("long_name gap %+v, want a note counting 3 names", g)
	}
	if v, _ := g.Figure("longest_bytes"); v != 2*MaxName {
		t.Errorf("longest_bytes = %d, want %d", v, 2*MaxName)
	}
	if v, _ := g.Figure("limit_bytes"); v != MaxName {
		t.Errorf("limit_bytes = %d, want %d", v, MaxName)
	}
	if !c.Accounting.Complete() {
		t.Error("long names made the capture incomplete, want a note only")
	}
	if it := g.Items[0].What; len(it) > 100 || !strings.Contains(it, "bytes)") {
		t.Errorf("item %q, want the name's head and its length", it)
	}
}
