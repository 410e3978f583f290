package cli

import (
	"os"
	"strings"
	"testing"
)

const vllmTrace = "../../format/kineto/testdata/tracelens__vllm_decode_full_graph_execution.json.gz"

// `tally report -` reads a gzipped trace (streamed) and an IREE bundle
// (spooled for random access) from a pipe on standard input.
func TestReportStdinPipe(t *testing.T) {
	for _, path := range []string{vllmTrace, "../../format/ireeprof/testdata/smoke.ireeprof"} {
		reportStdin(t, path)
	}
}

func reportStdin(t *testing.T, path string) {
	data := readFile(t, path)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write([]byte(data)); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old; r.Close() }()
	code, out, errOut := tally("report", "-")
	_, want, _ := tally("report", path)
	if code != 0 {
		t.Fatalf("%s: got exit %d: %s, want 0", path, code, errOut)
	}
	// Same report but for the name of the input.
	if strings.ReplaceAll(out, "standard input", path) != want {
		t.Errorf("stdin report differs:\n%s\nvs\n%s", out, want)
	}
}

// The vLLM sample's first recorded kernel waited 7.8 ms with nothing
// recorded running: a gap at the default threshold, none above it.
func TestUnrecordedWaitFlag(t *testing.T) {
	_, out, _ := tally("report", vllmTrace)
	if !strings.Contains(out, "GAP unrecorded_device_work (1)") {
		t.Errorf("default threshold: got no gap, want GAP unrecorded_device_work (1)\n%s", out)
	}
	code, out, errOut := tally("report", "--unrecorded-wait", "10ms", vllmTrace)
	if code != 0 || strings.Contains(out, "unrecorded_device_work") {
		t.Errorf("--unrecorded-wait 10ms: got exit %d %s\n%s\nwant 0 and no unrecorded_device_work", code, errOut, out)
	}
}
