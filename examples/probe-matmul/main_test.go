package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/probereader"
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

// Sizes below 1 are a usage error, not a panic (a division by zero queues,
// a slice before the prompt's start), and create no capture file.
func TestBadSizes(t *testing.T) {
	for _, flag := range []string{"-queues", "-dim", "-layers", "-prompt", "-window"} {
		path := filepath.Join(t.TempDir(), "run.probe")
		var log bytes.Buffer
		if rc := run([]string{"-o", path, flag, "0"}, &log); rc != 2 {
			t.Errorf("%s 0: rc %d: %s", flag, rc, log.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s 0: a capture file was created", flag)
		}
	}
}
