//go:build !linux

package checkedfile

import "errors"

// exchange is not offered here: Commit moves the old directory aside.
var exchange = func(a, b string) error { return errors.ErrUnsupported }
