// Package capture is tally's data model: what one run recorded (a Capture)
// and how much of it tally could see (its Accounting).
//
// Readers fill a Capture's tables (programs, queues, kernels) and stream
// Dispatches to a Sink, so aggregation stays O(kernels) however long the
// trace is. Everything a reader could not use — a skipped line, a cut
// record, a dispatch that never finished, a kernel id no catalog names — is
// recorded in the Accounting as a typed Gap, never folded into the tables.
package capture
