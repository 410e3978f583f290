package npuprof

import (
	"testing"

	"github.com/tallyprof/tally/format"
)

// A UTF-8 BOM before the first line (an editor saved the log) hides
// nothing: the first line's dispatch is read, and a kept trace stays
// certain. Without the BOM stripped, the first [prof] line was foreign
// text and its dispatch was lost from a report with no gap.
func TestBOMBeforeFirstLine(t *testing.T) {
	const kept = "# tally kept trace v1 clock=monotonic unit=ns pid=1 cmd=\"./engine\"\n100 [L] 0 0.5 1.0\n"
	if got := Sniff([]byte("\xEF\xBB\xBF" + kept)); got != format.Certain {
		t.Errorf("Sniff(BOM + kept trace) = %v, want %v", got, format.Certain)
	}
	const log = "[prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)\n" +
		"[prof] npu_gemm n=100 pack=0.0 quant+launch=0.2 wait=4.8 readback=0.0 ms (N=2048)\n"
	want := len(readLog(t, log).all.Dispatches)
	if got := len(readLog(t, "\xEF\xBB\xBF"+log).all.Dispatches); got != want || want == 0 {
		t.Errorf("with a BOM: got %d dispatches, want %d (as without it)", got, want)
	}
}
