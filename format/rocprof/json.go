package rocprof

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/jsoncap"
	"github.com/tallyprof/tally/internal/countio"
)

// rocprofv3 JSON (`--output-format json`) is one object
// {"rocprofiler-sdk-tool": [process, …]}. It is walked token by token and
// only single array elements (a dispatch, a symbol, an agent) are decoded
// whole, so memory stays bounded by the largest element plus the kernel
// symbol table, however many dispatches the file holds. Dispatches met
// before their process's kernel_symbols and agents (not the order rocprofv3
// writes) are held until the process object ends.

type jSymbol struct {
	KernelID  uint64 `json:"kernel_id"`
	Name      string `json:"kernel_name"`
	Formatted string `json:"formatted_kernel_name"`
}

type jAgent struct {
	ID struct {
		Handle uint64 `json:"handle"`
	} `json:"id"`
	Type        int64  `json:"type"`
	NodeID      int64  `json:"node_id"`
	Name        string `json:"name"`
	ProductName string `json:"product_name"`
}

type jHandle struct {
	Handle uint64 `json:"handle"`
}

// jRecord is what every buffer record has: kind and operation (named by
// strings.buffer_records[kind].kind and .operations[operation]), times and
// the correlation ids. A hip_api record is just this.
type jRecord struct {
	Kind          int64  `json:"kind"`
	Operation     int64  `json:"operation"`
	Start         *int64 `json:"start_timestamp"`
	End           *int64 `json:"end_timestamp"`
	CorrelationID struct {
		Internal uint64 `json:"internal"`
	} `json:"correlation_id"`
}

type jDispatch struct {
	jRecord
	ThreadID uint64 `json:"thread_id"`
	Info     struct {
		Agent      jHandle `json:"agent_id"`
		Queue      jHandle `json:"queue_id"`
		KernelID   uint64  `json:"kernel_id"`
		DispatchID uint64  `json:"dispatch_id"`
	} `json:"dispatch_info"`
}

// jCopy is a memory_copy buffer record; its operation names the direction.
type jCopy struct {
	jRecord
	Dst jHandle `json:"dst_agent_id"`
	Src jHandle `json:"src_agent_id"`
}

type jKind struct {
	Kind       string   `json:"kind"`
	Operations []string `json:"operations"`
}

type jMeta struct {
	PID      int64 `json:"pid"`
	InitTime int64 `json:"init_time"`
	FiniTime int64 `json:"fini_time"`
}

// maxDepth bounds the nesting the walker follows (fuzzed input can nest
// arbitrarily deep).
const maxDepth = 64

type jsonReader struct {
	path string
	cnt  *countio.Reader
	dec  *json.Decoder
	b    *builder
	rec  int64 // kernel_dispatch records met, for positions

	// Per process.
	meta     jMeta
	symbols  map[uint64]string
	agents   map[uint64]jAgent
	kinds    []jKind
	haveSyms bool
	pending  []jDispatch
	prog     capture.ProgramID
	progSet  bool
	other    map[string]int64 // buffer_records arrays not read, by name
	procs    int64
	inv      capture.Section // what the HIP API join found, per process
	apiRec   int64
	copyRec  int64
}

func readJSON(r io.Reader, path string, sink capture.Sink, ceiling int64) (*capture.Capture, error) {
	c := &capture.Capture{Clock: boottimeClock}
	cnt := &countio.Reader{R: format.BOMAsSpaces(r)} // offsets stay the file's
	// encoding/json holds a string token whole: strings are cut to
	// capture.MaxName before it sees them, and positions mapped back.
	capped := &jsoncap.Reader{R: cnt, OnCut: func(off, full int64, head []byte) {
		c.Accounting.LongName(full, string(head), "byte "+strconv.FormatInt(off, 10))
	}}
	jr := &jsonReader{path: path, cnt: cnt, dec: json.NewDecoder(capped), b: newBuilder(c, sink, "records"), other: map[string]int64{}}
	jr.b.setCeiling(ceiling)
	jr.dec.UseNumber()
	err := jr.document()
	stop := capped.Offset(jr.dec.InputOffset())
	if err != nil {
		if jr.procs == 0 && jr.b.dispatches == 0 && jr.rec == 0 && !isCut(err) {
			return nil, format.ByteError(path, stop, "is this a rocprofv3 JSON file (--output-format json)?", "%v", err)
		}
		jr.flush()
		g := c.Accounting.Gap(capture.TruncatedInput, "")
		what := "the file ends early: it was cut (process killed while writing, disk full, incomplete copy)"
		if !isCut(err) {
			what = "the file is malformed JSON from here on"
		}
		g.Summary = what + "; the dispatches before that point are in the tables, the rest of the file is not read"
		g.Add(capture.Item{What: err.Error(), Where: "byte " + strconv.FormatInt(stop, 10)})
		g.SetFigure("records_read", jr.rec)
	}
	drained, _ := io.Copy(io.Discard, cnt)
	_ = drained
	in := c.Accounting.InputFor("bytes")
	in.Read = cnt.N
	in.Used = min(stop, cnt.N)
	if rest := cnt.N - in.Used; rest > 0 {
		// After a cut or malformed point the bytes may hold dispatches:
		// lost, under the truncation gap. After a whole document, only
		// white space can remain.
		if g := c.Accounting.Find(capture.TruncatedInput); g != nil {
			in.Lose(g, "after the point where reading stopped", rest, "byte "+strconv.FormatInt(in.Used, 10))
		} else {
			in.Ignore("white space after the document", rest, "byte "+strconv.FormatInt(in.Used, 10))
		}
	}
	jr.b.finish("the file's kernel_dispatch arrays are empty or absent: kernel tracing was not enabled (--kernel-trace), produced nothing, or the process exited before its buffers were flushed")
	s := capture.Section{Title: "rocprofv3 JSON"}
	s.Add("processes", jr.procs)
	s.Add("kernel_dispatch records", jr.rec)
	s.Add("dispatches", jr.b.dispatches)
	s.Add("hip_api records", jr.apiRec)
	s.Add("memory_copy records", jr.copyRec)
	s.Add("memory copies", jr.b.copies)
	s.Fields = append(s.Fields, jr.inv.Fields...)
	for _, k := range sortedKeys(jr.other) {
		s.Add(k+" records (not read)", jr.other[k])
	}
	c.Inventory = append(c.Inventory, s)
	return c, nil
}

func isCut(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func (jr *jsonReader) delim(want json.Delim) error {
	t, err := jr.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", string(want), t)
	}
	return nil
}

// object walks an object, calling fn for each key with the decoder at the
// key's value; fn must consume the value.
func (jr *jsonReader) object(fn func(key string) error) error {
	if err := jr.delim('{'); err != nil {
		return err
	}
	for jr.dec.More() {
		t, err := jr.dec.Token()
		if err != nil {
			return err
		}
		key, ok := t.(string)
		if !ok {
			return fmt.Errorf("expected an object key, found %v", t)
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	return jr.delim('}')
}

// array walks an array, calling fn with the decoder at each element.
func (jr *jsonReader) array(fn func() error) error {
	if err := jr.delim('['); err != nil {
		return err
	}
	for jr.dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	return jr.delim(']')
}

// skip consumes one value of any shape without holding more than one
// scalar in memory.
func (jr *jsonReader) skip(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	t, err := jr.dec.Token()
	if err != nil {
		return err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	for jr.dec.More() {
		if d == '{' {
			if _, err := jr.dec.Token(); err != nil {
				return err
			}
		}
		if err := jr.skip(depth + 1); err != nil {
			return err
		}
	}
	_, err = jr.dec.Token()
	return err
}

// element decodes one array element into v. A value of the wrong shape
// is reported as a schema mismatch and does not stop reading.
func (jr *jsonReader) element(v any) (schema error, err error) {
	if err := jr.dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return err, nil
		}
		return nil, err
	}
	return nil, nil
}

// elements reads an array of T, handing use each element that decodes; one
// of another shape is passed over, as element says.
func elements[T any](jr *jsonReader, use func(*T)) error {
	return jr.array(func() error {
		var v T
		if bad, err := jr.element(&v); err != nil || bad != nil {
			return err
		}
		use(&v)
		return nil
	})
}

func (jr *jsonReader) document() error {
	found := false
	err := jr.object(func(key string) error {
		if key != "rocprofiler-sdk-tool" {
			return jr.skip(0)
		}
		found = true
		return jr.array(jr.process)
	})
	if err == nil && !found {
		return fmt.Errorf(`no "rocprofiler-sdk-tool" key`)
	}
	if err == nil {
		if _, e := jr.dec.Token(); e != io.EOF {
			return fmt.Errorf("data after the end of the document")
		}
	}
	return err
}

func (jr *jsonReader) process() error {
	jr.procs++
	jr.meta = jMeta{}
	jr.symbols = map[uint64]string{}
	jr.agents = map[uint64]jAgent{}
	jr.kinds = nil
	jr.haveSyms = false
	jr.progSet = false
	jr.b.ids = idSet{} // dispatch ids are unique per process
	symsSeen, agentsSeen := false, false
	err := jr.object(func(key string) error {
		switch key {
		case "metadata":
			_, err := jr.element(&jr.meta) // a metadata of another shape only loses the pid
			return err
		case "agents":
			agentsSeen = true
			return elements(jr, func(a *jAgent) { jr.agents[a.ID.Handle] = *a })
		case "kernel_symbols":
			symsSeen = true
			return elements(jr, func(s *jSymbol) { jr.symbols[s.KernelID] = symbolName(*s) })
		case "strings":
			return jr.object(func(key string) error {
				if key != "buffer_records" {
					return jr.skip(1)
				}
				return jr.array(func() error {
					var k jKind
					bad, err := jr.element(&k)
					jr.kinds = append(jr.kinds, k) // keep indices aligned
					if bad != nil {
						jr.kinds[len(jr.kinds)-1] = jKind{}
					}
					return err
				})
			})
		case "buffer_records":
			jr.haveSyms = symsSeen && agentsSeen
			return jr.object(func(key string) error {
				switch key {
				case "kernel_dispatch":
					return jr.array(jr.dispatch)
				case "hip_api":
					return jr.array(jr.api)
				case "memory_copy":
					return jr.array(jr.copy)
				}
				return jr.array(func() error {
					jr.other[key]++
					return jr.skip(1)
				})
			})
		}
		return jr.skip(0)
	})
	jr.flush()
	jr.b.linkDone(&jr.inv, "hip_api records of pid "+strconv.FormatInt(jr.meta.PID, 10))
	return err
}

// symbolName prefers the formatted name (demangled, ".kd" removed); the
// truncated name merges template instances and is never used.
func symbolName(s jSymbol) string {
	if s.KernelID == 0 {
		return "" // rocprofv3's placeholder symbol
	}
	if s.Formatted != "" {
		return s.Formatted
	}
	return s.Name
}

// record decodes the next record of an array into v, counting it read:
// record *n of unit in. A record that does not end is not counted; its
// error stops the read.
func (jr *jsonReader) record(in *capture.InputCount, n *int64, v any) (bad, err error) {
	*n++
	in.Read++
	if bad, err = jr.element(v); err != nil {
		*n-- // not a complete record
		in.Read--
	}
	return bad, err
}

// program is the process's one program, "pid N", made at its first
// dispatch or copy.
func (jr *jsonReader) program() capture.ProgramID {
	if !jr.progSet {
		jr.prog = jr.b.program("pid " + strconv.FormatInt(jr.meta.PID, 10))
		jr.progSet = true
	}
	return jr.prog
}

func (jr *jsonReader) dispatch() error {
	var d jDispatch
	bad, err := jr.record(jr.b.unit, &jr.rec, &d)
	if err != nil {
		return err
	}
	if bad != nil {
		jr.schemaMismatch(bad, "record does not match the schema", jr.where(jr.rec))
		return nil
	}
	if d.Start == nil || d.End == nil {
		jr.noTimes("no start or end timestamp", jr.where(jr.rec))
		return nil
	}
	if !jr.haveSyms {
		jr.pending = append(jr.pending, d)
		return nil
	}
	jr.emit(&d, jr.rec)
	return nil
}

// schemaMismatch loses a dispatch or copy record whose fields have the
// wrong types: it may have been device work.
func (jr *jsonReader) schemaMismatch(bad error, reason, where string) {
	g := jr.b.c.Accounting.Gap(capture.SkippedInput, "")
	g.Summary = "records that do not match rocprofv3's schema: not in the tables"
	g.Add(capture.Item{What: bad.Error(), Where: where})
	jr.b.unit.Lose(g, reason, 1, where)
}

// noTimes loses a dispatch or copy record without a start or end time: it
// ran, and when is unknown.
func (jr *jsonReader) noTimes(reason, where string) {
	g := jr.b.invalid()
	g.Add(capture.Item{What: "no start_timestamp or end_timestamp", Where: where})
	jr.b.unit.Lose(g, reason, 1, where)
}

func (jr *jsonReader) where(n int64) string {
	return "kernel_dispatch record " + strconv.FormatInt(n, 10)
}

// flush emits the dispatches held until the symbols were known.
func (jr *jsonReader) flush() {
	first := jr.rec - int64(len(jr.pending))
	for i := range jr.pending {
		jr.emit(&jr.pending[i], first+int64(i)+1)
	}
	jr.pending = jr.pending[:0]
}

func (jr *jsonReader) emit(d *jDispatch, n int64) {
	if int(d.Kind) >= 0 && int(d.Kind) < len(jr.kinds) && jr.kinds[d.Kind].Kind != "" {
		k := jr.kinds[d.Kind]
		op := ""
		if d.Operation >= 0 && int(d.Operation) < len(k.Operations) {
			op = k.Operations[d.Operation]
		}
		if k.Kind != "KERNEL_DISPATCH" || (op != "" && op != "KERNEL_DISPATCH_COMPLETE") {
			// In the kernel_dispatch array, another kind may be a dispatch
			// under a name this reader does not know.
			g := jr.b.unknownKind(k.Kind+" "+op, jr.where(n))
			jr.b.unit.Lose(g, "kind "+k.Kind+" "+op, 1, jr.where(n))
			return
		}
	}
	prog := jr.program()
	agent := strconv.FormatUint(d.Info.Agent.Handle, 10)
	if a, ok := jr.agents[d.Info.Agent.Handle]; ok {
		agent = fmt.Sprintf("agent %d (%s)", a.NodeID, a.Name)
	}
	r := row{
		prog:  prog,
		queue: jr.b.queue([]byte(agent), strconv.AppendUint(nil, d.Info.Queue.Handle, 10)),
		start: *d.Start, end: *d.End,
		dispatchID: d.Info.DispatchID, hasDispatchID: true,
		corr: d.CorrelationID.Internal,
	}
	r.kernel = jr.b.kernel(prog, []byte(jr.symbols[d.Info.KernelID]), d.Info.KernelID, true, "kernel")
	jr.b.emit(&r, pos{"kernel_dispatch record", n})
}

// opName names a record's operation through strings.buffer_records.
func (jr *jsonReader) opName(kind, op int64) (string, string) {
	if kind < 0 || int(kind) >= len(jr.kinds) {
		return "", ""
	}
	k := jr.kinds[kind]
	if op < 0 || int(op) >= len(k.Operations) {
		return k.Kind, ""
	}
	return k.Kind, k.Operations[op]
}

// api reads one hip_api record into the linker.
func (jr *jsonReader) api() error {
	in := jr.b.c.Accounting.InputFor("API records")
	var a jRecord
	bad, err := jr.record(in, &jr.apiRec, &a)
	if err != nil {
		return err
	}
	where := "hip_api record " + strconv.FormatInt(jr.apiRec, 10)
	// A host call: losing one only loses a dispatch's link (the dispatch
	// then shows as gpu_event_without_launch).
	if bad != nil || a.Start == nil || a.End == nil {
		in.Ignore("record does not match the schema", 1, where)
		return nil
	}
	_, name := jr.opName(a.Kind, a.Operation)
	if !jr.b.link.addAPI(a.CorrelationID.Internal, name, *a.Start, *a.End) {
		in.Ignore("correlation id 0 (none)", 1, where)
		return nil
	}
	in.Used++
	return nil
}

// copy reads one memory_copy record: a dispatch of category "memcpy" on a
// queue per (source agent, destination agent), named by its direction.
func (jr *jsonReader) copy() error {
	var m jCopy
	bad, err := jr.record(jr.b.unit, &jr.copyRec, &m)
	if err != nil {
		return err
	}
	at := pos{"memory_copy record", jr.copyRec}
	if bad != nil {
		jr.schemaMismatch(bad, "memory_copy record does not match the schema", at.String())
		return nil
	}
	if m.Start == nil || m.End == nil {
		jr.noTimes("memory_copy record without start or end timestamp", at.String())
		return nil
	}
	prog := jr.program()
	kind, dir := jr.opName(m.Kind, m.Operation)
	if dir == "" {
		dir = "operation " + strconv.FormatInt(m.Operation, 10)
	}
	if kind != "" && kind != "MEMORY_COPY" {
		g := jr.b.unknownKind(kind+" in memory_copy", at.String())
		jr.b.unit.Lose(g, "kind "+kind+" in memory_copy", 1, at.String())
		return nil
	}
	r := row{
		prog:  prog,
		queue: jr.b.copyQueue(jr.agentLabel(m.Src.Handle), jr.agentLabel(m.Dst.Handle), dir),
		start: *m.Start, end: *m.End,
		corr: m.CorrelationID.Internal, copy: true,
	}
	r.kernel = jr.b.kernel(prog, []byte("memory copy "+dir), 0, false, "memcpy")
	jr.b.emit(&r, at)
	return nil
}

func (jr *jsonReader) agentLabel(h uint64) string {
	if a, ok := jr.agents[h]; ok {
		return fmt.Sprintf("agent %d (%s)", a.NodeID, a.Name)
	}
	return "agent handle " + strconv.FormatUint(h, 10)
}
