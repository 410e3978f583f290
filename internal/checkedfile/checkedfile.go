// Package checkedfile writes output files so that a failed write is always an
// error: every open, write, sync and close is checked, and a file is replaced
// atomically so a reader never sees half of it.
package checkedfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates path with the bytes fill writes. The content goes to a
// temporary file beside path, which is synced, closed and renamed over path
// only when every step succeeded. Special files (/dev/stdout, /dev/full) are
// written in place, since they cannot be renamed over.
func Write(path string, fill func(w io.Writer) error) (err error) {
	if st, statErr := os.Stat(path); statErr == nil && !st.Mode().IsRegular() {
		return writeInPlace(path, fill)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return fmt.Errorf("writing %s: %w (nothing was written to it)", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w (nothing was written to it)", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w (nothing was written to it)", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeInPlace(path string, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", path, err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
