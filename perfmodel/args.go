package perfmodel

import (
	"encoding/json"
	"strconv"
	"strings"
)

// call is one op call's recorded args, parsed.
type call struct {
	dims     [][]int64 // per input: the tensor's shape, nil when not a tensor shape
	types    []string
	concrete []string
}

// parseCall parses the canonical JSON arrays a reader stores
// (capture.Op.Dims, Types, Concrete). ok is false when Dims does not
// parse: nothing can be modelled then.
func parseCall(dims, types, concrete string) (*call, bool) {
	if dims == "" {
		return nil, false
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(dims), &raw); err != nil {
		return nil, false
	}
	c := &call{dims: make([][]int64, len(raw))}
	for i, r := range raw {
		var d []int64
		if json.Unmarshal(r, &d) == nil {
			c.dims[i] = d // a tensor list ([[…],[…]]) stays nil: not modelled
		}
	}
	if types != "" {
		_ = json.Unmarshal([]byte(types), &c.types) // unparsed: no dtypes
	}
	if concrete != "" {
		var cs []any
		if json.Unmarshal([]byte(concrete), &cs) == nil {
			for _, v := range cs {
				s, _ := v.(string)
				c.concrete = append(c.concrete, s)
			}
		}
	}
	return c, true
}

// shape is input i's shape when it is a tensor of rank ≥ minRank.
func (c *call) shape(i, minRank int) ([]int64, bool) {
	if i >= len(c.dims) || c.dims[i] == nil || len(c.dims[i]) < minRank {
		return nil, false
	}
	// A negative dim, or more elements than an int64 counts, is no
	// tensor's shape (checked.go).
	if _, ok := elems(c.dims[i]); !ok {
		return nil, false
	}
	return c.dims[i], true
}

// elem is input i's element type.
func (c *call) elem(i int) (elem, bool) {
	if i >= len(c.types) {
		return elem{}, false
	}
	return elemOf(c.types[i])
}

// isTensor reports whether input i is a tensor with a known element type
// (a recorded scalar has shape [] and type "Scalar").
func (c *call) isTensor(i int) bool {
	if i >= len(c.dims) || c.dims[i] == nil {
		return false
	}
	_, ok := c.elem(i)
	return ok
}

// concreteAt is concrete input i, "" when not recorded.
func (c *call) concreteAt(i int) string {
	if i >= len(c.concrete) {
		return ""
	}
	return strings.TrimSpace(c.concrete[i])
}

// boolAt reads a recorded bool ("True", "False", "1", "0"); ok false when
// not recorded.
func (c *call) boolAt(i int) (v, ok bool) {
	switch strings.ToLower(c.concreteAt(i)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// intsAt reads a recorded int list ("[1, 1]", "2") or returns def.
func (c *call) intsAt(i int, def []int64) ([]int64, bool) {
	s := c.concreteAt(i)
	if s == "" {
		return def, true
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// prod is the number of elements of a shape (1 for a scalar's []).
func prod(s []int64) float64 {
	p := 1.0
	for _, d := range s {
		p *= float64(d)
	}
	return p
}
