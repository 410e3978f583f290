package htmlreport

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// opRows caps the op rows the page lists; the JSON report holds them all.
const opRows = 50

// opsView is the op table (`--by op`) of one capture or of the merged
// inputs: the partition of device time as figures, the rows, and a
// roofline chart of the modelled ops.
type opsView struct {
	Level, Source, Device, Peaks string
	Lines                        []string
	Rows                         []opRowView
	More                         int // rows not listed
	Chart                        template.HTML
	NotDrawn                     string
}

type opRowView struct {
	Name, Kernel                              string
	KernelFull                                string // Kernel's whole name, on hover
	Calls, Dispatches                         int64
	Device, Share, Host, TFLOPS, TBps, OfRoof string
	Bound                                     string
}

// opsOf is the view of t; nil when the op table was not asked for.
func opsOf(t *analysis.OpTable) *opsView {
	if t == nil {
		return nil
	}
	v := &opsView{Level: t.Level, Source: t.Source, Device: t.DeviceName, Peaks: t.Peaks}
	if v.Source == "" {
		v.Source = render.NoOpSource
	}
	frac := func(x int64) string {
		if t.Device <= 0 {
			return "-"
		}
		return render.Share(float64(x) / float64(t.Device))
	}
	v.Lines = []string{
		fmt.Sprintf("device time %s in %s: %s attributed to %s; %s (%s) under no op, of which %s had no launch call in the trace",
			render.Duration(t.Device, t.Unit), units.Plural(t.Dispatches, "dispatch", "dispatches"), frac(t.Device-t.Unattributed.Device),
			units.Plural(int64(len(t.Rows)), "op name", "op names"), frac(t.Unattributed.Device), units.Plural(t.Unattributed.Dispatches, "dispatch", "dispatches"),
			units.Plural(t.NoLaunchDispatches, "dispatch", "dispatches")),
		fmt.Sprintf("modelled (FLOPs or bytes from recorded shapes): %s; unmodelled %s (%s without shapes, %s outside the models)",
			frac(t.Modelled), frac(t.Unmodelled), frac(t.NoShapes), frac(t.NoModel)),
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		if i == opRows {
			v.More = len(t.Rows) - opRows
			break
		}
		rv := opRowView{Name: r.Name, Calls: r.Calls, Dispatches: r.Dispatches, Device: render.Duration(r.Device, t.Unit), Share: render.Share(r.Share),
			Host: "-", TFLOPS: "-", TBps: "-", OfRoof: "-", Bound: r.Roof.Bound()}
		if r.HostValid {
			rv.Host = render.Duration(r.Host, "ns")
		}
		if x, ok := r.Roof.TFLOPS(); ok {
			rv.TFLOPS = fmt.Sprintf("%.1f", x)
		}
		if x, ok := r.Roof.TBps(); ok {
			rv.TBps = fmt.Sprintf("%.2f", x)
		}
		if x, ok := r.Roof.OfPeak(); ok {
			rv.OfRoof = render.Share(x)
		}
		if len(r.Kernels) > 0 {
			rv.KernelFull = r.Kernels[0].Name
		}
		v.Rows = append(v.Rows, rv)
	}
	// The costliest kernels shown short, as the kernel tables show them
	// (render.ShortNames tells apart two that would read alike).
	full := make([]string, len(v.Rows))
	for i := range v.Rows {
		full[i] = v.Rows[i].KernelFull
	}
	for i, short := range render.ShortNames(full) {
		rv := &v.Rows[i]
		rv.Kernel = short
		if n := len(t.Rows[i].Kernels); n > 1 {
			rv.Kernel += fmt.Sprintf(" (+%d)", n-1)
		}
	}
	v.Chart, v.NotDrawn = roofline(t)
	return v
}

// Chart geometry, in SVG units.
const (
	chartW, chartH         = 640.0, 400.0
	chartL, chartB, chartT = 64.0, 40.0, 12.0
	chartR                 = 90.0 // room for the roofs' labels
)

// roofline draws the modelled ops with both FLOPs and bytes as points of
// arithmetic intensity (FLOP/byte) against achieved TFLOP/s on log axes,
// with each dtype's roof: bandwidth × intensity up to the compute peak.
// notDrawn says which ops are not points (bytes only, no device time).
func roofline(t *analysis.OpTable) (template.HTML, string) {
	type pt struct {
		x, y float64
		name string
	}
	var pts []pt
	bytesOnly := 0
	for i := range t.Rows {
		r := &t.Rows[i]
		in, ok1 := r.Roof.Intensity()
		tf, ok2 := r.Roof.TFLOPS()
		switch {
		case ok1 && ok2:
			pts = append(pts, pt{in, tf, safetext.Escape(r.Name)}) // as the table shows it (escape.go)
		case r.Roof.Bytes > 0:
			bytesOnly++
		}
	}
	notDrawn := ""
	if bytesOnly > 0 {
		notDrawn = units.Plural(int64(bytesOnly), "op is", "ops are") + " modelled by bytes only (no FLOPs) and not drawn: see their TB/s in the table"
	}
	if len(pts) == 0 {
		return "", notDrawn
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		xmin, xmax = math.Min(xmin, p.x), math.Max(xmax, p.x)
		ymin, ymax = math.Min(ymin, p.y), math.Max(ymax, p.y)
	}
	for _, r := range t.Roofs {
		if r.TFLOPS > 0 {
			ymax = math.Max(ymax, r.TFLOPS)
			if r.TBps > 0 {
				ridge := r.TFLOPS / r.TBps
				xmin, xmax = math.Min(xmin, ridge/10), math.Max(xmax, ridge*10)
			}
		}
	}
	x0, x1 := math.Floor(math.Log10(xmin)), math.Ceil(math.Log10(xmax))
	y0, y1 := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
	if x1 == x0 {
		x1++
	}
	if y1 == y0 {
		y1++
	}
	pw, ph := chartW-chartL-chartR, chartH-chartB-chartT
	sx := func(v float64) float64 { return chartL + (math.Log10(v)-x0)/(x1-x0)*pw }
	sy := func(v float64) float64 { return chartT + ph - (math.Log10(v)-y0)/(y1-y0)*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="roofline" viewBox="0 0 %g %g" role="img" aria-label="roofline: achieved TFLOP/s against FLOP per byte">`, chartW, chartH)
	fmt.Fprintf(&b, `<rect class="plot" x="%g" y="%g" width="%g" height="%g"></rect>`, chartL, chartT, pw, ph)
	for d := x0; d <= x1; d++ {
		x := sx(math.Pow(10, d))
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%g" x2="%.1f" y2="%g"></line><text class="tick" x="%.1f" y="%g" text-anchor="middle">%s</text>`,
			x, chartT, x, chartT+ph, x, chartT+ph+14, decade(d))
	}
	for d := y0; d <= y1; d++ {
		y := sy(math.Pow(10, d))
		fmt.Fprintf(&b, `<line class="grid" x1="%g" y1="%.1f" x2="%g" y2="%.1f"></line><text class="tick" x="%g" y="%.1f" text-anchor="end">%s</text>`,
			chartL, y, chartL+pw, y, chartL-4, y+4, decade(d))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%g" y="%g" text-anchor="middle">FLOP per byte</text>`, chartL+pw/2, chartH-6)
	fmt.Fprintf(&b, `<text class="axis" x="12" y="%g" transform="rotate(-90 12 %g)" text-anchor="middle">TFLOP/s</text>`, chartT+ph/2, chartT+ph/2)
	xlo, xhi := math.Pow(10, x0), math.Pow(10, x1)
	for _, r := range t.Roofs {
		if r.TFLOPS <= 0 {
			continue
		}
		var pts []string
		if r.TBps > 0 {
			ridge := r.TFLOPS / r.TBps
			start := math.Max(xlo, math.Pow(10, y0)/r.TBps) // where the slope enters the plot
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(start), sy(start*r.TBps)), fmt.Sprintf("%.1f,%.1f", sx(ridge), sy(r.TFLOPS)))
		} else {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(xlo), sy(r.TFLOPS)))
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(xhi), sy(r.TFLOPS)))
		fmt.Fprintf(&b, `<polyline class="roof" points="%s"><title>%s</title></polyline>`, strings.Join(pts, " "),
			html.EscapeString(safetext.Sprintf("%s roof: %g TFLOP/s, %g TB/s", r.DType, r.TFLOPS, r.TBps)))
		fmt.Fprintf(&b, `<text class="rooflabel" x="%.1f" y="%.1f">%s %g</text>`, sx(xhi)+4, sy(r.TFLOPS)+4, html.EscapeString(safetext.Escape(r.DType)), r.TFLOPS)
	}
	for _, p := range pts {
		fmt.Fprintf(&b, `<circle class="op" cx="%.1f" cy="%.1f" r="4" data-op="%s"><title>%s</title></circle>`, sx(p.x), sy(p.y), html.EscapeString(p.name),
			html.EscapeString(fmt.Sprintf("%s: %.3g FLOP/B, %.3g TFLOP/s", p.name, p.x, p.y)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), notDrawn // every text in it is escaped above
}

func decade(d float64) string {
	if d >= 0 && d <= 3 {
		return fmt.Sprintf("%g", math.Pow(10, d))
	}
	return fmt.Sprintf("1e%g", d)
}
