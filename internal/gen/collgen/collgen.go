// Package collgen writes synthetic PyTorch profiler (Kineto) traces of a
// distributed job, one per rank, whose only device work is NCCL collective
// kernels carrying the collective args newer PyTorch writes ("Collective
// name", "Process Group Name", "Seq", "In msg nelems" …). The arrivals are
// planted so that every figure of the collective analysis is known exactly:
//
//   - instance i's earliest arrival is Start + i·Period, by rank 0; rank r
//     (not the slow one) arrives r·Step ns after it;
//   - the slow rank arrives Delay ns after rank 0 (Delay above every other
//     rank's offset): it is every instance's straggler, the skew is Delay,
//     and rank r waits Delay − r·Step;
//   - every rank's kernel ends Transfer ns after the slow rank's arrival;
//   - the Missing instance is not written on the Missing rank.
//
// Instances alternate allreduce (Elems float32 elements) and allgather
// (Elems/n per rank in, Elems out), so the byte counts and bandwidth
// formulas of both types are exercised.
package collgen

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Config shapes the job.
type Config struct {
	Ranks     int
	Instances int
	// Slow is the planted straggler rank (-1: none); Delay how late it
	// arrives after rank 0; Step the offset of each other rank.
	Slow  int
	Delay int64
	Step  int64
	// Transfer is the time from the last arrival to every rank's end.
	Transfer int64
	Period   int64
	Elems    int64
	// MissingRank's MissingInstance is not written (-1: none).
	MissingRank, MissingInstance int
	// NoSeq leaves "Seq" out: instances are then matched by order.
	NoSeq bool
}

// Default is a small job: 8 ranks, 6 instances, rank 5 slow by 40 µs, rank
// 2's instance 3 missing.
func Default() Config {
	return Config{Ranks: 8, Instances: 6, Slow: 5, Delay: 40_000, Step: 100, Transfer: 250_000,
		Period: 1_000_000, Elems: 1 << 20, MissingRank: 2, MissingInstance: 3}
}

// Start is the first instance's first arrival, ns since the epoch.
const Start = int64(1_712_195_495_520_000_000)

// Arrival is when rank r's kernel of instance i starts.
func (c Config) Arrival(r, i int) int64 {
	a := Start + int64(i)*c.Period
	if r == c.Slow {
		return a + c.Delay
	}
	return a + int64(r)*c.Step
}

// LastArrival is instance i's last arrival (over every rank, written or
// not).
func (c Config) LastArrival(i int) int64 {
	last := int64(0)
	for r := range c.Ranks {
		last = max(last, c.Arrival(r, i))
	}
	return last
}

// Type is instance i's collective type.
func (c Config) Type(i int) string {
	if i%2 == 0 {
		return "allreduce"
	}
	return "allgather"
}

// Bytes is instance i's message size as nccl-tests counts it.
func (c Config) Bytes(i int) int64 { return c.Elems * 4 }

// WriteDir writes every rank's trace into dir as rank-NNNNN.json (names
// sort in rank order) and returns their paths.
func WriteDir(dir string, c Config) ([]string, error) {
	paths := make([]string, 0, c.Ranks)
	for r := range c.Ranks {
		p := filepath.Join(dir, fmt.Sprintf("rank-%05d.json", r))
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		err = Write(f, c, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Write writes rank r's trace.
func Write(w io.Writer, c Config, r int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},`+"\n", r, c.Ranks)
	bw.WriteString(`"traceEvents": [` + "\n")
	ranks := groupRanks(c.Ranks)
	first := true
	for i := range c.Instances {
		if r == c.MissingRank && i == c.MissingInstance {
			continue
		}
		corr := 1000 + i
		begin := c.Arrival(r, i)
		end := c.LastArrival(i) + c.Transfer
		launch := begin - 20_000
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(bw, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": %s, "dur": 5.000, "args": {"External id": %d, "correlation": %d}},`+"\n",
			us(launch), corr, corr)
		in, out := c.Elems, c.Elems
		name := "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
		if c.Type(i) == "allgather" {
			in = c.Elems / int64(c.Ranks)
			name = "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
		}
		seq := ""
		if !c.NoSeq {
			seq = fmt.Sprintf(`, "Seq": %d`, i)
		}
		fmt.Fprintf(bw, `{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 25, "ts": %s, "dur": %s, "args": {"External id": %d, "device": 0, "stream": 25, "correlation": %d, "Collective name": %q, "dtype": "Float", "In msg nelems": %d, "Out msg nelems": %d, "Group size": %d, "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": %q, "Rank": %d%s}}`,
			name, us(begin), us(end-begin), corr, corr, c.Type(i), in, out, c.Ranks, ranks, r, seq)
	}
	if !first {
		bw.WriteString(",\n")
	}
	end := c.LastArrival(c.Instances-1) + c.Transfer + 1_000
	fmt.Fprintf(bw, `{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": %s}`, us(end))
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// us writes ns as Kineto's µs with three decimals.
func us(ns int64) string { return fmt.Sprintf("%d.%03d", ns/1000, ns%1000) }

// groupRanks lists the group's ranks as PyTorch does: "[0, 1, 2]", cut
// after 30 ranks as "[0, 1, …, 29, ...]".
func groupRanks(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range min(n, 30) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	if n > 30 {
		b.WriteString(", ...")
	}
	b.WriteByte(']')
	return b.String()
}
