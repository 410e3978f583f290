package ireeprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// reader is the state of one bundle read.
type reader struct {
	in   *format.Input
	w    *window
	c    *capture.Capture
	sink capture.Sink
	size int64 // physical file size
	end  int64 // logical end: file_length when finalised, else the size
	hdr  fileHeader

	bytes, records, events, hostEvents *capture.InputCount

	sessions []*session
	stop     walkEnd // where pass 1's walk ended

	// File-level counts for the inventory.
	recordTypes     [4]int64 // by record type; [0] counts unknown types
	outsideRecords  int64
	malformed       int64
	unknownCTs      []string // distinct unknown content types, capped
	unknownCTChunks int64
	beginsWhileOpen int64

	res    resolver
	d      capture.Dispatch    // reused for every dispatch sent to the sink
	scopes map[scopeKey]uint64 // event streams, for record keys (identity.go)

	// onEvent, when set (tests only), sees every dispatch event decoded.
	onEvent func(*eventRow)
}

// eventRow is one decoded dispatch event as tally resolved it, in the terms
// of iree-profile's JSONL row (spec §12), for cross-checks.
type eventRow struct {
	host          bool
	session       int
	device, queue uint32
	eventID       uint64
	key           string
	startTick     uint64
	endTick       uint64
	valid         bool
	fitted        bool
	durationNS    int64 // when valid and fitted (or host)
}

// errorf makes a positioned error: file, byte offset, what is wrong and
// what to do.
func errorf(path string, off int64, f string, args ...any) error {
	return format.ByteError(path, off, "", f, args...)
}

func at(off int64) string { return fmt.Sprintf("byte %d", off) }
