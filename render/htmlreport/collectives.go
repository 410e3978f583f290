package htmlreport

import (
	"fmt"
	"sort"

	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/render"
)

// collView is the page's collectives section: per collective type, a skew
// chart (one bar per instance, in order, its height the instance's arrival
// skew over the type's largest), and the ranks that waited longest.
type collView struct {
	Headline string
	Clock    string
	Notes    []string
	Types    []collChart
	Ranks    []collRank
	More     int // ranks not listed
}

type collChart struct {
	Name    string
	Summary string
	Bars    []collBar
	Omitted int // instances past maxBars, not drawn
}

type collBar struct {
	X, W, Y, H float64
	Label      string
	Straggler  int64
}

type collRank struct {
	Rank                          int64
	Collectives                   int64
	Time, Wait                    string
	StragglerCount, WaitNs, TimeN int64
	// Exposed is the rank's communication not under compute, from its
	// time breakdown ("-" without one); ExposedNs its figure.
	Exposed   string
	ExposedNs *int64
}

// maxBars bounds the bars of one chart (a page of a long job stays light).
const maxBars = 2000

// collRanks is how many ranks the section lists, longest waits first.
const collRanks = 20

func buildColl(res *collectives.Result) *collView {
	if res == nil {
		return nil
	}
	v := &collView{Clock: res.Clock, Notes: res.Notes, Headline: "counted per rank, not matched (one input)"}
	if res.Matched {
		v.Headline = fmt.Sprintf("%d instances matched across %d ranks", len(res.Instances), len(res.Ranks))
	}
	for _, t := range res.Types() {
		c := collChart{Name: t.Type, Summary: fmt.Sprintf("%d instances, %d timed", t.Instances, t.Timed)}
		if t.Timed > 0 {
			c.Summary += fmt.Sprintf("; skew mean %s, max %s", render.DurationF(t.SkewMean, "ns"), render.Duration(t.SkewMax, "ns"))
		}
		if t.Straggler >= 0 {
			c.Summary += fmt.Sprintf("; most often last: rank %d (%d times)", t.Straggler, t.StragglerCount)
		}
		var ins []*collectives.Instance
		for i := range res.Instances {
			if in := &res.Instances[i]; in.Type == t.Type && in.Timed {
				ins = append(ins, in)
			}
		}
		if len(ins) > maxBars {
			c.Omitted = len(ins) - maxBars
			ins = ins[:maxBars]
		}
		w := 1000 / float64(max(len(ins), 1))
		for i, in := range ins {
			h := 0.0
			if t.SkewMax > 0 {
				h = 100 * float64(in.Skew) / float64(t.SkewMax)
			}
			label := fmt.Sprintf("%s seq %d (group %s): skew %s", in.Type, in.Seq, in.Group, render.Duration(in.Skew, "ns"))
			if in.Seq < 0 {
				label = fmt.Sprintf("%s #%d (group %s): skew %s", in.Type, in.Ordinal, in.Group, render.Duration(in.Skew, "ns"))
			}
			if in.Straggler >= 0 {
				label += fmt.Sprintf(", last rank %d", in.Straggler)
			}
			c.Bars = append(c.Bars, collBar{X: float64(i) * w, W: max(w*0.9, 0.5), Y: 100 - h, H: h, Label: label, Straggler: in.Straggler})
		}
		v.Types = append(v.Types, c)
	}
	ranks := append([]collectives.Rank(nil), res.Ranks...)
	sortRanks(ranks)
	if len(ranks) > collRanks {
		v.More = len(ranks) - collRanks
		ranks = ranks[:collRanks]
	}
	for _, r := range ranks {
		cr := collRank{Rank: r.Rank, Collectives: r.Collectives, Time: render.Duration(r.Time, "ns"),
			Wait: render.Duration(r.Wait, "ns"), StragglerCount: r.StragglerCount, WaitNs: r.Wait, TimeN: r.Time, Exposed: "-"}
		if r.HasExposed {
			cr.Exposed, cr.ExposedNs = render.Duration(r.Exposed, "ns"), &r.Exposed
		}
		v.Ranks = append(v.Ranks, cr)
	}
	return v
}

// sortRanks orders ranks by their waits, longest first (rank on a tie).
func sortRanks(rs []collectives.Rank) {
	sort.Slice(rs, func(i, j int) bool {
		return rs[i].Wait > rs[j].Wait || rs[i].Wait == rs[j].Wait && rs[i].Rank < rs[j].Rank
	})
}
