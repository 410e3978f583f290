package ireeprof

import "fmt"

// session is one session occurrence: the n-th SESSION_BEGIN in the file and
// the records attributed to it. Session ids repeat (one session per GPU, each
// numbered from 1), so every table is keyed by occurrence, never by id.
type session struct {
	occ      int // 1-based occurrence
	id       uint64
	producer string
	beginOff int64
	ended    bool
	endOff   int64
	status   uint32

	// Metadata, indexed in pass 1 (spec §11).
	devices    map[uint32]*device
	deviceList []uint32 // devices in order of first mention
	queues     map[queueKey]bool
	functions  map[fnKey]string
	funcCTs    [2]bool // read executable-functions, executable-exports

	executables    int64
	commandBuffers int64

	// Per content type counts.
	ct [numCT]ctCount

	// Evidence for "dispatch events requested, none recorded" (spec §10).
	clockChunks    int64
	workQueueOps   int64 // queue device events of type dispatch or execute
	workCommandOps int64 // command operations of type dispatch
	// dispatchDevices are the devices whose dispatch-events chunks this
	// session holds, in order.
	dispatchDevices []uint32

	// ambiguous counts records attributed while another occurrence with
	// the same session id was open.
	ambiguous int64

	// Results of pass 2.
	dispatchEvents int64 // typed dispatch event records read
	dispatches     int64 // valid ones, sent to the sink
	invalid        int64
	hostSpans      int64 // host execution events read
	hostDispatches int64
	hostInvalid    int64
	extrapolated   int64
}

// ctCount is what a session holds of one content type.
type ctCount struct {
	chunks, records, truncated, dropped int64
	badRecords                          int64 // typed records with a bad length
}

type queueKey struct {
	device, queue uint32
	stream        uint64
}

type fnKey struct {
	executable uint64
	function   uint32
}

// device is one physical device of a session: its records and clock samples.
type device struct {
	ordinal    uint32
	records    int64
	queueCount uint32
	uuid       []byte

	samples     int64
	first, last clockSample
	unaligned   int64
	fit         fit
}

func newSession(occ int, id uint64, off int64) *session {
	return &session{occ: occ, id: id, beginOff: off,
		devices: map[uint32]*device{}, queues: map[queueKey]bool{}, functions: map[fnKey]string{}}
}

func (s *session) device(ord uint32) *device {
	d := s.devices[ord]
	if d == nil {
		d = &device{ordinal: ord}
		s.devices[ord] = d
		s.deviceList = append(s.deviceList, ord)
	}
	return d
}

// label names the occurrence for people: "session 2 (amdgpu, id 1)".
func (s *session) label() string {
	p := s.producer
	if p == "" {
		p = "unnamed producer"
	}
	return fmt.Sprintf("session %d (%s, id %d)", s.occ, p, s.id)
}

// endState says how the session ended, for inventories and gap items.
func (s *session) endState() string {
	if !s.ended {
		return "not ended (no SESSION_END record)"
	}
	if s.status == 0 {
		return "ended OK"
	}
	return "ended with status " + statusName(s.status)
}

// tracker attributes records to session occurrences. A file may hold several
// sessions with one id open at once; records then go to the most recently
// begun one (sessions nest like brackets), and are counted as ambiguous
// because the file holds nothing that would tell them apart.
type tracker struct {
	sessions []*session
	open     map[uint64][]*session
}

func newTracker() *tracker { return &tracker{open: map[uint64][]*session{}} }

func (t *tracker) begin(h *recHeader) *session {
	s := newSession(len(t.sessions)+1, h.sessionID, h.off)
	t.sessions = append(t.sessions, s)
	t.open[h.sessionID] = append(t.open[h.sessionID], s)
	return s
}

// find returns the open occurrence a chunk belongs to (nil when none is
// open with its session id) and whether another one with the id is open too.
func (t *tracker) find(h *recHeader) (*session, bool) {
	st := t.open[h.sessionID]
	if len(st) == 0 {
		return nil, false
	}
	return st[len(st)-1], len(st) > 1
}

func (t *tracker) end(h *recHeader) (*session, bool) {
	s, amb := t.find(h)
	if s == nil {
		return nil, false
	}
	st := t.open[h.sessionID]
	t.open[h.sessionID] = st[:len(st)-1]
	s.ended, s.endOff, s.status = true, h.off, h.status
	return s, amb
}

// openCount is how many sessions are open.
func (t *tracker) openCount() int {
	n := 0
	for _, st := range t.open {
		n += len(st)
	}
	return n
}

// statusNames are IREE status codes (runtime/src/iree/base/status.h, spec §10).
var statusNames = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED", "DEFERRED", "INCOMPATIBLE"}

func statusName(code uint32) string {
	if int64(code) < int64(len(statusNames)) {
		return fmt.Sprintf("%d %s", code, statusNames[code])
	}
	return fmt.Sprintf("%d (unknown status code)", code)
}
