package selftest

import (
	"bytes"
	"strings"
	"testing"
)

func TestChecksPass(t *testing.T) {
	var out bytes.Buffer
	failed, err := Run(&out, Checks)
	if err != nil || failed != 0 {
		t.Fatalf("%d failed (%v):\n%s", failed, err, out.String())
	}
}

// The self-test bites: one wrong expectation makes it fail and name the check.
func TestSelftestBites(t *testing.T) {
	for i := range Checks {
		mutated := append([]Check(nil), Checks...)
		mutated[i].Want.Complete = !mutated[i].Want.Complete
		var out bytes.Buffer
		failed, err := Run(&out, mutated)
		if err != nil || failed != 1 || !strings.Contains(out.String(), "FAIL  "+mutated[i].Name) {
			t.Fatalf("mutating %q: %d failed:\n%s", mutated[i].Name, failed, out.String())
		}
	}
	mutated := append([]Check(nil), Checks...)
	mutated[0].Want.Dispatches++
	var out bytes.Buffer
	if failed, _ := Run(&out, mutated); failed != 1 || !strings.Contains(out.String(), "dispatches: got 36, want 37") {
		t.Fatalf("dispatch count mutation not caught:\n%s", out.String())
	}
}
