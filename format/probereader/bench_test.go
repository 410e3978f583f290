package probereader

import (
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/probefile"
)

// BenchmarkRead: 1 M dispatch events in batches of 16384, read through
// format.ReadInput (model checks included).
func BenchmarkRead(b *testing.B) {
	bd := newBuilder(probefile.FamilyDispatchEvents).defs()
	const batch = 16384
	pairs := make([]int64, 2*batch)
	for n := 0; n < 1<<20; n += batch {
		// Each drain holds the next dispatches: a batch with the same
		// times as the one before would be that record written twice.
		for i := 0; i < batch; i++ {
			pairs[2*i], pairs[2*i+1] = int64(10*(n+i)), int64(10*(n+i)+5)
		}
		bd.events(0, pairs...)
	}
	bd.end(1<<20, 1<<20, 0)
	data := bd.b
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var n int64
		sink := capture.SinkFunc(func(*capture.Capture, *capture.Dispatch) { n++ })
		if _, err := format.ReadInput(format.BytesInput("bench.probe", data), Name, nil, sink); err != nil || n != 1<<20 {
			b.Fatal(err, n)
		}
	}
}
