package timeline

import (
	"bytes"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// writeDispatches writes c's dispatches ds as one input's timeline.
func writeDispatches(t *testing.T, f Format, c *capture.Capture, ds []capture.Dispatch) []byte {
	t.Helper()
	data, _ := writeWith(t, f, c, ds)
	return data
}

// writeWith is writeDispatches that also returns the closed Writer.
func writeWith(t *testing.T, f Format, c *capture.Capture, ds []capture.Dispatch) ([]byte, *Writer) {
	t.Helper()
	var buf bytes.Buffer
	w := New(&buf, f)
	in := w.Sink("run/rank-all.json")
	for i := range ds {
		in.Dispatch(c, &ds[i])
	}
	in.Finish(c)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w
}
