package kineto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// inventory describes the file for `tally inspect`.
func (r *reader) inventory(c *capture.Capture, tb timeBase, st *replayStats) []capture.Section {
	var out []capture.Section
	out = append(out, r.formatSection(tb))
	out = append(out, r.eventSection())
	out = append(out, r.deviceSection(c))
	out = append(out, r.stepSection())
	out = append(out, r.linkSection(st))
	out = append(out, r.logSection())
	return out
}

func (r *reader) formatSection(tb timeBase) capture.Section {
	s := capture.Section{Title: "format"}
	gen := map[string]string{
		"A": "A: integer absolute epoch µs (≤ 2023 writers)",
		"B": "B: absolute epoch µs with a ns fraction",
		"C": "C: µs relative to baseTimeNanoseconds",
		"":  "unknown (no timed event)",
	}[tb.gen]
	if tb.clock.Domain == "trace-relative" {
		gen = "relative µs without a base"
	}
	s.Add("timestamp generation", gen)
	if r.top.bareArray {
		s.Add("container", "a bare JSON array of events (generic Chrome trace, not Kineto's object)")
	} else {
		s.Add("container", "a JSON object with traceEvents")
	}
	var keys, after []string
	for i, k := range r.top.keys {
		keys = append(keys, k.key)
		if r.top.afterIndex >= 0 && i >= r.top.afterIndex {
			after = append(after, k.key)
		}
	}
	if r.top.keysMore > 0 {
		keys = append(keys, fmt.Sprintf("… %d more", r.top.keysMore))
	}
	s.Add("top-level keys", strings.Join(keys, ", "))
	if len(after) > 0 {
		s.Add("keys after traceEvents", strings.Join(after, ", "))
	}
	for _, k := range r.top.keys {
		if k.value != "" && k.value != "(object)" && k.value != "(array)" {
			s.Add(k.key, k.value)
		}
	}
	if r.window.has {
		s.Add("capture window", ns(r.window.end-r.window.start))
	}
	s.Add("end marker (Record Window End)", r.window.endMarker)
	return s
}

func (r *reader) eventSection() capture.Section {
	s := capture.Section{Title: "events"}
	s.Add("events", r.events)
	for ph := 0; ph < 256; ph++ {
		if n := r.stats.byPhase[ph]; n > 0 {
			s.Add("phase "+phaseName(byte(ph)), n)
		}
	}
	for id := catID(0); id < numCats; id++ {
		if n := r.stats.byCat[id]; n > 0 {
			s.Add("category "+cats[id].name, n)
		}
	}
	unk := make([]string, 0, len(r.stats.unknownCats))
	for k := range r.stats.unknownCats {
		unk = append(unk, k)
	}
	sort.Strings(unk)
	for _, k := range unk {
		s.Add("category "+k+" (unknown)", r.stats.unknownCats[k])
	}
	for u := use(0); u < numUses; u++ {
		s.Add("used: "+useText[u], r.stats.used[u])
	}
	for id := catID(0); id < numCats; id++ {
		if n := r.stats.devN[id]; n > 0 {
			s.Add("device work "+cats[id].name, fmt.Sprintf("%s, %s (%d ns)", units.Plural(int64(n), "event", "events"), ns(r.stats.devNS[id]), r.stats.devNS[id]))
		}
	}
	if r.stats.asString > 0 {
		s.Add("ts/dur written as strings", r.stats.asString)
	}
	if r.stats.subns > 0 {
		s.Add("times with digits below 1 ns (rounded half-even)", r.stats.subns)
	}
	if r.clock.ts0 > 0 {
		s.Add("complete events with ts 0", r.clock.ts0)
	}
	return s
}

func (r *reader) deviceSection(c *capture.Capture) capture.Section {
	s := capture.Section{Title: "devices"}
	if !r.top.devicesSeen {
		s.Add("deviceProperties", "absent")
	} else if len(r.top.devices) == 0 {
		s.Add("deviceProperties", "empty")
	}
	for _, d := range r.top.devices {
		name := d.name
		if d.hasName && name == "" {
			name = "(empty name)"
		}
		if d.hasID {
			s.Add(fmt.Sprintf("deviceProperties id %d", d.id), name)
		} else {
			s.Add("deviceProperties (no id)", name)
		}
	}
	if ids := r.deviceIDs(); len(ids) > 0 {
		txt := make([]string, len(ids))
		for i, id := range ids {
			txt[i] = itoa(id)
		}
		s.Add("device ids in device events", strings.Join(txt, ", "))
	}
	if st := r.deviceIDStatement(); st != "" {
		s.Add("device ids", st)
	}
	for i, q := range c.Queues {
		qi := &r.queues[i]
		s.Add(q.Device+" "+q.Name, fmt.Sprintf("%s, %s", units.Plural(int64(qi.dispatches), "event", "events"), ns(qi.ns)))
	}
	if r.top.hasDist {
		d := r.top.dist
		if d.hasRank {
			s.Add("rank", d.rank)
		} else {
			s.Add("rank", "unknown (distributedInfo has no rank)")
		}
		if d.hasWrld {
			s.Add("world size", d.world)
		}
		if d.backend != "" {
			s.Add("backend", d.backend)
		}
	} else {
		s.Add("rank", "unknown (no distributedInfo: a single-process run, or not recorded)")
	}
	return s
}

func (r *reader) deviceIDs() []int64 {
	seen := map[int64]bool{}
	for _, q := range r.queues {
		if q.devKnown {
			seen[q.key.dev] = true
		}
	}
	return sortedInt64Keys(seen)
}

// isROCm tells a ROCm trace by its build keys or HIP call names.
func (r *reader) isROCm() bool {
	for _, k := range r.top.keys {
		if k.key == "roctracer_version" || k.key == "hip_runtime_version" || k.key == "hip_driver_version" {
			return true
		}
	}
	for _, c := range r.calls {
		if strings.HasPrefix(c.name, "hip") {
			return true
		}
	}
	return false
}

// deviceIDStatement says how device ids relate to deviceProperties
// (spec §10): on ROCm they are HSA agent indices, offset by the CPU agents.
func (r *reader) deviceIDStatement() string {
	ids := r.deviceIDs()
	if len(ids) == 0 {
		return ""
	}
	props := map[int64]bool{}
	var propIDs []int64
	for _, d := range r.top.devices {
		if d.hasID && !props[d.id] {
			props[d.id] = true
			propIDs = append(propIDs, d.id)
		}
	}
	sort.Slice(propIDs, func(i, j int) bool { return propIDs[i] < propIDs[j] })
	var missing []string
	for _, id := range ids {
		if !props[id] {
			missing = append(missing, itoa(id))
		}
	}
	list := func(v []int64) string {
		if len(v) == 0 {
			return "none"
		}
		if len(v) > 2 && v[len(v)-1]-v[0] == int64(len(v)-1) {
			return fmt.Sprintf("%d–%d", v[0], v[len(v)-1])
		}
		t := make([]string, len(v))
		for i, x := range v {
			t[i] = itoa(x)
		}
		return strings.Join(t, ", ")
	}
	if r.isROCm() {
		st := fmt.Sprintf("ROCm: device ids are HSA agent indices, shown as found (in events: %s; deviceProperties ids: %s)", list(ids), list(propIDs))
		if len(propIDs) > 0 && ids[0] > propIDs[0] {
			st += fmt.Sprintf("; if device %d is the first GPU, the offset is %d (the host's CPU agents are numbered first)", ids[0], ids[0]-propIDs[0])
		}
		return st
	}
	if len(propIDs) > 0 && len(missing) > 0 {
		return fmt.Sprintf("device ids %s are not in deviceProperties (ids %s): shown as found", strings.Join(missing, ", "), list(propIDs))
	}
	return ""
}

func (r *reader) stepSection() capture.Section {
	s := capture.Section{Title: "steps and annotations"}
	if r.steps.n > 0 {
		s.Add("ProfilerStep host annotations", fmt.Sprintf("%d (#%d–#%d)", r.steps.n, r.steps.min, r.steps.max))
	} else {
		s.Add("ProfilerStep host annotations", 0)
	}
	s.Add("gpu_user_annotation spans", len(r.anns))
	names := map[string]int64{}
	for _, a := range r.anns {
		base, _, _ := stripStep(r.annNames[a.name])
		names[base]++
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == 50 {
			s.Add("gpu_user_annotation …", fmt.Sprintf("%d more names", len(keys)-50))
			break
		}
		s.Add("gpu_user_annotation "+k, names[k])
	}
	return s
}

func (r *reader) linkSection(st *replayStats) capture.Section {
	s := capture.Section{Title: "launch linkage"}
	var calls int64
	for _, c := range r.calls {
		calls += c.count
	}
	s.Add("runtime/driver calls", calls)
	s.Add("calls without a usable correlation id", r.stats.callsNoCorr)
	idx := make([]int, len(r.calls))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.calls[idx[a]].count > r.calls[idx[b]].count })
	var unlisted []string
	for _, i := range idx {
		c := &r.calls[i]
		if c.linked == 0 && c.noGPU == 0 && c.inCapt == 0 && !c.kind.launch {
			continue
		}
		v := fmt.Sprintf("%s, %s linked", units.Plural(int64(c.count), "call", "calls"), units.Plural(int64(c.linked), "device event", "device events"))
		if c.noGPU > 0 {
			v += fmt.Sprintf(", %d without device event", c.noGPU)
		}
		if c.inCapt > 0 {
			v += fmt.Sprintf(", %d inside stream capture (no device work expected)", c.inCapt)
		}
		s.Add("call "+c.name, v)
		if c.linked > 0 && !c.kind.launch {
			unlisted = append(unlisted, c.name)
		}
	}
	if len(unlisted) > 0 {
		s.Add("calls not on the launch list that launched device work", strings.Join(unlisted, ", "))
	}
	s.Add("graph launches", len(r.link.graphs))
	s.Add("device events without launch call", st.orphans)
	if r.link.noTime > 0 {
		s.Add("device events linked to a call whose times were dropped (over 65536 calls apart in the file)", r.link.noTime)
	}
	s.Add("peak device events waiting for their call", r.link.waitingPeak)
	s.Add("peak launch calls waiting for their device events", r.link.farPeak)
	if r.log.spilled > 0 {
		s.Add("device records spilled to a temporary file", r.log.spilled)
	}
	if r.log.noSpill {
		s.Add("spill file", "unavailable (no temporary directory): device records were kept in memory")
	}
	return s
}

func (r *reader) logSection() capture.Section {
	s := capture.Section{Title: "producer log"}
	s.Add("INFO lines", r.logs.info)
	s.Add("WARNING lines", r.logs.warning)
	s.Add("ERROR lines", r.logs.error)
	for _, f := range r.logs.counts {
		s.Add("Record counts: "+f.name, f.n)
	}
	return s
}

// comments are the lines the text report prints in its header.
func (r *reader) comments() []capture.Field {
	var s capture.Section // a builder: its Fields are the comments
	switch r.mode {
	case byAnnotation:
		s.Add("programs", fmt.Sprintf("innermost gpu_user_annotation on the dispatch's stream, else the host ProfilerStep#N range around its launch call (%s attributed by the step range), step numbers dropped (ProfilerStep#N → ProfilerStep, one run per step); --program-by gpu-annotation|stream|none regroups",
			units.Plural(r.byStep, "dispatch", "dispatches")))
	case byGPUAnnotation:
		s.Add("programs", "innermost gpu_user_annotation on the dispatch's stream only (--program-by gpu-annotation), step numbers dropped (ProfilerStep#N → ProfilerStep, one run per step)")
	case byStream:
		s.Add("programs", "one per device stream (--program-by stream)")
	case byNone:
		s.Add("programs", "one for the whole trace (--program-by none)")
	}
	if st := r.deviceIDStatement(); st != "" {
		s.Add("device ids", st)
	}
	if r.top.hasDist && r.top.dist.hasRank {
		v := itoa(r.top.dist.rank)
		if r.top.dist.hasWrld {
			v += " of " + itoa(r.top.dist.world)
		}
		s.Add("rank", v)
	}
	return s.Fields
}
