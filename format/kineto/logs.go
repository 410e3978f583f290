package kineto

import (
	"strings"

	"github.com/tallyprof/tally/capture"
)

// producerLog is the profiler's own log kept in the file (spec §9): the
// "Record counts" line states what Kineto dropped, ERROR lines what failed.
type producerLog struct {
	info, warning, error int64
	// counts sums each "Name = N" figure of the Record counts lines, in
	// the order first seen.
	counts []countFigure
	// lines keeps WARNING and ERROR lines verbatim (capped) and the
	// Record counts lines.
	warnings, errors []string
	recordLines      []string
}

type countFigure struct {
	name string
	n    int64
}

const maxLogLines = 100

func (p *producerLog) line(level, text string) {
	switch level {
	case "INFO":
		p.info++
		if i := strings.Index(text, "Record counts:"); i >= 0 {
			if len(p.recordLines) < maxLogLines {
				p.recordLines = append(p.recordLines, text)
			}
			p.recordCounts(text[i+len("Record counts:"):])
		}
	case "WARNING":
		p.warning++
		if len(p.warnings) < maxLogLines {
			p.warnings = append(p.warnings, text)
		}
	case "ERROR":
		p.error++
		if len(p.errors) < maxLogLines {
			p.errors = append(p.errors, text)
		}
	}
}

// recordCounts parses "Out-of-range = 3829, Blocklisted runtime = 56517, …"
// generically: names change between Kineto versions.
func (p *producerLog) recordCounts(s string) {
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		n, ok := parseInt([]byte(strings.TrimSpace(val)))
		if !ok || name == "" {
			continue
		}
		found := false
		for i := range p.counts {
			if p.counts[i].name == name {
				p.counts[i].n = capture.SatAdd(p.counts[i].n, n)
				found = true
				break
			}
		}
		if !found {
			p.counts = append(p.counts, countFigure{name: name, n: max(n, 0)})
		}
	}
}

// lossFigure reports whether a Record counts figure means device or
// linkage data was lost or is doubtful. "Blocklisted runtime" counts host
// calls Kineto filters on purpose (cudaGetDevice and the like), which never
// launch device work.
func lossFigure(name string) bool {
	return !strings.HasPrefix(name, "Blocklisted")
}
