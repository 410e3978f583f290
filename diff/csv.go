package diff

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/internal/safetext"
)

// CSVHeader is the first line `tally diff --csv` writes; docs/diff-json.md
// describes each column. One row per program or kernel and quantity.
var CSVHeader = []string{"program", "kernel", "list", "status", "changes", "quantity", "unit",
	"a_n", "a_median", "a_lo", "a_hi", "b_n", "b_median", "b_lo", "b_hi",
	"delta", "p", "significant", "exact", "changed"}

// WriteCSV writes the comparison as CSV. Program rows have an empty kernel
// column; empty cells are unknown or not applicable, never zero.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for i := range r.Programs {
		p := &r.Programs[i]
		rows := [][]string{csvRow(p.Name, "", "", p.Status, "", "dispatches_per_run", "", &p.Dispatches)}
		if p.Unit != "" {
			rows = append(rows, csvRow(p.Name, "", "", p.Status, "", "time_per_run", p.Unit, &p.Total))
		}
		for j := range p.Kernels {
			k := &p.Kernels[j]
			ch := strings.Join(k.Changes(), ";")
			rows = append(rows, csvRow(p.Name, k.Name, k.List, k.Status, ch, "dispatches_per_run", "", &k.Dispatches))
			if p.Unit != "" {
				rows = append(rows, csvRow(p.Name, k.Name, k.List, k.Status, ch, "time_per_dispatch", p.Unit, &k.PerDispatch),
					csvRow(p.Name, k.Name, k.List, k.Status, ch, "time_per_run", p.Unit, &k.PerRun))
			}
		}
		if err := cw.WriteAll(rows); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(program, kernel, list string, st Status, changes, quantity, unit string, m *Metric) []string {
	// Names come from the inputs: controls escaped, so `cat` of the CSV
	// cannot run an escape sequence (CSV quoting keeps newlines, not this).
	row := []string{safetext.Escape(program), safetext.Escape(kernel), safetext.Escape(list), string(st), changes, quantity, unit}
	row = append(row, csvSummary(m.A)...)
	row = append(row, csvSummary(m.B)...)
	var delta, p, sig, exact, changed string
	if m.Compared {
		p = strconv.FormatFloat(*roundSig(m.P), 'g', -1, 64)
		sig = strconv.FormatBool(m.Significant)
		exact = strconv.FormatBool(m.Exact)
		changed = strconv.FormatBool(m.Changed())
	}
	if m.HasDelta {
		delta = num(m.Delta)
	}
	return append(row, delta, p, sig, exact, changed)
}

func csvSummary(s *Summary) []string {
	if s == nil {
		return []string{"", "", "", ""}
	}
	lo, hi := "", ""
	if s.CI {
		lo, hi = num(s.Lo), num(s.Hi)
	}
	return []string{strconv.Itoa(s.N), num(s.Center), lo, hi}
}

func num(v float64) string { return strconv.FormatFloat(*round(v), 'g', -1, 64) }
