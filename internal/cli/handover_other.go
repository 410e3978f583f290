//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
)

var exeSuffix = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// execFull runs tally-full as a child with this process's standard
// streams where a process cannot be replaced, and exits with its status.
func execFull(path string, args, env []string) error {
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
