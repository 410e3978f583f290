package checkedfile

import (
	"os"

	"github.com/tallyprof/tally/internal/cleanup"
)

// Temporaries are hidden (a leading dot) and named .OUT.tmpNNN beside OUT:
// never taken for an output. Each is tracked by internal/cleanup from its
// creation to its rename or removal, so tally removes it when a signal
// interrupts it (cmd/tally installs the handler); only SIGKILL can leave
// one behind.

// createTemp is os.CreateTemp, tracked.
func createTemp(dir, pattern string) (*os.File, error) {
	release := cleanup.Hold()
	defer release()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		cleanup.Track(f.Name())
	}
	return f, err
}

// mkdirTemp is os.MkdirTemp, tracked.
func mkdirTemp(dir, pattern string) (string, error) {
	release := cleanup.Hold()
	defer release()
	name, err := os.MkdirTemp(dir, pattern)
	if err == nil {
		cleanup.Track(name)
	}
	return name, err
}

// removeTemp removes a temporary file or directory and untracks it.
func removeTemp(name string) {
	os.RemoveAll(name)
	cleanup.Untrack(name)
}

// renameTemps renames each temporary to its destination, in order, as one
// step for the signal cleanup: a signal never leaves some of them renamed
// and the others not (only SIGKILL can). It stops at the first failure
// and returns how many were renamed.
func renameTemps(pairs ...[2]string) (int, error) {
	release := cleanup.Hold()
	defer release()
	for i, p := range pairs {
		if err := os.Rename(p[0], p[1]); err != nil {
			return i, err
		}
		cleanup.Untrack(p[0])
	}
	return len(pairs), nil
}
