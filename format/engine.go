package format

import (
	"fmt"
	"slices"
)

// Engine is a library a reader reads with that a program may leave out:
// the SQLite engine of the nsys and rocpd readers costs every run of a
// program that links it about 10 ms of start-up, so the tally command
// leaves it to tally-full. A reader whose engine is not linked is still
// registered — its files are recognised and named — but reading one ends
// in a *NoEngineError.
type Engine struct {
	// Name is what the engine is, for messages: "SQLite".
	Name string
	// Import is the package a program imports for its side effect to
	// link the engine.
	Import string
	// Linked reports whether this program links the engine.
	Linked func() bool
}

// NoEngineError is a read of a file whose reader's engine this program
// does not link.
type NoEngineError struct {
	Path   string
	Reader string
	Engine *Engine
}

func (e *NoEngineError) Error() string {
	return fmt.Sprintf("%s: the %s reader reads with the %s engine, which this program does not link (a Go program imports _ %q; the tally command hands such inputs to tally-full)",
		e.Path, e.Reader, e.Engine.Name, e.Engine.Import)
}

// Unlinked returns the *NoEngineError of reading path with reader f, or
// nil when f's engine is linked (or f needs none).
func (f Format) Unlinked(path string) error {
	if f.Engine == nil || f.Engine.Linked() {
		return nil
	}
	return &NoEngineError{Path: path, Reader: f.Name, Engine: f.Engine}
}

// AnyUnlinked reports whether a registered reader's engine is not linked:
// when none is, no input needs a check before it is read.
func AnyUnlinked() bool {
	return slices.ContainsFunc(Formats(), func(f Format) bool { return f.Unlinked("") != nil })
}
