package timeline

// Field numbers of the Perfetto messages tally writes, hand-encoded with
// wire.go's appends (no generated code: tally writes ~30 fields of a schema with
// hundreds, as a stream of packets, and needs no reflection).
//
// Provenance: github.com/google/perfetto @ ec5d16b14b743ba6063d720956d6d6af6610fd72
// (Apache-2.0), the commit docs/specs cite, read from the repository's files:
//
//	protos/perfetto/trace/trace.proto                        Trace.packet = 1
//	protos/perfetto/trace/trace_packet.proto                 TracePacket fields, SequenceFlags
//	protos/perfetto/trace/track_event/track_descriptor.proto TrackDescriptor, ChildTracksOrdering, SiblingMergeBehavior
//	protos/perfetto/trace/track_event/track_event.proto      TrackEvent, Type, EventName, EventCategory
//	protos/perfetto/trace/track_event/debug_annotation.proto DebugAnnotation, DebugAnnotationName
//	protos/perfetto/trace/interned_data/interned_data.proto  InternedData
//	protos/perfetto/trace/chrome/chrome_trace_event.proto    ChromeEventBundle.metadata, ChromeMetadata
//
// Trace processor stores ChromeEventBundle metadata in its `metadata` table
// under "cr-<name>" (src/trace_processor/importers/proto/proto_trace_parser_impl.cc,
// ParseChromeEvents): that is where tally's verdict goes.
const (
	fTracePacket fieldNum = 1 // Trace.packet

	// TracePacket
	fPacketTimestamp   fieldNum = 8
	fPacketSequenceID  fieldNum = 10 // trusted_packet_sequence_id
	fPacketTrackEvent  fieldNum = 11
	fPacketInterned    fieldNum = 12 // interned_data
	fPacketSeqFlags    fieldNum = 13 // sequence_flags
	fPacketChromeEvent fieldNum = 5  // chrome_events (ChromeEventBundle)
	fPacketTrackDesc   fieldNum = 60 // track_descriptor

	seqIncrementalStateCleared = 1
	seqNeedsIncrementalState   = 2

	// TrackDescriptor
	fTrackUUID          fieldNum = 1
	fTrackName          fieldNum = 2
	fTrackParent        fieldNum = 5
	fTrackChildOrdering fieldNum = 11
	fTrackOrderRank     fieldNum = 12
	fTrackDescription   fieldNum = 14
	fTrackMerge         fieldNum = 15 // sibling_merge_behavior

	childOrderingExplicit = 3
	siblingMergeNone      = 2

	// TrackEvent
	fEventCategoryIIDs fieldNum = 3
	fEventAnnotation   fieldNum = 4
	fEventType         fieldNum = 9
	fEventNameIID      fieldNum = 10
	fEventTrackUUID    fieldNum = 11
	fEventFlowIDs      fieldNum = 47 // repeated fixed64 flow_ids
	fEventTermFlowIDs  fieldNum = 48 // repeated fixed64 terminating_flow_ids

	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeInstant    = 3

	// DebugAnnotation
	fAnnNameIID fieldNum = 1
	fAnnBool    fieldNum = 2
	fAnnInt     fieldNum = 4
	fAnnString  fieldNum = 6

	// InternedData; each entry is {iid = 1, name = 2}.
	fInternCategories fieldNum = 1
	fInternNames      fieldNum = 2
	fInternAnnNames   fieldNum = 3
	fInternIID        fieldNum = 1
	fInternName       fieldNum = 2

	// ChromeEventBundle.metadata, ChromeMetadata
	fBundleMetadata fieldNum = 2
	fMetaName       fieldNum = 1
	fMetaString     fieldNum = 2
	fMetaInt        fieldNum = 4
)
