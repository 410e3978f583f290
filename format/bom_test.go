package format

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A leading BOM reads as three spaces, whatever the reads' sizes; anything
// else, and a reader's own end or error, pass through unchanged.
func TestBOMAsSpaces(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\xEF\xBB\xBF{\"a\": 1}", "   {\"a\": 1}"},
		{"{\"a\": 1}", "{\"a\": 1}"},
		{"\xEF\xBB", "\xEF\xBB"},
		{"{}", "{}"},
		{"", ""},
		{"x\xEF\xBB\xBF", "x\xEF\xBB\xBF"},
	} {
		for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
			got, err := io.ReadAll(BOMAsSpaces(r))
			if err != nil || string(got) != tc.want {
				t.Errorf("%q: got %q (%v), want %q", tc.in, got, err, tc.want)
			}
		}
	}
	cut := io.MultiReader(strings.NewReader("\xEF"), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := io.ReadAll(BOMAsSpaces(cut)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a stream cut in its first bytes: got %v, want io.ErrUnexpectedEOF", err)
	}
}
