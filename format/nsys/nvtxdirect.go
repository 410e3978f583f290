package nsys

import (
	"cmp"

	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// nrow is an NVTX range as the direct scan holds it; its text lies in the
// window's arena.
type nrow struct {
	start, end, tid, textID, rowid int64
	off, n                         int
	hasText, hasID                 bool
}

// cmpNrow orders ranges by start, the longer first, then in file order:
// per thread, the order Set.Add needs (the SQL path sorts by thread first;
// Set keeps threads apart, so that changes nothing).
func cmpNrow(a, b *nrow) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(b.end, a.end); c != 0 {
		return c
	}
	return cmp.Compare(a.rowid, b.rowid)
}

// maxArena bounds the NVTX text a window holds; longer texts are sorted by SQL.
const maxArena = 64 << 20

// loadNVTXDirect is loadNVTX by a direct scan of NVTX_EVENTS, sorted
// through a window (nsys writes the table in start order), up to the
// ranges' names. Any error — rows too far out of order, a layout the
// scanner leaves to SQL, damage — means: read it through SQL; nothing has
// been used yet.
func (r *reader) loadNVTXDirect() (*pendingNames, error) {
	const t = "NVTX_EVENTS"
	if !r.db.HasColumn(t, "end") {
		return nil, &sqlitein.Unsupported{Why: t + " has no end column"}
	}
	hasType := r.db.HasColumn(t, "eventType")
	kinds := []sqlitein.Kind{sqlitein.Int, sqlitein.Int, sqlitein.Int, sqlitein.Text, sqlitein.Int, sqlitein.Int}
	s, err := r.db.Scan(t, []string{"start", "end", "globalTid", "text", "textId", "eventType"}, kinds)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	n := &r.nvtx
	var arena, spare []byte
	src := func(x *nrow) (bool, error) {
		for s.Next() {
			n.read++
			start, okS := s.Int(0)
			end, okE := s.Int(1)
			tid, okT := s.Int(2)
			if !okS || !okE || !okT || end < start {
				continue
			}
			if hasType {
				if et, ok := s.Int(5); !ok || (et != 59 && et != 60) { // NvtxPushPopRange, NvtxStartEndRange
					continue
				}
			}
			*x = nrow{start: start, end: end, tid: tid, rowid: s.Rowid()}
			x.textID, x.hasID = s.Int(4)
			if text, ok := s.Text(3); ok {
				if len(arena)+len(text) > maxArena {
					return false, &sqlitein.Unsupported{Why: "NVTX texts too long for the window"}
				}
				x.hasText, x.off, x.n = true, len(arena), len(text)
				arena = append(arena, text...)
			}
			return true, nil
		}
		return false, s.Err()
	}
	w := newWindow(src, cmpNrow)
	w.shift = func(kept []nrow) {
		spare = spare[:0]
		for i := range kept {
			if kept[i].hasText {
				off := len(spare)
				spare = append(spare, arena[kept[i].off:kept[i].off+kept[i].n]...)
				kept[i].off = off
			}
		}
		arena, spare = spare, arena
	}
	var p pendingNames
	for {
		x, err := w.next()
		if err != nil {
			return nil, err
		}
		if x == nil {
			break
		}
		if r.ops != nil {
			r.ops.add(x.tid, x.start, x.end, string(arena[x.off:x.off+x.n]), x.hasText, x.textID, x.hasID)
		}
		if n.offer(x.tid, x.start, x.end) {
			n.named(&p, string(arena[x.off:x.off+x.n]), x.hasText, x.textID, x.hasID)
		}
	}
	return &p, nil
}
