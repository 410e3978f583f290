package timeline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocDecodes cross-checks the hand-encoded field numbers with
// Perfetto's own schema, decoded by protoc rather than by tally's decoder.
// It runs when TALLY_PERFETTO_PROTO names perfetto_trace.proto (from
// github.com/google/perfetto, protos/perfetto/trace/perfetto_trace.proto)
// and protoc is installed (Debian: protobuf-compiler); otherwise it skips:
//
//	TALLY_PERFETTO_PROTO=/path/perfetto_trace.proto go test ./timeline -run Protoc
func TestProtocDecodes(t *testing.T) {
	proto := os.Getenv("TALLY_PERFETTO_PROTO")
	protoc, err := exec.LookPath("protoc")
	if proto == "" || err != nil {
		t.Skip("set TALLY_PERFETTO_PROTO and install protoc to cross-check with Perfetto's schema")
	}
	var buf bytes.Buffer
	sum, err := Run([]string{"../format/swimlane/testdata/seed", "../examples/decode-fault.kept"}, &buf,
		Options{As: Perfetto})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(protoc, "--proto_path="+filepath.Dir(proto), "--decode=perfetto.protos.Trace", filepath.Base(proto))
	cmd.Stdin = &buf
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, errOut.String())
	}
	text := out.String()
	begins := strings.Count(text, "type: TYPE_SLICE_BEGIN")
	ends := strings.Count(text, "type: TYPE_SLICE_END")
	if int64(begins) != sum.Stats.Slices+sum.Stats.Unfinished || begins != ends {
		t.Errorf("protoc: got %d BEGIN, %d END; want %d of each (the slices written)", begins, ends, sum.Stats.Slices+sum.Stats.Unfinished)
	}
	for _, want := range []string{"sibling_merge_behavior: SIBLING_MERGE_BEHAVIOR_NONE", "child_ordering: EXPLICIT",
		`name: "cross_card_wait"`, `name: "tally_verdict"`, "type: TYPE_INSTANT", "sequence_flags: 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("protoc output lacks %s", want)
		}
	}
}
