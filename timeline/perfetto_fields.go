package timeline

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers of the Perfetto messages tally writes, hand-encoded with
// protowire (no generated code: tally writes ~30 fields of a schema with
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
	fTracePacket protowire.Number = 1 // Trace.packet

	// TracePacket
	fPacketTimestamp   protowire.Number = 8
	fPacketSequenceID  protowire.Number = 10 // trusted_packet_sequence_id
	fPacketTrackEvent  protowire.Number = 11
	fPacketInterned    protowire.Number = 12 // interned_data
	fPacketSeqFlags    protowire.Number = 13 // sequence_flags
	fPacketChromeEvent protowire.Number = 5  // chrome_events (ChromeEventBundle)
	fPacketTrackDesc   protowire.Number = 60 // track_descriptor

	seqIncrementalStateCleared = 1
	seqNeedsIncrementalState   = 2

	// TrackDescriptor
	fTrackUUID          protowire.Number = 1
	fTrackName          protowire.Number = 2
	fTrackParent        protowire.Number = 5
	fTrackChildOrdering protowire.Number = 11
	fTrackOrderRank     protowire.Number = 12
	fTrackDescription   protowire.Number = 14
	fTrackMerge         protowire.Number = 15 // sibling_merge_behavior

	childOrderingExplicit = 3
	siblingMergeNone      = 2

	// TrackEvent
	fEventCategoryIIDs protowire.Number = 3
	fEventAnnotation   protowire.Number = 4
	fEventType         protowire.Number = 9
	fEventNameIID      protowire.Number = 10
	fEventTrackUUID    protowire.Number = 11
	fEventFlowIDs      protowire.Number = 47 // repeated fixed64 flow_ids
	fEventTermFlowIDs  protowire.Number = 48 // repeated fixed64 terminating_flow_ids

	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeInstant    = 3

	// DebugAnnotation
	fAnnNameIID protowire.Number = 1
	fAnnBool    protowire.Number = 2
	fAnnInt     protowire.Number = 4
	fAnnString  protowire.Number = 6

	// InternedData; each entry is {iid = 1, name = 2}.
	fInternCategories protowire.Number = 1
	fInternNames      protowire.Number = 2
	fInternAnnNames   protowire.Number = 3
	fInternIID        protowire.Number = 1
	fInternName       protowire.Number = 2

	// ChromeEventBundle.metadata, ChromeMetadata
	fBundleMetadata protowire.Number = 2
	fMetaName       protowire.Number = 1
	fMetaString     protowire.Number = 2
	fMetaInt        protowire.Number = 4
)
