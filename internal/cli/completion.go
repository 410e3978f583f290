package cli

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tallyprof/tally/internal/exitcode"
)

// Completion scripts are generated from the commands the usage lists and the
// flags each registers (see commands, commandHelp), so a new command or flag
// completes without touching this file. tally keeps the standard flag
// package: the scripts are small, and every command's wiring stays as it is.

func cmdCompletion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("completion", "Usage: tally completion bash|zsh|fish\n\nPrints a completion script for the shell: commands, their flags, the values of every\nflag that takes one of a set (--format, --program-by, --to, --as, --order, --names…),\nand the command names after help.\n", stderr)
	pos, code, ok := parseArgs(fs, args, 1, "give one shell: bash, zsh or fish")
	if !ok {
		return code
	}
	var script string
	switch pos[0] {
	case "bash":
		script = bashCompletion(completionSpec())
	case "zsh":
		script = "# tally completion for zsh, through zsh's bash completion support:\n# source <(tally completion zsh) in ~/.zshrc, after compinit.\nautoload -U +X bashcompinit && bashcompinit\n" + bashCompletion(completionSpec())
	case "fish":
		script = fishCompletion(completionSpec())
	default:
		return usageError(fs, "unknown shell %q: give bash, zsh or fish", pos[0])
	}
	if _, err := io.WriteString(stdout, script); err != nil {
		fmt.Fprintf(stderr, "tally completion: %v\n", err)
		return exitcode.Error
	}
	return exitcode.OK
}

type cmdSpec struct {
	command
	Flags []flagSpec
}

type flagSpec struct {
	Name, Usage string
	Bool        bool
	Values      []string
}

// flagValues are the values a flag takes, when they are a known set: the
// flag says so itself (choiceFlag, multiChoice), so a new flag of choices
// completes its values without touching this file.
func flagValues(f *flag.Flag) []string {
	if c, ok := f.Value.(interface{ Choices() []string }); ok {
		return c.Choices()
	}
	return nil
}

func completionSpec() []cmdSpec {
	var out []cmdSpec
	for _, c := range commands() {
		_, flags := commandHelp(c.Name)
		cs := cmdSpec{command: c}
		for _, f := range flags {
			_, usage := flag.UnquoteUsage(f)
			isBool := false
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok {
				isBool = b.IsBoolFlag()
			}
			cs.Flags = append(cs.Flags, flagSpec{Name: f.Name, Usage: firstLine(usage), Bool: isBool, Values: flagValues(f)})
		}
		out = append(out, cs)
	}
	// help takes a command name; it is no line of the usage, so it is
	// added here (with no flags of its own).
	out = append(out, cmdSpec{command: command{Name: "help", Synopsis: "tally help [COMMAND]", Summary: "the usage, or a command's flags and examples"}})
	return out
}

// positional are the words a command takes besides flags and files.
func positional(c cmdSpec, spec []cmdSpec) []string {
	switch c.Name {
	case "completion":
		return []string{"bash", "zsh", "fish"}
	case "help":
		var names []string
		for _, o := range spec {
			if o.Name != "help" {
				names = append(names, o.Name)
			}
		}
		return names
	}
	return nil
}

// dashed writes a flag as the help shows it: -o, --format.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func specNames(spec []cmdSpec) []string {
	var names []string
	for _, c := range spec {
		names = append(names, c.Name)
	}
	return names
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func bashCompletion(spec []cmdSpec) string {
	var b strings.Builder
	names := specNames(spec)
	b.WriteString("# tally completion for bash: source <(tally completion bash)\n_tally() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" flags=\"\" words=\"\"\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(names, " "))
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	values := map[string][]string{}
	for _, c := range spec {
		var fl []string
		for _, f := range c.Flags {
			fl = append(fl, dashed(f.Name))
			if f.Values != nil {
				values[f.Name] = f.Values
			}
		}
		words := ""
		if pw := positional(c, spec); pw != nil {
			words = fmt.Sprintf(" words=%q", strings.Join(pw, " "))
		}
		fmt.Fprintf(&b, "    %s) flags=%q%s ;;\n", c.Name, strings.Join(fl, " "), words)
	}
	b.WriteString("  esac\n  case \"$prev\" in\n")
	var keys []string
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    -%s|--%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", k, k, strings.Join(values[k], " "))
	}
	b.WriteString("  esac\n")
	b.WriteString("  if [[ \"$cur\" == -* ]]; then\n    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n  elif [ -n \"$words\" ]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n")
	b.WriteString("complete -o filenames -o bashdefault -F _tally tally\n")
	return b.String()
}

func fishCompletion(spec []cmdSpec) string {
	var b strings.Builder
	names := specNames(spec)
	b.WriteString("# tally completion for fish: tally completion fish > ~/.config/fish/completions/tally.fish\n")
	b.WriteString("complete -c tally -f\n")
	for _, c := range spec {
		fmt.Fprintf(&b, "complete -c tally -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", strings.Join(names, " "), c.Name, fishQuote(c.Summary))
	}
	for _, c := range spec {
		cond := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.Name)
		if pw := positional(c, spec); pw != nil {
			fmt.Fprintf(&b, "complete -c tally -n %s -a %s\n", cond, fishQuote(strings.Join(pw, " ")))
		} else {
			fmt.Fprintf(&b, "complete -c tally -n %s -F\n", cond)
		}
		for _, f := range c.Flags {
			opt := "-l"
			if len(f.Name) == 1 {
				opt = "-s"
			}
			line := fmt.Sprintf("complete -c tally -n %s %s %s -d %s", cond, opt, f.Name, fishQuote(f.Usage))
			if f.Values != nil {
				line += " -x -a " + fishQuote(strings.Join(f.Values, " "))
			} else if !f.Bool {
				line += " -r -F"
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
