package checkedfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/internal/cleanup"
)

// Pending is an output file being written under a temporary name beside its
// final path. Writers that stream (an export reading several inputs) or that
// write several files that belong together (a table and its gaps file) use it
// instead of Write: nothing appears under the final name until Commit.
type Pending struct {
	path string
	dest string // the file Commit replaces: path, or the file a link at path names
	f    *os.File
	// inPlace is set for special files (/dev/stdout, /dev/full), which are
	// written directly since they cannot be renamed over.
	inPlace bool
	err     error
	// done is set once the file is committed or its temporary removed.
	done bool
}

// Create starts a pending file for path.
func Create(path string) (*Pending, error) {
	dest, inPlace := resolve(path)
	if inPlace {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return nil, fmt.Errorf("cannot create %s: it is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot open %s: %w", path, err)
		}
		return &Pending{path: path, dest: path, f: f, inPlace: true}, nil
	}
	f, err := createTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	return &Pending{path: path, dest: dest, f: f}, nil
}

// Path is the final name.
func (p *Pending) Path() string { return p.path }

// Write writes to the temporary file. The first error sticks: later writes
// return it and Commit fails with it.
func (p *Pending) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.f.Write(b)
	if err != nil {
		p.err = err
	}
	return n, err
}

// Commit syncs and closes the file and renames it to its final name. On any
// failure the temporary file is removed and the error names the final path.
func (p *Pending) Commit() error { return CommitAll(p) }

// CommitAll commits files that belong together (a table and its gaps
// file): each is synced and closed, then all are renamed to their final
// names in the order given, as one step for the signal cleanup — a caught
// signal never leaves some renamed and the others not; only a SIGKILL
// between two renames can, so writers of such pairs mark both files with
// one id (docs/export.md). When a file fails before the renames, none is
// renamed and every temporary is removed.
func CommitAll(ps ...*Pending) error {
	for i, p := range ps {
		if err := p.prepare(); err != nil {
			for _, q := range ps[i+1:] {
				q.Abort()
			}
			for _, q := range ps[:i] {
				q.Abort()
			}
			return err
		}
	}
	var pairs [][2]string
	var renamed []*Pending
	for _, p := range ps {
		if !p.inPlace {
			pairs = append(pairs, [2]string{p.f.Name(), p.dest})
			renamed = append(renamed, p)
		}
	}
	n, err := renameTemps(pairs...)
	for _, p := range renamed[:n] {
		p.done = true
	}
	if err != nil {
		for _, p := range renamed[n:] {
			removeTemp(p.f.Name())
			p.done = true
		}
		var before string
		if n > 0 {
			var names []string
			for _, p := range renamed[:n] {
				names = append(names, p.path)
			}
			before = "; " + strings.Join(names, ", ") + " written before it"
		}
		return fmt.Errorf("writing %s: %w (nothing was written to it)%s", renamed[n].path, err, before)
	}
	return nil
}

// prepare syncs and closes the temporary file (closes a special file);
// on failure the temporary is removed and the error names the final path.
func (p *Pending) prepare() error {
	if p.done {
		return fmt.Errorf("writing %s: already committed or aborted", p.path)
	}
	if p.inPlace {
		err := p.err
		if cerr := p.f.Close(); err == nil {
			err = cerr
		}
		p.done = true
		if err != nil {
			return fmt.Errorf("writing %s: %w", p.path, err)
		}
		return nil
	}
	err := p.err
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p.f.Name(), 0o644)
	}
	if err != nil {
		removeTemp(p.f.Name())
		p.done = true
		return fmt.Errorf("writing %s: %w (nothing was written to it)", p.path, err)
	}
	return nil
}

// Abort drops the temporary file. It is safe after Commit (then a no-op).
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.f.Close()
	if !p.inPlace {
		removeTemp(p.f.Name())
	}
}

// PendingDir is an output directory (a dataset) built under a temporary name
// beside its final path and renamed into place by Commit, so a failure leaves
// no partial dataset under the final name.
type PendingDir struct {
	path, tmp string
	// marker is a file every directory this writer produced holds; an
	// existing directory is replaced only when it has one, so a mistyped
	// -o never removes a user's directory.
	marker string
}

// CreateDir starts a pending directory for path. marker names the file that
// identifies a directory this writer may replace.
func CreateDir(path, marker string) (*PendingDir, error) {
	if st, err := os.Stat(path); err == nil {
		if !st.IsDir() {
			return nil, fmt.Errorf("cannot create directory %s: a file of that name exists", path)
		}
		if _, err := os.Stat(filepath.Join(path, marker)); err != nil {
			return nil, fmt.Errorf("cannot replace %s: the directory exists and was not written by this command (no %s in it); remove it or choose another name", path, marker)
		}
	}
	tmp, err := mkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	// MkdirTemp makes it 0700; the dataset is renamed into place and read
	// by others (query engines, colleagues) like any directory.
	if err := os.Chmod(tmp, 0o755); err != nil {
		removeTemp(tmp)
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	return &PendingDir{path: path, tmp: tmp, marker: marker}, nil
}

// Path is the final name; Temp the directory to write into now.
func (d *PendingDir) Path() string { return d.path }

// MkdirAll makes directory dir inside Temp and the directories between,
// never Temp itself: a writer still running after a signal's cleanup
// removed Temp fails (no such file) instead of bringing it back, with the
// rows it goes on to write, as a temporary no one removes.
func (d *PendingDir) MkdirAll(dir string) error {
	rel, err := filepath.Rel(d.tmp, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not inside %s", dir, d.tmp)
	}
	p := d.tmp
	if _, err := os.Stat(p); err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return nil
}

// Temp is the temporary directory the content is written to.
func (d *PendingDir) Temp() string { return d.tmp }

// Final maps a path inside Temp to the name it will have after Commit, for
// error messages.
func (d *PendingDir) Final(tmpPath string) string {
	rel, err := filepath.Rel(d.tmp, tmpPath)
	if err != nil {
		return tmpPath
	}
	return filepath.Join(d.path, rel)
}

// Commit renames the directory into place, replacing an earlier one of
// this writer. The dataset's files appear together, in one rename. An
// earlier dataset is swapped with the new one in one rename where the
// system allows it (Linux: renameat2 RENAME_EXCHANGE), so OUT is never
// missing, then removed; elsewhere it is moved aside first, and a SIGKILL
// between the two renames leaves no OUT and the earlier dataset as
// .OUT.tmpNNN.old (SIGINT and SIGTERM wait for both renames).
func (d *PendingDir) Commit() error {
	if _, err := os.Stat(filepath.Join(d.tmp, d.marker)); err != nil {
		d.Abort()
		return fmt.Errorf("writing %s: the dataset has no %s: not committed", d.path, d.marker)
	}
	old, err := d.swap()
	if err != nil {
		d.Abort()
		return err
	}
	if old != "" {
		err := os.RemoveAll(old)
		cleanup.Untrack(old)
		if err != nil {
			return fmt.Errorf("removing the previous %s (moved to %s): %w", d.path, old, err)
		}
	}
	return nil
}

// swap puts the new dataset in place as one step for the signal cleanup
// and returns where the previous one went ("" when there was none; tracked
// until removed).
func (d *PendingDir) swap() (old string, err error) {
	release := cleanup.Hold()
	defer release()
	if _, err := os.Lstat(d.path); err != nil {
		if err := os.Rename(d.tmp, d.path); err != nil {
			return "", fmt.Errorf("writing %s: %w", d.path, err)
		}
		cleanup.Untrack(d.tmp)
		return "", nil
	}
	if exchange(d.tmp, d.path) == nil {
		return d.tmp, nil // the temporary name, still tracked, holds the previous dataset
	}
	old = d.tmp + ".old"
	if err := os.Rename(d.path, old); err != nil {
		return "", fmt.Errorf("replacing %s: %w", d.path, err)
	}
	if err := os.Rename(d.tmp, d.path); err != nil {
		return "", fmt.Errorf("writing %s: %w", d.path, errors.Join(err, os.Rename(old, d.path)))
	}
	cleanup.Untrack(d.tmp)
	cleanup.Track(old)
	return old, nil
}

// Abort removes the temporary directory and everything in it.
func (d *PendingDir) Abort() { removeTemp(d.tmp) }
