//go:build !unix

package inputs

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
