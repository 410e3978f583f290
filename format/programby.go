package format

import (
	"fmt"
	"slices"
	"strings"
)

// Programs are the unit of comparison: shares compare kernels within one
// program. Each reader groups dispatches into its own programs (an NVTX
// range, a Kineto annotation, an IREE command buffer, an hrx command
// program: "annotation" below). --program-by regroups them, the same way
// for every reader that records where dispatches ran (Queue.Device,
// Queue.Name):
//
//	auto            the reader's programs, one per device when the capture
//	                ran on several (the default)
//	annotation      the reader's programs, across devices
//	gpu-annotation  Kineto's GPU annotations only (kineto)
//	device          one program per device
//	stream          one program per stream (queue)
//	none            one program for everything
//	annotation,device, annotation,stream (and gpu-annotation,…)
//	                the reader's programs, one per device or per stream
//
// A program split by device or stream is named after it: "GPU 1 ·
// aten::linear", "GPU 0 · stream 7 (pid 111) · aten::linear". Readers that
// record no device or stream for a dispatch put it under "(no device)" or
// "(no stream)" and the program says so. A reader may implement a value
// itself (Format.ProgramBy: Kineto's stream and none, with its own names
// and notes); regroup.go does the rest for every reader alike.

// ProgramBy values.
const (
	ByAuto          = "auto"
	ByAnnotation    = "annotation"
	ByGPUAnnotation = "gpu-annotation"
	ByDevice        = "device"
	ByStream        = "stream"
	ByNone          = "none"
)

// ProgramByValues lists what --program-by takes (for help and completion).
var ProgramByValues = []string{ByAuto, ByAnnotation, ByGPUAnnotation, ByDevice, ByStream, ByNone,
	ByAnnotation + "," + ByDevice, ByAnnotation + "," + ByStream}

// Grouping is a parsed --program-by.
type Grouping struct {
	// Base is how dispatches first form programs: "annotation" or
	// "gpu-annotation" (the reader's own programs), or "" (none: one
	// program, before Split).
	Base string
	// Split is "device" or "stream" to make one program per device or
	// stream (of each Base program), or "".
	Split string
	// Auto splits by device only when the capture's dispatches ran on
	// more than one device.
	Auto bool
}

// ParseProgramBy reads a --program-by value ("" is auto).
func ParseProgramBy(s string) (Grouping, error) {
	switch s {
	case "", ByAuto:
		return Grouping{Base: ByAnnotation, Split: ByDevice, Auto: true}, nil
	case ByNone:
		return Grouping{}, nil
	}
	var g Grouping
	for _, part := range strings.Split(s, ",") {
		switch part = strings.TrimSpace(part); part {
		case ByAnnotation, ByGPUAnnotation:
			if g.Base != "" {
				return g, programByError(s)
			}
			g.Base = part
		case ByDevice, ByStream:
			if g.Split != "" {
				return g, programByError(s)
			}
			g.Split = part
		default:
			return g, programByError(s)
		}
	}
	return g, nil
}

func programByError(s string) error {
	return fmt.Errorf("unknown --program-by %q: use %s", s, strings.Join(ProgramByValues, ", "))
}

// String is the value as --program-by takes it.
func (g Grouping) String() string {
	switch {
	case g.Auto:
		return ByAuto
	case g.Base == "" && g.Split == "":
		return ByNone
	case g.Base == "":
		return g.Split
	case g.Split == "":
		return g.Base
	}
	return g.Base + "," + g.Split
}

// native is the value reader f is given in Options.ProgramBy and what is
// left for regroup to do: the whole value when f implements it, else the
// base alone (the reader's programs, or a value f knows for none) with the
// split, merge or auto split done here.
func (g Grouping) native(f Format) (string, Grouping, error) {
	if v := g.String(); !g.Auto && slices.Contains(f.ProgramBy, v) {
		return v, Grouping{Base: ByAnnotation}, nil
	}
	if g.Base == ByGPUAnnotation && !slices.Contains(f.ProgramBy, ByGPUAnnotation) {
		return "", g, fmt.Errorf("--program-by %s: the %s reader has no GPU annotations (only kineto does); use annotation, device, stream or none", g, f.Name)
	}
	if g.Base == "" {
		return "", g, nil // regroup merges the reader's programs
	}
	base := ""
	if len(f.ProgramBy) > 0 {
		base = g.Base
	}
	return base, g, nil
}
