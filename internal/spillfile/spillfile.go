// Package spillfile makes the temporary files that bounded-memory readers
// and analyses spill records to.
package spillfile

import "os"

// Create makes a temporary file in dir (os.TempDir() when empty) named
// after pattern, as os.CreateTemp does, and unlinks it at once where the
// OS allows it: nothing is left behind even if tally is killed, and the
// space is freed when the file is closed. Name() still gives the path it
// had, for messages.
func Create(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // best effort: an OS that refuses keeps the file until Close
	return f, nil
}
