// Package cleanup removes the temporary files tally is writing when tally is
// interrupted: the hidden .OUT.tmpNNN files and directories of an atomic
// output (internal/checkedfile) and the copies a reader makes in TMPDIR
// (an SQLite database inflated from .sqlite.gz). Whoever creates such a
// temporary tracks it until it is renamed into place or removed; Catch
// arms the handler that removes what is still tracked when SIGINT,
// SIGTERM or SIGHUP arrives (installed with the first temporary). SIGKILL cannot be caught: it may leave
// temporaries behind, which is why their names are hidden and say tmp.
package cleanup

import (
	"os"
	"sort"
	"sync"
)

var (
	// step is held while a temporary is created and tracked, or renamed
	// into place and untracked, and by the signal cleanup from its start
	// to the process's end: a signal never removes a temporary that is
	// half renamed, and nothing is committed after a signal.
	step sync.Mutex
	mu   sync.Mutex
	live = map[string]bool{}
)

// Hold makes what runs until release one step for the signal cleanup: a
// cleanup that starts meanwhile waits for release. Hold brief steps only
// (a create, a rename): the cleanup, and so the end of an interrupted
// tally, waits for them.
func Hold() (release func()) {
	ensureInstalled() // before the temporary exists: a signal finds it tracked
	step.Lock()
	return step.Unlock
}

// Track registers path (a file or a directory) for removal on a signal.
func Track(path string) {
	ensureInstalled()
	mu.Lock()
	live[path] = true
	mu.Unlock()
}

// Untrack drops path from the registry: it was renamed into place or
// removed.
func Untrack(path string) {
	mu.Lock()
	delete(live, path)
	mu.Unlock()
}

// Tracked lists the registered paths, sorted.
func Tracked() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for p := range live {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// removeTracked removes every registered path (directories with their
// content) and empties the registry. The caller holds step.
func removeTracked() {
	mu.Lock()
	defer mu.Unlock()
	for p := range live {
		// A writer still running may add a file to a temporary directory
		// between RemoveAll's listing and its removal of the directory
		// (ENOTEMPTY): try again, a few times.
		for range 3 {
			if os.RemoveAll(p) == nil {
				break
			}
		}
		delete(live, p)
	}
}
