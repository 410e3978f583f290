//go:build !unix

package nsys

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
