package inputs

import (
	"os"

	"github.com/tallyprof/tally/format"
)

// Unlinked returns a *format.NoEngineError when the reader of an input —
// the one forced, or the one its content names — reads with an engine
// this program does not link (format.Engine), before anything is read:
// the tally command then hands the whole command to tally-full. It looks
// only where a reader lacks its engine (never in tally-full), and
// remembers what it recognised, so Read does not sniff a file twice.
// Standard input and other streams are not looked at, as that would
// consume them; their read ends in the error instead.
func (e *Expansion) Unlinked(forced string) error {
	if !format.AnyUnlinked() {
		return nil
	}
	if forced != "" {
		if f, ok := format.Lookup(forced); ok && len(e.Paths) > 0 {
			return f.Unlinked(e.Paths[0])
		}
		return nil
	}
	var unknown []string
	for _, p := range e.Paths {
		if _, known := e.certain[p]; known {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			unknown = append(unknown, p)
		}
	}
	_, names := recogniseAll(unknown, "")
	if e.certain == nil {
		e.certain = map[string]string{}
	}
	for i, p := range unknown {
		if names[i] != "" {
			e.certain[p] = names[i]
		}
	}
	for _, p := range e.Paths {
		if f, ok := format.Lookup(e.certain[p]); ok {
			if err := f.Unlinked(p); err != nil {
				return err
			}
		}
	}
	return nil
}
