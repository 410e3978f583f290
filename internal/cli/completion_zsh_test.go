package cli

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// zshDriver types each line of its arguments after the first (the script)
// into an interactive zsh, with the completion script loaded the way its
// header says, presses TAB and prints what the line became, marked #END,
// then clears the line (run, its output would race the next line's echo).
// zpty is zsh's own pseudo-terminal module: no expect, no terminal.
const zshDriver = `zmodload zsh/zpty || exit 3
zpty z 'zsh -f -i'
zpty -w z 'PS1="> "; autoload -U compinit && compinit -u -D; source '$1'; setopt nobeep'
shift
for line in "$@"; do
  zpty -w -n z "$line"$'\t #END'
  zpty -r z out '*#END*'
  print -r -- "${out//$'\e'\[[0-9;?]#[a-zA-Z]/}"
  zpty -w -n z $'\x15' # Ctrl-U: the line is cleared, never run
done
zpty -d z
`

// TestCompletionZshCompletes: the zsh script does more than register
// (TestCompletionOtherShells): a TAB in an interactive zsh completes a
// subcommand, a flag's value and help's command — what a user types (the
// third sweep checked it by hand; CI has no zsh: the test skips).
func TestCompletionZshCompletes(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh")
	}
	_, script, _ := tally("completion", "zsh")
	path := writeFile(t, t.TempDir(), "tally.zsh", script)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cases := []struct{ typed, want string }{
		{"tally rep", "tally report #END"},
		{"tally report --progress alw", "tally report --progress always #END"},
		{"tally export --to par", "tally export --to parquet #END"},
		{"tally help tim", "tally help timeline #END"},
	}
	args := []string{"-f", "-c", zshDriver, "driver", path}
	for _, c := range cases {
		args = append(args, c.typed)
	}
	out, err := exec.CommandContext(ctx, zsh, args...).CombinedOutput()
	if code := exitCode(err); code == 3 {
		t.Skip("zsh without its zpty module")
	}
	if err != nil {
		t.Fatalf("zsh: got %v\n%q\nwant it to run", err, out)
	}
	got := strings.NewReplacer("\r", "", "\b", "").Replace(string(out))
	for _, c := range cases {
		if !strings.Contains(got, c.want) {
			t.Errorf("zsh: %q<TAB>: got no %q in\n%q", c.typed, c.want, got)
		}
	}
}

// exitCode is a finished command's status, -1 when it did not exit.
func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
