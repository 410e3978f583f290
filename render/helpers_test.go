package render

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonOf is v marshalled, compact.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJSON checks that v marshals to want, to the byte.
func wantJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	if got := jsonOf(t, v); got != want {
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
