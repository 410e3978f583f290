// Package collectives matches the collectives of a distributed run across
// its ranks and says which rank holds the others back.
//
// Each input (one rank's trace) gets a Sink (Collector.Sink) that keeps its
// collective dispatches (capture.Dispatch.Collective): start, end and
// identity, about 120 bytes each, so memory is O(collective dispatches ×
// ranks) — O(instances × ranks in the group) — never O(events). After the
// read, Analyze matches them across the inputs:
//
//   - by (group, sequence number) when the rank's trace gives one (PyTorch's
//     "Seq"), point-to-point and collective sequences apart;
//   - else by (group, type, message bytes, ordinal of that (group, type) on
//     the rank): the n-th allreduce of a group on one rank is the n-th on
//     every other. A collective missing on one rank (a cut window, a hang)
//     shifts every later one of its (group, type) there: the misses are then
//     many, and reported as such, never silently re-paired.
//
// Send, recv and sendrecv (point to point: two ranks of the group take
// part) and collectives without a group (older traces: the kernel name
// only) are counted per rank and not matched.
//
// Per matched instance: each rank's start and end, the arrival skew (last
// start − first start), the straggler (the last to start; the lowest rank
// on a tie), each rank's wait (the straggler's start − its own), the
// transfer time (the last start → the earliest end over the ranks: the time
// every rank spent with all ranks present), the message bytes (nccl-tests'
// count, capture.Collective.Bytes) and the algorithm and bus bandwidths over
// the transfer time (nccl-tests' doc/PERFORMANCE.md factors, BusFactor).
//
// Clocks: start times of different ranks are compared as their traces
// wrote them. That is only as right as the clocks are aligned: Kineto's
// unix-epoch times of ranks on different hosts differ by the hosts' clock
// offset, which adds to (or hides) skew one for one. Analyze states the
// alignment in a collective_clocks note and, where a rank ended a symmetric
// collective before another rank started it (impossible on one clock), a
// collective_clock_offset gap with the largest such overlap: a lower bound
// of the offset.
package collectives
