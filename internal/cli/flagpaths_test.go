package cli

import (
	"strings"
	"testing"
)

// A --manifests or --name-map path that does not exist is refused when
// given, whatever the input: a reader that does not use the flag (a Kineto
// trace with --manifests, an hrx trace with --name-map) dropped it without
// a word, so a mistyped path read like a run without names to find.
func TestReaderFlagPathsExist(t *testing.T) {
	kineto := "../../format/kineto/testdata/tracelens__h100_qwen1.5-0.5b.json.gz"
	for _, args := range [][]string{
		{"report", "--manifests", "/nonexistent/kernels", kineto},
		{"report", "--name-map", "p41=/nonexistent/name_map.json", example},
		{"timeline", "-o", "/dev/null", "--manifests", "/nonexistent/kernels", kineto},
		{"inspect", "--name-map", "x=/nonexistent/name_map.json", kineto},
	} {
		code, _, errOut := tally(args...)
		if code != 2 || !strings.Contains(errOut, "/nonexistent/") || !strings.Contains(errOut, "no such file or directory") {
			t.Errorf("%v: got exit %d (%q), want 2 naming the missing path", args, code, errOut)
		}
	}
	// Paths that exist are taken as before.
	if code, _, errOut := tally("report", "--manifests", kernels, example); code > 1 {
		t.Errorf("--manifests %s: got exit %d (%s), want 0 or 1", kernels, code, errOut)
	}
}
