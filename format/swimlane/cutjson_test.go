package swimlane

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
)

// A JSON file that ends early is positioned where it ends, not at the
// value it could not finish (byte 0 for a file that is one object).
func TestCutJSONPositionedAtItsEnd(t *testing.T) {
	for _, data := range []string{`{"aicore_tasks": [[1, 2`, `{"program": "p`, `{`} {
		path := filepath.Join(t.TempDir(), "chip_swimlane_records.json")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		err := decodeFile(path, &v)
		var fe *format.Error
		if !errors.As(err, &fe) || fe.Offset != int64(len(data)) || fe.Line != 0 {
			t.Errorf("%q: got %v, want a format.Error at byte %d", data, err, len(data))
		}
	}
}
