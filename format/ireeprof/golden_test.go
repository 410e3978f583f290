package ireeprof

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// goldenRow is one row of iree-profile's --dispatch_events JSONL.
type goldenRow struct {
	Type          string `json:"type"`
	Device        uint32 `json:"physical_device_ordinal"`
	Queue         uint32 `json:"queue_ordinal"`
	EventID       uint64 `json:"event_id"`
	CommandBuffer uint64 `json:"command_buffer_id"`
	Key           string `json:"key"`
	StartTick     uint64 `json:"start_tick"`
	EndTick       uint64 `json:"end_tick"`
	DurationTicks uint64 `json:"duration_ticks"`
	Valid         bool   `json:"valid"`
	ClockFit      bool   `json:"clock_fit_available"`
	DurationNS    int64  `json:"duration_ns"`
}

func goldenRows(t *testing.T, name string) []goldenRow {
	t.Helper()
	f, err := os.Open(goldenPath(name, "dispatch_events"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []goldenRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row goldenRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: got error %v, want none", name, err)
		}
		if row.Type == "dispatch_event" || row.Type == "host_dispatch_event" {
			rows = append(rows, row)
		}
	}
	return rows
}

// TestGoldenDispatchRows checks tally's dispatch rows against iree-profile's
// on every sample: key, ticks, ns, validity, and that valid events reach
// the sink with those durations while invalid ones are invalid_event items.
func TestGoldenDispatchRows(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			golden := name
			if name == "cut_mid_record" {
				// iree-profile refuses the cut file; it is unfinalized.ireeprof cut
				// after its dispatch chunk, so tally must give unfinalized's rows.
				golden = "unfinalized"
			}
			want := goldenRows(t, golden)
			res := mustRead(t, sampleBytes(t, name))
			if len(res.rows) != len(want) {
				t.Fatalf("got %d event rows, want iree-profile's %d", len(res.rows), len(want))
			}
			var invalidWant []goldenRow
			sinkIdx := 0
			for i, w := range want {
				got := res.rows[i]
				host := w.Type == "host_dispatch_event"
				if got.host != host || got.key != w.Key || got.eventID != w.EventID || got.valid != w.Valid || got.device != w.Device || got.queue != w.Queue {
					t.Errorf("row %d: got %+v, want %+v", i, got, w)
				}
				if !host {
					if got.startTick != w.StartTick || got.endTick != w.EndTick || got.fitted != w.ClockFit {
						t.Errorf("row %d: ticks %d..%d fitted %v, want %d..%d fitted %v", i, got.startTick, got.endTick, got.fitted, w.StartTick, w.EndTick, w.ClockFit)
					}
				}
				if got.durationNS != w.DurationNS {
					t.Errorf("row %d: got duration %d ns, want iree-profile's %d ns", i, got.durationNS, w.DurationNS)
				}
				if !w.Valid {
					invalidWant = append(invalidWant, w)
					continue
				}
				// The sink receives the valid events, in order.
				if sinkIdx >= len(res.sink.Dispatches) {
					t.Fatalf("row %d: got only %d dispatches at the sink, want more", i, len(res.sink.Dispatches))
				}
				d := res.sink.Dispatches[sinkIdx]
				sinkIdx++
				dur, ok := d.Device.Duration()
				unit := res.c.ProgramClock(d.Program).Unit
				wantDur, wantUnit := w.DurationNS, "ns"
				if !host && !w.ClockFit {
					wantDur, wantUnit = int64(w.DurationTicks), "ticks"
				}
				if !ok || dur != wantDur || unit != wantUnit {
					t.Errorf("row %d: sink duration %d %s (valid %v), want %d %s", i, dur, unit, ok, wantDur, wantUnit)
				}
				if res.kernelName(d) != w.Key {
					t.Errorf("row %d: sink kernel %q, want %q", i, res.kernelName(d), w.Key)
				}
				wantProg := "direct dispatches"
				if w.CommandBuffer != 0 {
					wantProg = fmt.Sprintf("command buffer %d", w.CommandBuffer)
				}
				if host {
					wantProg += " (host execution)"
				}
				if res.programName(d) != wantProg {
					t.Errorf("row %d: program %q, want %q", i, res.programName(d), wantProg)
				}
			}
			if sinkIdx != len(res.sink.Dispatches) {
				t.Errorf("got %d dispatches at the sink, want iree-profile's %d valid rows", len(res.sink.Dispatches), sinkIdx)
			}
			// Invalid events are invalid_event items, never dispatches.
			var items []capture.Item
			for _, g := range res.c.Accounting.Gaps {
				if g.Kind == capture.InvalidEvent {
					items = append(items, g.Items...)
				}
			}
			if int64(len(invalidWant)) != res.count(capture.InvalidEvent) || len(items) != len(invalidWant) {
				t.Fatalf("got invalid_event listing %d items (count %d), want iree-profile's %d invalid rows", len(items), res.count(capture.InvalidEvent), len(invalidWant))
			}
			for i, w := range invalidWant {
				it := items[i]
				if !strings.HasPrefix(it.What, fmt.Sprintf("event %d ", w.EventID)) || it.Kernel != w.Key ||
					!strings.Contains(it.What, fmt.Sprintf("start tick %d, end tick %d", w.StartTick, w.EndTick)) {
					t.Errorf("invalid item %d: %+v, want event %d (%s)", i, it, w.EventID, w.Key)
				}
			}
		})
	}
}

// goldenSummary is the parts of iree-profile's summary tally cross-checks.
type goldenSummary map[string]any

func readSummary(t *testing.T, name string) (file goldenSummary, devices []goldenSummary) {
	t.Helper()
	f, err := os.Open(goldenPath(name, "summary"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m goldenSummary
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m["type"] {
		case "summary":
			file = m
		case "device_summary":
			devices = append(devices, m)
		}
	}
	return file, devices
}

// summaryName maps content types to iree-profile's summary field stems.
var summaryName = map[ctype]string{
	ctDevices: "device", ctQueues: "queue", ctExecutables: "executable", ctCodeObjects: "executable_code_object",
	ctCodeObjectLoads: "executable_code_object_load", ctFunctions: "executable_function", ctCommandBuffers: "command_buffer",
	ctCommandOperations: "command_operation", ctClock: "clock_correlation", ctDispatch: "dispatch_event",
	ctQueueEvents: "queue_event", ctQueueDeviceEvents: "queue_device_event", ctHostExecution: "host_execution_event",
	ctCommandRegions: "command_region_event", ctMemory: "memory_event", ctRelationships: "event_relationship",
	ctCounterSets: "counter_set", ctCounters: "counter", ctCounterSamples: "counter_sample",
	ctMetricSources: "device_metric_source", ctMetricDescriptors: "device_metric_descriptor",
	ctMetricSamples: "device_metric_sample", ctTraces: "executable_trace",
}

// TestGoldenSummaryCounts checks chunk and typed-record counts per content
// type, record counts, and each device's clock fit against iree-profile's
// summary (for the files it can read).
func TestGoldenSummaryCounts(t *testing.T) {
	for _, name := range samples {
		if name == "cut_mid_record" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			file, devices := readSummary(t, name)
			res := mustRead(t, sampleBytes(t, name))
			sessions := readerSessions(t, sampleBytes(t, name))
			var sum [numCT]ctCount
			for _, s := range sessions {
				for ct := range s.ct {
					sum[ct].chunks += s.ct[ct].chunks
					sum[ct].records += s.ct[ct].records
				}
			}
			for ct, stem := range summaryName {
				if v, ok := file[stem+"_chunks"]; ok && int64(v.(float64)) != sum[ct].chunks {
					t.Errorf("%s: got %d chunks, want iree-profile's %v", ct, sum[ct].chunks, v)
				}
				if v, ok := file[stem+"_records"]; ok && int64(v.(float64)) != sum[ct].records {
					t.Errorf("%s: got %d records, want iree-profile's %v", ct, sum[ct].records, v)
				}
			}
			if v := int64(file["file_records"].(float64)); v != res.c.Accounting.InputFor("records").Read {
				t.Errorf("got records read %d, want iree-profile's file_records %d", res.c.Accounting.InputFor("records").Read, v)
			}
			for _, dm := range devices {
				ord := uint32(dm["physical_device_ordinal"].(float64))
				d := sessions[0].devices[ord]
				if d == nil {
					t.Fatalf("device %d: got unknown, want it read", ord)
				}
				if int64(dm["clock_samples"].(float64)) != d.samples {
					t.Errorf("device %d: got %d clock samples, want iree-profile's %v", ord, d.samples, dm["clock_samples"])
				}
				if dm["clock_fit_available"].(bool) != d.fit.ok {
					t.Errorf("device %d: got fit %v, want iree-profile's %v", ord, d.fit.ok, dm["clock_fit_available"])
				}
				if d.fit.ok {
					npt := float64(d.fit.dNS) / float64(d.fit.dTicks)
					if math.Abs(npt-dm["ns_per_tick"].(float64)) > 1e-9 {
						t.Errorf("device %d: got %v ns/tick, want iree-profile's %v", ord, npt, dm["ns_per_tick"])
					}
				}
			}
		})
	}
}

// readerSessions reads data and returns the reader's sessions.
func readerSessions(t *testing.T, data []byte) []*session {
	t.Helper()
	in := inputOf(data)
	r := newReader(in, nil)
	if _, err := r.read(); err != nil {
		t.Fatal(err)
	}
	return r.sessions
}
