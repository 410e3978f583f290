// Package probe records the device work a Go program launches — which
// kernel of which program ran on which queue, from when to when — into a
// file tally reads with full accounting (docs/probe-format.md), and prints
// windowed summaries while it runs.
//
// It is built so that it cannot record nothing silently:
//
//   - A session names the data families it records (Open). Asking for
//     DispatchEvents needs a Path and makes every program, kernel and queue
//     definition and the clock part of the file: a dispatch is begun with a
//     *Kernel, which only exists once named, so no call order or missing
//     option leaves events unnamed or unrecorded.
//   - Events wait in bounded per-queue rings that a background writer drains
//     when a ring reaches its threshold, at Flush, at Close, and on
//     SIGINT/SIGTERM when HandleSignals is on. After every drain the file
//     says, per queue, how many dispatches were recorded, dropped and in
//     flight (which kernels, since when), so a process killed outright loses
//     at most one threshold's worth and the file still says what was running.
//   - A full ring never blocks and never crashes: the dispatch is dropped and
//     counted, in the file and in Close's Result.
//   - Close says when a session asked for dispatch events and recorded none,
//     when summaries were asked for and none was written, and what layer
//     dumps could not be written.
//
// Times are nanoseconds on the process's monotonic clock, counted from Open.
package probe
