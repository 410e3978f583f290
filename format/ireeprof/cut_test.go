package ireeprof

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// TestCutEverywhere cuts every sample at every byte offset: no cut panics,
// every cut keeps its accounting valid, and none is ever reported complete.
func TestCutEverywhere(t *testing.T) {
	for _, name := range samples {
		data := sampleBytes(t, name)
		for n := 1; n < len(data); n++ {
			res, err := readBundle(t, data[:n])
			if err != nil {
				// Only the header can make a cut file unreadable; then
				// there is no capture to call complete.
				if n >= fileHeaderLen {
					t.Fatalf("%s cut at %d: got error %v, want a capture past the %d-byte header", name, n, err, fileHeaderLen)
				}
				continue
			}
			if res.c.Accounting.Complete() {
				t.Fatalf("%s cut at %d bytes: got complete, want incomplete", name, n)
			}
			if res.c.Accounting.CountOf(capture.TruncatedInput)+res.c.Accounting.CountOf(capture.UnfinalizedCapture) == 0 {
				t.Fatalf("%s cut at %d: got neither truncated_input nor unfinalized_capture, want one", name, n)
			}
		}
	}
}
