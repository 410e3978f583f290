package checkedfile

import "golang.org/x/sys/unix"

// exchange swaps the names a and b in one rename (both must exist); a
// variable so a test can take the other systems' path.
var exchange = func(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
