package npuprof

import (
	"io"
	"strconv"
)

// LayerStat is what one `[L] <layer> <mean|x|> <absmax>` line says: the
// engine's statistics of position 0's hidden vector after a layer.
type LayerStat struct {
	Layer   int64
	MeanAbs float64
	AbsMax  float64
	// Line is the first line that printed this layer; Repeats counts later
	// lines for it (another forward pass).
	Line    int64
	Repeats int64
}

// LayerLines reads the [L] lines of an engine log (raw or kept), keeping
// the first line per layer. Memory grows with the distinct layers only.
func LayerLines(r io.Reader) (map[int64]*LayerStat, error) {
	out := map[int64]*LayerStat{}
	var n int64
	err := eachLine(r, func(line []byte, long, partial bool) error {
		n++
		if long || partial {
			return nil
		}
		body, _ := stamp(line)
		k, b := classify(body)
		if k != kindLayer {
			return nil
		}
		ly, ok := parseLayer(b)
		if !ok {
			return nil
		}
		if st := out[ly.l]; st != nil {
			st.Repeats++
			return nil
		}
		mean, err1 := strconv.ParseFloat(string(ly.mean), 64)
		absmax, err2 := strconv.ParseFloat(string(ly.absmax), 64)
		if err1 != nil || err2 != nil {
			return nil
		}
		out[ly.l] = &LayerStat{Layer: ly.l, MeanAbs: mean, AbsMax: absmax, Line: n}
		return nil
	})
	return out, err
}
