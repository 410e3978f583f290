package nsys

import (
	"database/sql"
	"sort"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/outerrange"
)

// NVTX ranges give programs. A dispatch belongs to the outermost range
// (push/pop or start/end) open on its launching thread when the launch
// call began — NVIDIA's own rule ties a kernel to the ranges around its
// launch, not around its execution. The outermost, not the innermost:
// frameworks open a range per operator (PyTorch's "aten::view, op_id =
// 314290"), so the innermost would make a program per call, and shares
// are compared only inside one program. Trailing instance numbers are
// dropped from names (", op_id = N", "#N"), so repeated ranges are one
// program with several instances.

type nvtxRanges struct {
	set    outerrange.Set
	ranges []int32 // per kept range id: its program name index
	names  []string
	index  map[string]int32
	acct   *capture.Accounting // where names cut at capture.MaxName are counted
	read   int64               // NVTX rows read
	all    int64               // ranges among them (kept or not)
	marks  int64               // rows that are not ranges (marks, domain creation, no end)
}

func (n *nvtxRanges) name(s string) int32 {
	s = outerrange.TrimInstance(s)
	if s == "" {
		s = "(unnamed NVTX range)"
	}
	full := s
	s, cut := capture.CutName(s) // the index holds names as the model does
	if i, ok := n.index[s]; ok {
		return i
	}
	if cut { // counted once per name
		n.acct.LongName(int64(len(full)), full[:200], "NVTX_EVENTS text")
	}
	i := int32(len(n.names))
	n.names = append(n.names, s)
	n.index[s] = i
	return i
}

// loadNVTX reads every NVTX range, per thread, sorted by start.
func (r *reader) loadNVTX() error {
	n := &r.nvtx
	n.index = map[string]int32{}
	n.acct = &r.c.Accounting
	const t = "NVTX_EVENTS"
	if !r.db.Has(t) || !r.db.HasColumn(t, "start") || !r.db.HasColumn(t, "globalTid") {
		return nil
	}
	if err := r.db.QueryRow(`SELECT count(*) FROM NVTX_EVENTS`).Scan(&n.read); err != nil {
		return r.db.QueryError(t, err)
	}
	q := `SELECT n.start, n."end", n.globalTid, ` + r.db.Col("n", t, "text") + `, ` + r.db.Col("n", t, "textId") +
		` FROM NVTX_EVENTS n WHERE n."end" IS NOT NULL AND n.globalTid IS NOT NULL AND n.start IS NOT NULL AND n."end" >= n.start`
	if r.db.HasColumn(t, "eventType") {
		q += ` AND n.eventType IN (59, 60)` // NvtxPushPopRange, NvtxStartEndRange
	}
	q += ` ORDER BY n.globalTid, n.start, n."end" DESC`
	rows, err := r.db.Query(q)
	if err != nil {
		return r.db.QueryError(t, err)
	}
	defer rows.Close()
	var textIDs []int64
	var pendingText []int32 // global range index waiting for a StringIds name
	for rows.Next() {
		var start, end, tid int64
		var text sql.NullString
		var textID sql.NullInt64
		if err := rows.Scan(&start, &end, &tid, &text, &textID); err != nil {
			return r.db.QueryError(t, err)
		}
		n.all++
		if _, kept := n.set.Add(tid, start, end); !kept {
			continue // inside an earlier range: never the outermost
		}
		switch {
		case text.Valid:
			n.ranges = append(n.ranges, n.name(text.String))
		case textID.Valid:
			n.ranges = append(n.ranges, -1)
			pendingText = append(pendingText, int32(len(n.ranges)-1))
			textIDs = append(textIDs, textID.Int64)
		default:
			n.ranges = append(n.ranges, n.name(""))
		}
	}
	if err := rows.Err(); err != nil {
		return r.db.QueryError(t, err)
	}
	n.marks = n.read - n.all
	if len(pendingText) > 0 {
		strs, err := r.strings(uniq(textIDs))
		if err != nil {
			return err
		}
		for i, g := range pendingText {
			n.ranges[g] = n.name(strs[textIDs[i]]) // a pruned string is an unnamed range
		}
	}
	return nil
}

func uniq(ids []int64) []int64 {
	s := append([]int64(nil), ids...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
