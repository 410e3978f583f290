package kineto

import (
	"bytes"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/collgen"
	"github.com/tallyprof/tally/internal/testfile"
)

// A generated rank's NCCL kernels carry their collective: type, group,
// sequence number, sizes, dtype and the rank from distributedInfo; every
// other kernel carries none.
func TestCollectiveArgs(t *testing.T) {
	cfg := collgen.Default()
	var buf bytes.Buffer
	if err := collgen.Write(&buf, cfg, 3); err != nil {
		t.Fatal(err)
	}
	r := readT(t, buf.String())
	if len(r.disp) != cfg.Instances {
		t.Fatalf("got %d dispatches, want %d", len(r.disp), cfg.Instances)
	}
	for i, d := range r.disp {
		c := d.Collective
		if c == nil {
			t.Fatalf("dispatch %d: got no collective, want one", i)
		}
		wantIn := cfg.Elems
		if cfg.Type(i) == "allgather" {
			wantIn = cfg.Elems / int64(cfg.Ranks)
		}
		if c.Type != cfg.Type(i) || c.Group != "0" || c.GroupDesc != "default_pg" || c.Seq != int64(i) || c.InElems != wantIn ||
			c.OutElems != cfg.Elems || c.Dtype != "Float" || c.ElemSize != 4 || c.GroupSize != int64(cfg.Ranks) ||
			c.Rank != 3 || c.GroupRank != 3 || c.GroupRanks != "[0, 1, 2, 3, 4, 5, 6, 7]" {
			t.Errorf("dispatch %d: got %+v, want %s, seq %d, %d Float elems in, %d out, rank 3 of %d in group 0 default_pg", i, *c, cfg.Type(i), i, wantIn, cfg.Elems, cfg.Ranks)
		}
		if d.Device.Begin != cfg.Arrival(3, i) {
			t.Errorf("dispatch %d: begins at %d, want %d", i, d.Device.Begin, cfg.Arrival(3, i))
		}
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("generated rank: got gaps %s, want none", gapText(r.c))
	}
	// A plain kernel is no collective; an NCCL kernel without args (older
	// traces) is one of the type its name says, without a group.
	r = readT(t, trace([]string{
		kernel("ampere_sgemm_128x64_nn", "5", "1010.000", "3.001"),
		kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "6", "1020.000", "3.001"),
	}))
	if len(r.disp) != 2 || r.disp[0].Collective != nil || r.disp[1].Collective == nil {
		t.Fatalf("got %d dispatches, collectives %v %v; want 2, nil, one", len(r.disp), r.disp[0].Collective, r.disp[1].Collective)
	}
	if c := r.disp[1].Collective; c.Type != "sendrecv" || c.Group != "" || c.Seq != -1 || c.Rank != -1 {
		t.Errorf("name-only NCCL kernel: got %+v, want type sendrecv, no group, seq and rank unknown", *c)
	}
}

// Older PyTorch: the group is "Process Group ID"; a name wins over it.
func TestCollectiveGroupID(t *testing.T) {
	r := readT(t, trace([]string{
		`{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 1000.000, "dur": 2.000, "args": {"device": 0, "stream": 7, "correlation": 5, "Collective name": "_allgather_base", "Process Group ID": 4, "dtype": "BFloat16", "In msg nelems": 8, "Out msg nelems": 16}}`,
		`{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 1003.000, "dur": 2.000, "args": {"device": 0, "stream": 7, "correlation": 6, "Process Group ID": 4, "Process Group Name": "tp", "Collective name": "reduce_scatter_tensor_coalesced"}}`,
	}))
	if len(r.disp) != 2 {
		t.Fatalf("got %d dispatches, want 2", len(r.disp))
	}
	if c := r.disp[0].Collective; c.Group != "4" || c.Type != "allgather" || c.ElemSize != 2 {
		t.Errorf("got group %q type %q elem size %d, want 4 allgather 2", c.Group, c.Type, c.ElemSize)
	}
	if c := r.disp[1].Collective; c.Group != "tp" || c.Type != "reducescatter" {
		t.Errorf("got group %q type %q, want tp reducescatter", c.Group, c.Type)
	}
}

// The public trace with NCCL args on record_param_comms (group size 1, no
// NCCL kernel) reads without a collective and without a new gap.
func TestCollectivePublicTrace(t *testing.T) {
	data := testfile.Gunzip(t, "testdata/hta__ns_resolution_rank-0.pt.trace.json.gz")
	var col capture.Collect
	c, err := readFrom(bytes.NewReader(data), "hta.json", &format.Options{}, &col, config{bufSize: 1 << 16, logRecords: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range col.Dispatches {
		if d.Collective != nil {
			t.Fatalf("got a collective %+v, want none (no NCCL kernel in this trace)", *d.Collective)
		}
	}
	_ = c
}

// Hostile collective args are read as unknown, never as a wrong number: a
// negative sequence, a rank that is no number, an object for a string (1e3
// is the integer 1000, as JSON has it); a number
// where a string is expected is kept as written.
func TestCollectiveHostileArgs(t *testing.T) {
	r := readT(t, trace([]string{
		`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 1000.000, "dur": 2.000, "args": {"correlation": 1, "Collective name": "allreduce", "Seq": -4, "In msg nelems": "12", "Out msg nelems": 9223372036854775807, "dtype": {"a": 1}, "Group size": 1e3, "Process Group Name": 17, "Rank": "x"}}`,
	}))
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1", len(r.disp))
	}
	c := r.disp[0].Collective
	if c.Seq != -1 || c.InElems != 12 || c.OutElems != 9223372036854775807 || c.Dtype != "" || c.ElemSize != 0 ||
		c.GroupSize != 1000 || c.Group != "17" || c.GroupRank != -1 || c.Type != "allreduce" {
		t.Errorf("got %+v, want allreduce, seq -1, 12 elems in, 9223372036854775807 out, no dtype or size, group 17 of 1000, group rank -1", *c)
	}
	if _, ok := c.Bytes(); ok {
		t.Error("unknown element size: got bytes, want unknown")
	}
}
