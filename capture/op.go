package capture

import "fmt"

// OpID names a host operation signature in Capture.Ops: OpID n is
// Ops[n-1]. The zero value means "no op", so every Dispatch literal that
// does not set it says its launch lies under no op (or that the format
// records none), never that it was launched by the first op.
type OpID int32

// NoOp is the zero OpID: no host op is known for the dispatch.
const NoOp OpID = 0

// Op is a host operation signature: the op name with the call shapes,
// dtypes and concrete inputs the format recorded (Kineto's record_shapes),
// and the module path where recorded. Many calls share one signature, so
// the table grows with distinct signatures, never with calls. Whether an
// op is the innermost or the outermost one around a launch is a property of
// the reference (Dispatch.Op, Dispatch.OuterOp), not of the op.
type Op struct {
	// Name is the op as the host recorded it: "aten::mm", an NVTX range,
	// a ROCTx marker.
	Name string `json:"name"`
	// Kind is what the format recorded the op as: "cpu_op",
	// "user_annotation", "nvtx", "roctx".
	Kind string `json:"kind,omitempty"`
	// Path is the module or Python path the op ran under, outermost first
	// and joined by "/" ("nn.Module: Qwen2Model_0/nn.Module: Linear_3"),
	// or "" when not recorded.
	Path string `json:"path,omitempty"`
	// Dims, Types and Concrete are the call's input shapes, dtypes and
	// concrete (scalar) inputs as canonical compact JSON arrays
	// ("[[8,4096],[4096,4096]]", `["c10::BFloat16","c10::BFloat16"]`), ""
	// when not recorded.
	Dims     string `json:"input_dims,omitempty"`
	Types    string `json:"input_types,omitempty"`
	Concrete string `json:"concrete_inputs,omitempty"`
	// Calls counts the calls of this signature that launched at least one
	// dispatch in the tables, directly or through ops inside them; HostNS
	// is the summed host duration of those calls (HostValid false when the
	// format records no host times).
	Calls     int64 `json:"calls"`
	HostNS    int64 `json:"host_ns"`
	HostValid bool  `json:"host_valid"`
	// GraphLaunches counts the graph launches under calls of this op that
	// replayed at least one dispatch: their kernels are attributed to the
	// op around the launch.
	GraphLaunches int64 `json:"graph_launches,omitempty"`
	// API is the runtime call that launched the op's dispatches when the
	// format names one op per API call (nsys: the CUDA API call), "" else.
	API string `json:"api,omitempty"`
}

// AddOp appends an op signature and returns its id (≥ 1); a name longer
// than MaxName is cut (Name).
func (c *Capture) AddOp(o Op) OpID {
	o.Name = c.Name(o.Name)
	c.Ops = append(c.Ops, o)
	return OpID(len(c.Ops))
}

// Op returns the op id names, nil for NoOp or an id out of range.
func (c *Capture) Op(id OpID) *Op {
	if id <= 0 || int(id) > len(c.Ops) {
		return nil
	}
	return &c.Ops[id-1]
}

// checkOps verifies the op table: every op is named and its counts are
// not negative.
func (c *Capture) checkOps() error {
	for i := range c.Ops {
		o := &c.Ops[i]
		if o.Name == "" {
			return fmt.Errorf("op %d has no name", i+1)
		}
		if o.Calls < 0 || o.HostNS < 0 || o.GraphLaunches < 0 {
			return fmt.Errorf("op %d (%q) has %d calls and %d ns of host time", i+1, o.Name, o.Calls, o.HostNS)
		}
	}
	return nil
}

// checkOpRef verifies a dispatch's op references.
func (c *Capture) checkOpRef(d *Dispatch) error {
	for _, id := range [2]OpID{d.Op, d.OuterOp} {
		if id < 0 || int(id) > len(c.Ops) {
			return fmt.Errorf("dispatch of kernel %q references op %d, but the capture has %d ops", c.Kernels[d.Kernel].Name, id, len(c.Ops))
		}
	}
	if d.Op == NoOp && d.OuterOp != NoOp {
		return fmt.Errorf("dispatch of kernel %q has an outermost op but no innermost op", c.Kernels[d.Kernel].Name)
	}
	return nil
}
