package export

import (
	"path/filepath"
	"strconv"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/internal/checkedfile"
)

// CollectiveRow is one rank's part in one collective instance matched
// across the ranks (Parquet collectives table, docs/export.md): the
// instance's figures repeated on each of its ranks' rows, so a query needs
// no join.
type CollectiveRow struct {
	// Instance numbers the instances of the export (rows of one instance
	// share it).
	Instance   int64  `parquet:"instance" json:"instance"`
	Rank       string `parquet:"rank,dict" json:"rank"`
	Input      int32  `parquet:"input" json:"input"`
	Group      string `parquet:"group,dict" json:"group"`
	Collective string `parquet:"collective,dict" json:"collective"`
	Seq        *int64 `parquet:"seq,optional" json:"seq"`
	Ordinal    *int64 `parquet:"ordinal,optional" json:"ordinal"`
	GroupSize  *int64 `parquet:"group_size,optional" json:"group_size"`
	// Ranks and MissingRanks count the ranks holding the instance and the
	// ranks of its group, read, that do not.
	Ranks        int32 `parquet:"ranks" json:"ranks"`
	MissingRanks int32 `parquet:"missing_ranks" json:"missing_ranks"`
	StartNS      int64 `parquet:"start_ns" json:"start_ns"`
	EndNS        int64 `parquet:"end_ns" json:"end_ns"`
	// WaitNS (this rank) and the instance's figures are null when its times
	// are not comparable across ranks.
	WaitNS        *int64   `parquet:"wait_ns,optional" json:"wait_ns"`
	Straggler     bool     `parquet:"straggler" json:"straggler"`
	StragglerRank *int64   `parquet:"straggler_rank,optional" json:"straggler_rank"`
	SkewNS        *int64   `parquet:"skew_ns,optional" json:"skew_ns"`
	TransferNS    *int64   `parquet:"transfer_ns,optional" json:"transfer_ns"`
	Bytes         *int64   `parquet:"bytes,optional" json:"bytes"`
	AlgBW         *float64 `parquet:"algbw_gbps,optional" json:"algbw_gbps"`
	BusBW         *float64 `parquet:"busbw_gbps,optional" json:"busbw_gbps"`
}

func optI64(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// writeCollectives writes the collectives table, one row per rank and
// instance, streaming from the analysis (which holds them already: no
// second copy).
func writeCollectives(dir *checkedfile.PendingDir, res *collectives.Result) error {
	p := filepath.Join(dir.Temp(), "collectives.parquet")
	f, err := createParquet[CollectiveRow](dir, p)
	if err != nil {
		return err
	}
	if res != nil && res.Matched {
		for i := range res.Instances {
			in := &res.Instances[i]
			base := CollectiveRow{Instance: int64(i), Group: in.Group, Collective: in.Type, Seq: optI64(in.Seq),
				GroupSize: optI64(in.GroupSize), Ranks: int32(len(in.Arrivals)), MissingRanks: int32(len(in.Missing)),
				StragglerRank: optI64(in.Straggler), TransferNS: optI64(in.Transfer), Bytes: optI64(in.Bytes)}
			if in.Seq < 0 {
				base.Ordinal = optI64(in.Ordinal)
			}
			if in.Timed {
				base.SkewNS = optI64(in.Skew)
			}
			if in.HasAlgBW {
				v := in.AlgBW
				base.AlgBW = &v
			}
			if in.HasBusBW {
				v := in.BusBW
				base.BusBW = &v
			}
			for _, a := range in.Arrivals {
				row, _ := f.next()
				*row = base
				row.Rank, row.Input = strconv.FormatInt(a.Rank, 10), int32(res.InputOf(a.Rank))
				row.StartNS, row.EndNS = a.Start, a.End
				row.Straggler = a.Rank == in.Straggler
				if in.Timed {
					row.WaitNS = optI64(a.Wait)
				}
				if err := f.flushIfFull(); err != nil {
					f.abort()
					return err
				}
			}
		}
	}
	return f.close()
}

// wholeGapRows are the run's own gaps (analysis.Run.OwnGaps; input -1:
// they concern no one input) for the gaps table; the collective analysis's
// among them when the writer analysed them.
func wholeGapRows(run *analysis.Run) []GapRow {
	var rows []GapRow
	for _, g := range run.OwnGaps() {
		r := GapRow{Input: -1, Record: "gap", Kind: string(g.Kind)}
		r.setGap(g, "ns")
		rows = append(rows, r)
	}
	return rows
}

// analyze is the run-wide analysis a writer makes once every input is read.
type analyzer interface {
	analyze(run *analysis.Run)
}
