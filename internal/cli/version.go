package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/tallyprof/tally/format"
)

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "Usage: tally version\n\nPrints the module version, the VCS revision it was built from, and the Go version.\n", stderr)
	if code, ok := parseNoArgs(fs, args); !ok {
		return code
	}
	_, err := io.WriteString(stdout, versionText(debug.ReadBuildInfo())+enginesLine())
	return helpWritten(stderr, "version", err)
}

// versionText describes the build from its build info: the module version
// (a tag for `go install …@vX`, "(devel)" for a local build), and the VCS
// settings `go build` stamps inside a checkout.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "tally: no build information in this binary\n"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	s := fmt.Sprintf("tally %s\nmodule %s\n", version, bi.Main.Path)
	if rev := settings["vcs.revision"]; rev != "" {
		s += "revision " + rev
		if t := settings["vcs.time"]; t != "" {
			s += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			s += ", with uncommitted changes"
		}
		s += "\n"
	} else {
		s += "revision unknown: built without VCS information (go run, go test, -buildvcs=false, or outside a git checkout);\n" +
			"  for it, build inside the checkout: go build -buildvcs=true -o tally ./cmd/tally\n"
	}
	return s + fmt.Sprintf("%s %s/%s\n", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
}

// enginesLine says what this program hands to tally-full, or that it
// links everything (handover.go).
func enginesLine() string {
	var elsewhere []string
	for _, f := range format.Formats() {
		if f.Unlinked("") != nil {
			elsewhere = append(elsewhere, fmt.Sprintf("the %s reader (%s)", f.Name, f.Engine.Name))
		}
	}
	if Exporter == nil {
		elsewhere = append(elsewhere, "tally export")
	}
	if len(elsewhere) == 0 {
		return "engines: every one linked (SQLite, the export writers)\n"
	}
	return "handed to " + fullName + ": " + strings.Join(elsewhere, ", ") + "\n"
}
