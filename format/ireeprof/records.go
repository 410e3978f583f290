package ireeprof

import "encoding/binary"

// Record types of the file-level record header (spec §4).
const (
	recNone         = 0
	recSessionBegin = 1
	recChunk        = 2
	recSessionEnd   = 3
)

const (
	fileHeaderLen   = 24
	devHeaderLen    = 16 // development minors 0–5: no file_length (spec §2)
	recordHeaderLen = 104
	noOrdinal       = 0xFFFFFFFF
	chunkTruncated  = 1 // chunk_flags bit 0
)

// ctype is a content type tally knows, matched on the full string.
type ctype uint8

const (
	ctUnknown ctype = iota
	ctSession
	ctDevices
	ctQueues
	ctExecutables
	ctCodeObjects
	ctCodeObjectLoads
	ctFunctions
	ctExports
	ctCommandBuffers
	ctCommandOperations
	ctClock
	ctDispatch
	ctQueueEvents
	ctQueueDeviceEvents
	ctHostExecution
	ctCommandRegions
	ctMemory
	ctRelationships
	ctCounterSets
	ctCounters
	ctCounterSamples
	ctMetricSources
	ctMetricDescriptors
	ctMetricSamples
	ctTraces
	numCT
)

const ctPrefix = "application/vnd.iree.hal.profile."

// ctInfo gives each content type's suffix and the size of its typed record
// (the smallest record_length a typed record may declare, spec §6).
var ctInfo = [numCT]struct {
	suffix  string
	minSize uint32
}{
	ctUnknown:           {"", 0},
	ctSession:           {"session", 0},
	ctDevices:           {"devices", 32},
	ctQueues:            {"queues", 24},
	ctExecutables:       {"executables", 40},
	ctCodeObjects:       {"executable-code-objects", 48},
	ctCodeObjectLoads:   {"executable-code-object-loads", 40},
	ctFunctions:         {"executable-functions", 64},
	ctExports:           {"executable-exports", 64},
	ctCommandBuffers:    {"command-buffers", 48},
	ctCommandOperations: {"command-operations", 120},
	ctClock:             {"clock-correlations", 72},
	ctDispatch:          {"dispatch-events", 88},
	ctQueueEvents:       {"queue-events", 104},
	ctQueueDeviceEvents: {"queue-device-events", 96},
	ctHostExecution:     {"host-execution-events", 152},
	ctCommandRegions:    {"command-region-events", 248},
	ctMemory:            {"memory-events", 160},
	ctRelationships:     {"event-relationships", 72},
	ctCounterSets:       {"counter-sets", 32},
	ctCounters:          {"counters", 48},
	ctCounterSamples:    {"counter-samples", 112},
	ctMetricSources:     {"device-metric-sources", 40},
	ctMetricDescriptors: {"device-metric-descriptors", 48},
	ctMetricSamples:     {"device-metric-samples", 64},
	ctTraces:            {"executable-traces", 88},
}

var ctByName = func() map[string]ctype {
	m := make(map[string]ctype, numCT)
	for t := ctSession; t < numCT; t++ {
		m[ctPrefix+ctInfo[t].suffix] = t
	}
	return m
}()

// lookupCT matches a content type without allocating (the compiler does not
// copy b for a map index with string(b)).
func lookupCT(b []byte) ctype { return ctByName[string(b)] }

func (t ctype) String() string {
	if t == ctUnknown {
		return "unknown"
	}
	return ctInfo[t].suffix
}

// Queue operation types shared by queue device events and host execution
// events (spec §7).
const (
	opDispatch = 2
	opExecute  = 3
)

// Command operation type "dispatch" (spec §7).
const cmdOpDispatch = 2

// Clock correlation flags (spec §7).
const (
	clockDeviceTick          = 1 << 0
	clockHostCPUTimestamp    = 1 << 1
	clockDeviceTickUnaligned = 1 << 4
)

var le = binary.LittleEndian

func u16(b []byte, off int) uint16 { return le.Uint16(b[off:]) }
func u32(b []byte, off int) uint32 { return le.Uint32(b[off:]) }
func u64(b []byte, off int) uint64 { return le.Uint64(b[off:]) }

// dispatchEvent is the 88-byte dispatch event (spec §7).
type dispatchEvent struct {
	flags        uint32
	eventID      uint64
	submissionID uint64
	commandBuf   uint64
	executable   uint64
	commandIndex uint32
	function     uint32
	startTick    uint64
	endTick      uint64
}

func decodeDispatch(b []byte, e *dispatchEvent) {
	_ = b[87]
	e.flags = u32(b, 4)
	e.eventID = u64(b, 8)
	e.submissionID = u64(b, 16)
	e.commandBuf = u64(b, 24)
	e.executable = u64(b, 32)
	e.commandIndex = u32(b, 40)
	e.function = u32(b, 44)
	e.startTick = u64(b, 72)
	e.endTick = u64(b, 80)
}

// hostExecution is the 152-byte host execution event: a span timed on
// IREE's host clock, which CPU producers write for their dispatches.
// Layout: iree-org/iree runtime/src/iree/hal/profile_schema.h
// (iree_hal_profile_host_execution_event_t).
type hostExecution struct {
	opType       uint32
	status       uint32
	eventID      uint64
	submissionID uint64
	commandBuf   uint64
	executable   uint64
	streamID     uint64
	device       uint32
	queue        uint32
	commandIndex uint32
	function     uint32
	start, end   int64
}

func decodeHostExecution(b []byte, e *hostExecution) {
	_ = b[151]
	e.opType = u32(b, 4)
	e.status = u32(b, 12)
	e.eventID = u64(b, 16)
	e.submissionID = u64(b, 24)
	e.commandBuf = u64(b, 32)
	e.executable = u64(b, 40)
	e.streamID = u64(b, 56)
	e.device = u32(b, 64)
	e.queue = u32(b, 68)
	e.commandIndex = u32(b, 72)
	e.function = u32(b, 76)
	e.start = int64(u64(b, 104))
	e.end = int64(u64(b, 112))
}

// clockSample is the 72-byte clock correlation record's part tally uses.
type clockSample struct {
	flags    uint32
	device   uint32
	sampleID uint64
	tick     uint64
	hostNS   uint64
}

func decodeClock(b []byte) clockSample {
	return clockSample{flags: u32(b, 4), device: u32(b, 8), sampleID: u64(b, 16), tick: u64(b, 24), hostNS: u64(b, 32)}
}
