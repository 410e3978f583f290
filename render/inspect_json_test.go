package render

import (
	"bytes"
	"strings"
	"testing"
)

// The inventory is written as every JSON output is: indented by two
// spaces, and a path's <, > and & kept as they are (not \u003c …).
func TestInspectJSONLayout(t *testing.T) {
	c, _ := sample()
	c.Source.Path = "runs/<a&b>.kept"
	var b bytes.Buffer
	if err := InspectJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.HasPrefix(got, "{\n  \"schema\": \"tally.inspect/v1\",\n") || !strings.Contains(got, `"path": "runs/<a&b>.kept"`) {
		t.Fatalf("got\n%s\nwant two-space indentation and the path unescaped", got)
	}
}
