package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/probe"
)

// The example runs, its file reads complete with every dispatch, and its
// layer dumps have their sidecars.
func TestExample(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.probe")
	var log bytes.Buffer
	if rc := run([]string{"-o", path, "-dim", "16", "-layers", "2", "-prompt", "4", "-decode", "3", "-window", "10", "-dump", dir}, &log); rc != 0 {
		t.Fatalf("rc %d: %s", rc, log.String())
	}
	var all capture.Collect
	c, err := format.ReadFile(path, "", nil, &all)
	if err != nil {
		t.Fatal(err)
	}
	// 4 kernels × 2 layers × 4 queues, for the prefill and each decode step.
	if len(all.Dispatches) != 32*4 || !c.Accounting.Complete() {
		t.Fatalf("%d dispatches, gap %+v %+v\n%s", len(all.Dispatches), *c.Accounting.Gaps[0], c.Accounting.Gaps[0].Items, log.String())
	}
	for _, f := range []string{"layer_0.f32", "layer_0.json", "layer_1.f32", "layer_1.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}
