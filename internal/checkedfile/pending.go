package checkedfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
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
func (p *Pending) Commit() error {
	if p.inPlace {
		err := p.err
		if cerr := p.f.Close(); err == nil {
			err = cerr
		}
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
	if err == nil {
		err = os.Rename(p.f.Name(), p.dest)
	}
	if err != nil {
		os.Remove(p.f.Name())
		return fmt.Errorf("writing %s: %w (nothing was written to it)", p.path, err)
	}
	return nil
}

// Abort drops the temporary file. It is safe after Commit (then a no-op for
// the renamed file, which no longer has its temporary name).
func (p *Pending) Abort() {
	p.f.Close()
	if !p.inPlace {
		os.Remove(p.f.Name())
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
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	// MkdirTemp makes it 0700; the dataset is renamed into place and read
	// by others (query engines, colleagues) like any directory.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	return &PendingDir{path: path, tmp: tmp, marker: marker}, nil
}

// Path is the final name; Temp the directory to write into now.
func (d *PendingDir) Path() string { return d.path }

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

// Commit renames the directory into place, replacing an earlier one of this
// writer (moved aside first and removed after).
func (d *PendingDir) Commit() error {
	if _, err := os.Stat(filepath.Join(d.tmp, d.marker)); err != nil {
		d.Abort()
		return fmt.Errorf("writing %s: the dataset has no %s: not committed", d.path, d.marker)
	}
	var old string
	if _, err := os.Stat(d.path); err == nil {
		old = d.tmp + ".old"
		if err := os.Rename(d.path, old); err != nil {
			d.Abort()
			return fmt.Errorf("replacing %s: %w", d.path, err)
		}
	}
	if err := os.Rename(d.tmp, d.path); err != nil {
		if old != "" {
			err = errors.Join(err, os.Rename(old, d.path))
		}
		d.Abort()
		return fmt.Errorf("writing %s: %w", d.path, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("removing the previous %s (moved to %s): %w", d.path, old, err)
		}
	}
	return nil
}

// Abort removes the temporary directory and everything in it.
func (d *PendingDir) Abort() { os.RemoveAll(d.tmp) }
