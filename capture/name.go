package capture

import (
	"strconv"
	"unicode/utf8"
)

// MaxName is the most bytes tally keeps of one name or string from an
// input (kernel, program and queue names, labels, log lines). Real names
// are far shorter (the longest C++ template kernel names run to a few KiB);
// a longer one is cut here, so that a hostile 1 GiB name costs 64 KiB, not
// gigabytes, and is counted in the long_name note.
const MaxName = 64 << 10

// LongName counts names and strings longer than MaxName that tally cut.
// A note: the dispatches are all in the tables, only a name is shortened.
const LongName Kind = "long_name"

func init() { RegisterNote(LongName) }

// CutName returns s cut to at most MaxName bytes and whether it was cut:
// a cut name keeps its first bytes, up to a UTF-8 boundary, and ends with
// a visible marker naming its full length (CutPrefix). It is a pure
// function, so a name cut in two places reads the same in both, and a cut
// name is never cut again.
func CutName(s string) (string, bool) {
	if len(s) <= MaxName {
		return s, false
	}
	return CutPrefix(s, int64(len(s))), true
}

// CutPrefix is the cut form of a string full bytes long in the input of
// which a reader kept only the first bytes, kept (a reader that stops
// keeping bytes at MaxName, however long the string runs): kept, shortened
// to a UTF-8 boundary so that the marker fits in MaxName, then
// "…[truncated from N bytes]". kept may be longer than MaxName.
func CutPrefix(kept string, full int64) string {
	marker := CutMarker(full)
	n := min(len(kept), MaxName-len(marker))
	for n > 0 && n < len(kept) && !utf8.RuneStart(kept[n]) {
		n--
	}
	return kept[:n] + marker
}

// CutMarker is what ends a name cut from full bytes.
func CutMarker(full int64) string {
	return "…[truncated from " + strconv.FormatInt(full, 10) + " bytes]"
}

// Name returns CutName(s) and, when s was cut, counts it in the capture's
// long_name note. Readers name things through it (AddKernel, AddProgram
// and AddQueue do), so every name in the model fits MaxName.
func (c *Capture) Name(s string) string {
	cut, ok := CutName(s)
	if ok {
		c.Accounting.LongName(int64(len(s)), s[:min(len(s), longNameHead)], "")
	}
	return cut
}

// longNameHead is how many bytes of a cut name its note item shows.
const longNameHead = 60

// LongName counts one string of full bytes that a reader cut at MaxName
// (CutPrefix) in the long_name note; head is its first bytes (shown
// shortened in the item), where the place in the input ("byte 123", "line
// 9"; "" when unknown).
func (a *Accounting) LongName(full int64, head, where string) {
	g := a.Gap(LongName, "")
	if g.Count == 0 {
		g.Summary = "names or strings longer than " + strconv.Itoa(MaxName>>10) + " KiB (" + strconv.Itoa(MaxName) +
			" bytes) in the input, each kept cut to that length and marked \"…[truncated from N bytes]\": " +
			"the dispatches are in the tables, only their names are shortened (two names alike in their kept bytes and of one length read as one)"
		g.SetFigure("limit_bytes", MaxName)
	}
	if longest, _ := g.Figure("longest_bytes"); full > longest {
		g.SetFigure("longest_bytes", full)
	}
	if len(head) > longNameHead {
		n := longNameHead
		for n > 0 && !utf8.RuneStart(head[n]) {
			n--
		}
		head = head[:n]
	}
	g.Add(Item{What: strconv.Quote(head) + "… (" + strconv.FormatInt(full, 10) + " bytes)", Where: where})
}

// cutNames cuts the item's strings to MaxName (uncounted: a name is
// counted where the model first took it).
func (it *Item) cutNames() {
	for _, s := range []*string{&it.What, &it.Where, &it.Program, &it.Kernel, &it.LastCompleted} {
		*s, _ = CutName(*s)
	}
}
