// Package checkedfile writes output files so that a failed write is always an
// error: every open, write, sync and close is checked, and a file is replaced
// atomically so a reader never sees half of it.
package checkedfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write creates path with the bytes fill writes. The content goes to a
// temporary file beside path, which is synced, closed and renamed over path
// only when every step succeeded. Special files (/dev/stdout, /dev/full) are
// written in place, since they cannot be renamed over.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dest, inPlace := resolve(path)
	if inPlace {
		return writeInPlace(path, fill)
	}
	dir := filepath.Dir(dest)
	tmp, err := createTemp(dir, "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			removeTemp(tmp.Name())
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
	if _, err = renameTemps([2]string{tmp.Name(), dest}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// resolve returns the file to replace for the output path, and whether
// path is a special file to write in place instead. /dev/stdout with
// standard output redirected to a file is a link to /proc/self/fd/1, which
// stats as that regular file: it used to be "replaced" by a new file in
// /dev, and the output never reached the redirected file. A link to an
// open file descriptor is written in place (appending, as a shell's >>
// would keep); any other link is followed, so the file it names is
// replaced and the link stays a link.
func resolve(path string) (dest string, inPlace bool) {
	st, err := os.Stat(path)
	if err != nil {
		return path, false // created (a dangling link is replaced)
	}
	if !st.Mode().IsRegular() || fdLink(path) {
		return path, true
	}
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return real, false
		}
		return path, true
	}
	return path, false
}

// IsDescriptor reports whether path names an open file descriptor
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N), directly or through links:
// such a path may stat as a regular file (a redirected stdout) but is no
// place beside which to write a second file.
func IsDescriptor(path string) bool { return fdLink(path) }

// fdLink reports whether path names an open file descriptor (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), directly or through links.
func fdLink(path string) bool {
	for range 8 {
		if strings.HasPrefix(path, "/dev/fd/") || (strings.HasPrefix(path, "/proc/") && strings.Contains(path, "/fd/")) {
			return true
		}
		t, err := os.Readlink(path)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return false
}

func writeInPlace(path string, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
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
