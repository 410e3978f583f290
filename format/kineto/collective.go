package kineto

import (
	"bytes"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// Collectives: the communication kernels of NCCL, RCCL and MSCCL, named
// ncclKernel_*, ncclDevKernel_*, rcclKernel_*, mscclKernel_* (by prefix: a
// name test on every kernel must stay cheap). PyTorch's profiler copies the
// collective's metadata from its record_param_comms host op onto the
// kernel's args (Kineto's kernel args since PyTorch 2.3: "Collective name",
// "dtype", "In msg nelems", "Out msg nelems", "Group size", "Process Group
// Name", "Process Group Description", "Process Group Ranks", "Rank", "Seq");
// older traces carry them only on record_param_comms (with "Process Group
// ID", "Global rank start", "Global rank stride"), which this reader does
// not link to kernels: their kernels are collectives of a type read from
// the kernel name and no group, and are not matched across ranks
// (docs/formats/kineto.md, "Collectives").
//
// Memory: one capture.Collective per collective kernel (O(collective
// instances)), looked up by the event's input offset when the dispatch log
// is replayed.

// collectiveKernel reports whether a device event's name is a collective
// library's kernel.
func collectiveKernel(name []byte) bool {
	return bytes.HasPrefix(name, []byte("nccl")) || bytes.HasPrefix(name, []byte("rccl")) ||
		bytes.HasPrefix(name, []byte("msccl"))
}

// collState is the collective being read from one kernel's args.
type collState struct {
	c    capture.Collective
	pgID int64 // "Process Group ID" (older traces), -1 none
	buf  []byte
	// byOff holds the kernels' collectives by input offset.
	byOff map[int64]*capture.Collective
}

// beginCollective starts reading a collective kernel's args.
func (r *reader) beginCollective() {
	r.coll.c = capture.UnknownCollective()
	r.coll.pgID = -1
}

// collArg reads the value of args key k when it is a collective's, and
// reports whether it did (false: the value is still to be read).
func (r *reader) collArg(k []byte) bool {
	c := &r.coll.c
	switch string(k) {
	case "Collective name":
		c.Name = r.collText()
	case "dtype":
		c.Dtype = r.collText()
	case "Process Group Name":
		c.Group = r.collText()
	case "Process Group Description":
		c.GroupDesc = r.collText()
	case "Process Group Ranks":
		c.GroupRanks = r.collText()
	case "In msg nelems":
		c.InElems = r.collCount()
	case "Out msg nelems":
		c.OutElems = r.collCount()
	case "Group size":
		c.GroupSize = r.collCount()
	case "Global rank start":
		c.RankStart = r.collCount()
	case "Global rank stride":
		c.RankStride = r.collCount()
	case "Rank":
		c.GroupRank = r.collCount()
	case "Seq":
		c.Seq = r.collCount()
	case "Process Group ID":
		r.coll.pgID = r.collCount()
	default:
		return false
	}
	return true
}

// collText reads a string (or a number, as written) argument.
func (r *reader) collText() string {
	s := r.s
	c := s.nonWS()
	if c == '-' || isDigit(c) {
		return string(s.checkedNum())
	}
	r.coll.buf, _ = s.strValue(r.coll.buf[:0])
	return string(r.coll.buf)
}

// collCount reads a count: -1 when absent, negative or not an integer.
func (r *reader) collCount() int64 {
	n, ok := r.argInt()
	if !ok || n < 0 {
		return -1
	}
	return n
}

// endCollective keeps the collective of the device event just read.
func (r *reader) endCollective(name []byte) {
	c := r.coll.c
	if c.Group == "" && r.coll.pgID >= 0 {
		c.Group = itoa(r.coll.pgID)
	}
	c.Type = collectiveType(c.Name)
	if c.Name == "" {
		c.Type = kernelCollectiveType(name)
	}
	c.ElemSize = dtypeSize(c.Dtype)
	if r.coll.byOff == nil {
		r.coll.byOff = make(map[int64]*capture.Collective)
	}
	r.coll.byOff[r.ev.off] = &c
}

// collectiveOf is the collective of the device event at off, with the
// input's rank; nil when the event is not a collective.
func (r *reader) collectiveOf(off int64, dst *capture.Collective) *capture.Collective {
	c := r.coll.byOff[off]
	if c == nil {
		return nil
	}
	*dst = *c
	if r.top.hasDist && r.top.dist.hasRank && r.top.dist.rank >= 0 {
		dst.Rank = r.top.dist.rank
	}
	return dst
}

// collectiveType normalises PyTorch's collective names ("allreduce",
// "_allgather_base", "all_gather_into_tensor_coalesced", "reduce_scatter_tensor",
// "all_to_allv", "send") to capture.CollectiveTypes; "" when unknown.
func collectiveType(name string) string {
	n := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	for _, p := range []struct{ prefix, typ string }{
		{"allreduce", "allreduce"}, {"allgather", "allgather"}, {"reducescatter", "reducescatter"},
		{"alltoall", "alltoall"}, {"broadcast", "broadcast"}, {"reduce", "reduce"}, {"sendrecv", "sendrecv"},
		{"send", "send"}, {"recv", "recv"}, {"barrier", "barrier"}, {"gather", "gather"}, {"scatter", "scatter"},
	} {
		if strings.HasPrefix(n, p.prefix) {
			return p.typ
		}
	}
	return ""
}

// kernelCollectiveType reads the type from a kernel name:
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_SendRecv(...);
// "" for generic kernels (ncclDevKernel_Generic).
func kernelCollectiveType(name []byte) string {
	_, rest, ok := bytes.Cut(name, []byte("_"))
	if !ok {
		return ""
	}
	if i := bytes.IndexAny(rest, "_("); i >= 0 {
		rest = rest[:i]
	}
	return collectiveType(string(rest))
}

// dtypeSize is the size in bytes of PyTorch's scalar type names (c10
// ScalarType, as record_param_comms writes them); 0 when unknown.
func dtypeSize(dtype string) int64 {
	switch dtype {
	case "Byte", "Char", "Bool", "QInt8", "QUInt8", "Float8_e5m2", "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz", "UInt8", "Int8":
		return 1
	case "Short", "Half", "BFloat16", "UInt16", "Int16":
		return 2
	case "Int", "Float", "QInt32", "ComplexHalf", "UInt32", "Int32":
		return 4
	case "Long", "Double", "ComplexFloat", "UInt64", "Int64":
		return 8
	case "ComplexDouble":
		return 16
	}
	return 0
}
