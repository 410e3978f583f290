package render

import (
	"encoding/json"
	"strings"
	"testing"
)

// wantJSON checks that v marshals to want, to the byte.
func wantJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(got) != want {
		t.Errorf("%s: got\n%s\nwant\n%s", what, got, want)
	}
}

// wantIn checks that out holds every one of wants.
func wantIn(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("got no %q in:\n%s", want, out)
		}
	}
}
