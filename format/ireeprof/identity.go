package ireeprof

import "github.com/tallyprof/tally/capture"

// Record identity (docs/formats/ireeprof.md, "Record identity"). A dispatch
// event's event_id is unique in its stream (spec §7: AMDGPU counts from 1
// per queue), and the stream is the (device, queue, stream_id) of its
// chunk in its session occurrence. So each dispatch carries
// capture.KeyOf(scope, event_id), scope numbering those quadruples (and,
// apart, the host execution streams) in order of first appearance, and the
// model check (capture.Checked) makes an id read twice a duplicate_event,
// counted once: a dispatch-events record the producer wrote twice.
//
// No identity where the file cannot give one: event_id 0 (never assigned:
// producers number events from 1) and chunks attributed while another
// session with their session id was open (ambiguous_session): one GPU's
// events may then sit in another's session, where the same ids are theirs.

type scopeKey struct {
	session       int
	host          bool
	device, queue uint32
	stream        uint64
}

// scope returns the number of an event stream, interning it.
func (r *reader) scope(k scopeKey) uint64 {
	if r.scopes == nil {
		r.scopes = map[scopeKey]uint64{}
	}
	id, ok := r.scopes[k]
	if !ok {
		id = uint64(len(r.scopes))
		r.scopes[k] = id
	}
	return id
}

// key is the record key of event id in scope, or none.
func key(keyed bool, scope, id uint64) capture.RecordKey {
	if !keyed || id == 0 {
		return capture.RecordKey{}
	}
	return capture.KeyOf(scope, id)
}
