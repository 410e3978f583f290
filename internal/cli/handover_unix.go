//go:build unix

package cli

import "syscall"

const exeSuffix = ""

// execFull replaces this process with tally-full: one process, so signals,
// the exit status and the standard streams are tally-full's own.
func execFull(path string, args, env []string) error {
	return syscall.Exec(path, append([]string{fullName}, args...), env)
}
