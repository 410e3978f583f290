package analysis

import "github.com/tallyprof/tally/capture"

// nsProgram is a capture timed in ns holding one program, name, with the
// given kernels (their ids in order).
func nsProgram(name string, kernels ...string) (*capture.Capture, capture.ProgramID, []capture.KernelID) {
	c := &capture.Capture{Clock: capture.Clock{Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: name})
	ks := make([]capture.KernelID, len(kernels))
	for i, k := range kernels {
		ks[i] = c.AddKernel(capture.Kernel{Program: p, Name: k})
	}
	return c, p, ks
}
