package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/tallyprof/tally/internal/exitcode"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// pathsFlag is a repeatable flag of paths that must exist when given: a
// reader that does not use the flag (--manifests with a Kineto input)
// would otherwise drop a mistyped path without a word.
type pathsFlag struct{ multiFlag }

func (p *pathsFlag) Set(v string) error {
	if _, err := os.Stat(v); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %v", v, err)
	}
	return p.multiFlag.Set(v)
}

// choiceFlag is a flag with a known set of values: Set refuses any other
// (check, when given, decides instead, for values with variants such as
// "annotation,device"), and the completion scripts offer Choices.
type choiceFlag struct {
	value   string
	choices []string
	check   func(string) error
}

func (c *choiceFlag) String() string {
	if c == nil {
		return ""
	}
	return c.value
}

func (c *choiceFlag) Set(s string) error {
	switch {
	case c.check != nil:
		if err := c.check(s); err != nil {
			return err
		}
	case !slices.Contains(c.choices, s):
		return fmt.Errorf("give %s", orList(c.choices))
	}
	c.value = s
	return nil
}

// Choices are the values the completion scripts offer.
func (c *choiceFlag) Choices() []string { return c.choices }

// choice registers a flag taking one of choices (check: see choiceFlag).
func choice(fs *flag.FlagSet, name, def, usage string, choices []string, check func(string) error) *string {
	c := &choiceFlag{value: def, choices: choices, check: check}
	fs.Var(c, name, usage)
	return &c.value
}

// multiChoice is a repeatable flag of comma-separated values from a known
// set (--accept): check validates each value as given.
type multiChoice struct {
	multiFlag
	choices func() []string
	check   func(string) error
}

func (m *multiChoice) Set(v string) error {
	if err := m.check(v); err != nil {
		return err
	}
	return m.multiFlag.Set(v)
}

func (m *multiChoice) Choices() []string { return m.choices() }

// orList writes "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`tally report trace.kept --json`); "--" ends flag parsing. A
// flag error is one line naming the command's help (usageError), not the
// whole help: -h prints that.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := flagAsValue(fs, args); err != nil {
		usageError(fs, "%v", err)
		return nil, err
	}
	var pos []string
	for {
		if err := parseQuiet(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if it stopped there.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagAsValue refuses a flag's value that is another of the command's
// flags: `--html -o out.html trace.json` took "-o" as the page's file
// name, wrote the page to a file named -o, read out.html as an input and
// exited 0 (the third sweep). A file really named so is given as ./-o.
func flagAsValue(fs *flag.FlagSet, args []string) error {
	for i := 0; i+1 < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		name, ok := strings.CutPrefix(a, "-")
		if !ok || name == "" || strings.Contains(name, "=") {
			continue
		}
		name = strings.TrimPrefix(name, "-")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		v := args[i+1]
		i++ // the value is no flag of its own
		vn, ok := strings.CutPrefix(v, "-")
		if !ok || vn == "" {
			continue
		}
		vn, _, _ = strings.Cut(strings.TrimPrefix(vn, "-"), "=")
		if fs.Lookup(vn) != nil {
			return fmt.Errorf("%s %s: %s is a flag, not the value %s takes; give %s its value (a file named %s: ./%s)", a, v, v, a, a, v, v)
		}
	}
	return nil
}

// parseArgs parses the flags of a command that takes exactly n
// arguments, and returns them; want says what to give when their number
// is another. ok false: a flag error, -h or another number of arguments,
// and code is the exit status.
func parseArgs(fs *flag.FlagSet, args []string, n int, want string) (pos []string, code int, ok bool) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return nil, exitcode.Error, false
	case len(pos) != n:
		return nil, usageError(fs, "%s", want), false
	}
	return pos, exitcode.OK, true
}

// parseNoArgs parses the flags of a command that takes no arguments
// (parseArgs).
func parseNoArgs(fs *flag.FlagSet, args []string) (code int, ok bool) {
	_, code, ok = parseArgs(fs, args, 0, "takes no arguments")
	return code, ok
}

// parseQuiet is fs.Parse with the flag package's own messages held back:
// it would print the error and the whole help. -h prints the help; an
// error prints one line.
func parseQuiet(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
	case err != nil:
		usageError(fs, "%v", err)
	}
	return err
}

// usageError prints a usage error of fs's command on one line, with where
// to read about it, and returns the exit status of a usage error.
func usageError(fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(fs.Output(), "tally %s: %s; see: tally help %s\n", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
	return exitcode.Error
}

// exitStatusLine ends a command's help. inspect describes an empty capture
// (exit 0; with --strict, 1: it is a gap) where the other commands refuse it.
func exitStatusLine(command string) string {
	if command == "inspect" {
		return "\nExit status: 0 written (an empty capture too: it is described); 1 --strict and incomplete (an empty capture is); 2 usage or input error.\n"
	}
	return "\nExit status: 0 written; 1 --strict and incomplete; 2 usage or input error, or empty capture.\n"
}

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		io.WriteString(stderr, synopsis)
		fs.PrintDefaults()
		writeExamples(stderr, name)
		io.WriteString(stderr, exitStatusLine(name))
	}
	noteFlagSet(fs)
	return fs
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
