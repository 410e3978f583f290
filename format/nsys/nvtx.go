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
	if !sqlOnly {
		if p, err := r.loadNVTXDirect(); err == nil {
			r.nvDirect = true
			return r.nameRanges(p)
		}
	}
	*n = nvtxRanges{index: map[string]int32{}} // start again, through SQL
	if r.ops != nil {
		r.ops = newNvtxOps()
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
	var p pendingNames
	for rows.Next() {
		var start, end, tid int64
		var text sql.NullString
		var textID sql.NullInt64
		if err := rows.Scan(&start, &end, &tid, &text, &textID); err != nil {
			return r.db.QueryError(t, err)
		}
		if r.ops != nil {
			r.ops.add(tid, start, end, text.String, text.Valid, textID.Int64, textID.Valid)
		}
		if n.offer(tid, start, end) {
			n.named(&p, text.String, text.Valid, textID.Int64, textID.Valid)
		}
	}
	if err := rows.Err(); err != nil {
		return r.db.QueryError(t, err)
	}
	return r.nameRanges(&p)
}

// pendingNames are kept ranges named by a StringIds id, to look up once.
type pendingNames struct {
	textIDs []int64
	ranges  []int32 // kept range index waiting for a StringIds name
}

// offer offers one range row, in the order Set.Add needs, and says
// whether it is kept (a range inside an earlier one never is the
// outermost); a kept range is then named.
func (n *nvtxRanges) offer(tid, start, end int64) bool {
	n.all++
	_, kept := n.set.Add(tid, start, end)
	return kept
}

func (n *nvtxRanges) named(p *pendingNames, text string, hasText bool, textID int64, hasID bool) {
	switch {
	case hasText:
		n.ranges = append(n.ranges, n.name(text))
	case hasID:
		n.ranges = append(n.ranges, -1)
		p.ranges = append(p.ranges, int32(len(n.ranges)-1))
		p.textIDs = append(p.textIDs, textID)
	default:
		n.ranges = append(n.ranges, n.name(""))
	}
}

// nameRanges counts the rows that are not ranges and names the ranges
// named by StringIds ids.
func (r *reader) nameRanges(p *pendingNames) error {
	n := &r.nvtx
	n.marks = n.read - n.all
	pendingText, textIDs := p.ranges, p.textIDs
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
