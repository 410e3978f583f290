package swimlane

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/tallyprof/tally/format"
)

// records is chip_swimlane_records.json (spec §5): only what tally uses.
// Phase streams and uploads are not dispatches: they are counted as read and
// not used (unusedStreams), and whether both orchestrator kinds are present
// matters (an error: two clock domains).
type records struct {
	Level    *int64 `json:"chip_swimlane_level"`
	Metadata struct {
		ClockFreqHz json.Number `json:"clock_freq_hz"`
		CoreTypes   []string    `json:"core_types"`
		Platform    string      `json:"platform"`
		HostCapture *struct {
			Status          string `json:"status"`
			ExpectedRecords *int64 `json:"expected_records"`
			RecordedRecords *int64 `json:"recorded_records"`
			DroppedRecords  *int64 `json:"dropped_records"`
			Error           string `json:"error"`
		} `json:"host_capture"`
	} `json:"metadata"`
	Platform  string            `json:"platform"`
	AICore    [][]json.Number   `json:"aicore_tasks"`
	AICPU     [][]json.Number   `json:"aicpu_tasks"`
	AICPUOrch []json.RawMessage `json:"aicpu_orchestrator_phases"`
	HostOrch  []json.RawMessage `json:"host_orchestrator_phases"`
	Scheduler []json.RawMessage `json:"aicpu_scheduler_phases"`
	Uploads   []json.RawMessage `json:"host_device_uploads"`
}

// decodeFile decodes a JSON file into v; errors are positioned (byte
// offset) format errors.
func decodeFile(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return format.ByteError(path, se.Offset, "", "not valid JSON: %v", err)
		case errors.As(err, &te):
			return format.ByteError(path, te.Offset, "", "unexpected JSON: %s holds %s, want %s", te.Field, te.Value, te.Type)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			// Where the data ends: the decoder's offset stays at the start
			// of the value it could not finish (byte 0 for the whole file).
			end := int64(0)
			if st, err := f.Stat(); err == nil {
				end = st.Size()
			}
			return format.ByteError(path, end, "the file is cut short", "JSON ends early")
		}
		return format.FileError(path, err, "", "%v", err)
	}
	return nil
}

// readMarker reads dispatch_program.json's "program"; on failure it
// returns "" and why (spec §2: "program not recorded").
func readMarker(path string) (string, string) {
	var m map[string]any
	if err := decodeFile(path, &m); err != nil {
		if os.IsNotExist(err) {
			return "", "no dispatch_program.json"
		}
		return "", "dispatch_program.json unreadable (" + err.Error() + ")"
	}
	p, ok := m["program"].(string)
	if !ok || p == "" {
		return "", "dispatch_program.json has no program string"
	}
	return p, ""
}

// idOf reads an unsigned id (deps.json ids are strings or numbers).
func idOf(n json.Number) (uint64, bool) {
	v, err := strconv.ParseUint(string(n), 10, 64)
	return v, err == nil
}

func intOf(n json.Number) (int64, bool) {
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil
}

// deps is what deps.json holds besides the task → kernel ids: how many
// edges and tensors, which tally counts and does not use.
type deps struct {
	ids            map[uint64][3]int64
	edges, tensors int64
}

// readDeps reads deps.json's task → kernel ids (spec §6); task_id may be a
// string or a number, so the fields are read raw.
func readDeps(path string) (*deps, error) {
	var raw struct {
		Tasks []struct {
			TaskID    json.RawMessage   `json:"task_id"`
			KernelIDs []json.RawMessage `json:"kernel_ids"`
		} `json:"tasks"`
		Edges   []json.RawMessage `json:"edges"`
		Tensors []json.RawMessage `json:"tensors"`
	}
	if err := decodeFile(path, &raw); err != nil {
		return nil, err
	}
	out := make(map[uint64][3]int64, len(raw.Tasks))
	for i, t := range raw.Tasks {
		id, ok := idOf(json.Number(unquote(t.TaskID)))
		if !ok {
			return nil, format.FileError(path, nil, "", "task %d: task_id %s is not an unsigned integer", i, t.TaskID)
		}
		k := [3]int64{-1, -1, -1}
		for j := 0; j < len(t.KernelIDs) && j < 3; j++ {
			if v, ok := intOf(json.Number(unquote(t.KernelIDs[j]))); ok {
				k[j] = v
			}
		}
		out[id] = k
	}
	return &deps{ids: out, edges: int64(len(raw.Edges)), tensors: int64(len(raw.Tensors))}, nil
}

func unquote(b json.RawMessage) string {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// nameMap is a name_map*.json (spec §4), read only to cross-check.
type nameMap struct {
	Level int64             `json:"level"`
	Names map[string]string `json:"callable_id_to_name"`
}

// crossCheck compares a name map with the program's table and says how it
// is ignored.
func crossCheck(path string, p *program) string {
	var m nameMap
	if err := decodeFile(path, &m); err != nil {
		return "unreadable (" + err.Error() + "), ignored"
	}
	if m.Level != 2 {
		return fmt.Sprintf("a level-%d map (its ids are not func_ids), ignored", m.Level)
	}
	if p == nil || p.table == nil || !p.table.Usable() {
		return "not used for names: the dispatch's program table is the only name source, and it is unavailable here"
	}
	diff := diffNames(m.Names, p.table)
	if len(diff) == 0 {
		return "agrees with program " + p.name + "'s table; not used for names (the table is)"
	}
	return fmt.Sprintf("disagrees with program %s's table (%v), ignored", p.name, diff)
}

// diffNames lists where a name map's names differ from a table (at most
// three, then how many more).
func diffNames(names map[string]string, t *Table) []string {
	var diff []string
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := names[k]
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			diff = append(diff, fmt.Sprintf("key %q is not a func_id", k))
			continue
		}
		if want, ok := t.Names[id]; !ok || want != v {
			if !ok {
				want = "(absent)"
			}
			diff = append(diff, fmt.Sprintf("#%d map %q vs table %q", id, v, want))
		}
	}
	if len(diff) > 3 {
		diff = append(diff[:3], fmt.Sprintf("… %d more", len(diff)-3))
	}
	return diff
}
