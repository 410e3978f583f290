package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// An item that names its queue: the text line says which, and the JSON
// carries the index with the queue table it indexes (in the one-input
// document, a section and inspect's); an item without one leaves both out.
func TestItemQueue(t *testing.T) {
	c, r := sample()
	var b bytes.Buffer
	if err := Text(&b, c, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "on queue") || BuildJSON(c, r).Queues != nil {
		t.Fatalf("got\n%s\nwant no queue named (the item has none)", b.String())
	}
	c.AddQueue(capture.Queue{Name: "stream 3", Device: "GPU 1", Rank: "2"})
	q := c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 1", Rank: "2"})
	c.Accounting.Gaps[0].Items[0].Queue = capture.QueueOf(q)
	b.Reset()
	if err := Text(&b, c, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "fam:matmul: launched; on queue rank 2 · GPU 1 · stream 7; at 77 ns") {
		t.Fatalf("got\n%s\nwant the item line to name queue rank 2 · GPU 1 · stream 7", b.String())
	}
	b.Reset()
	if err := InspectText(&b, c); err != nil || !strings.Contains(b.String(), "on queue rank 2 · GPU 1 · stream 7") {
		t.Fatalf("inspect: got %v\n%s\nwant the queue named", err, b.String())
	}

	b.Reset()
	if err := JSON(&b, c, r); err != nil {
		t.Fatal(err)
	}
	var doc JSONReport
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	it := doc.Accounting.Gaps[0].Items[0]
	if it.Queue == nil || int(*it.Queue) >= len(doc.Queues) || doc.Queues[*it.Queue].Name != "stream 7" {
		t.Fatalf("got item queue %v, queues %+v; want the index of stream 7", it.Queue, doc.Queues)
	}
	if s := BuildSection("x.kept", c, r, nil); len(s.Queues) != 2 {
		t.Fatalf("section queues: got %+v, want 2", s.Queues)
	}
	b.Reset()
	var in JSONInspect
	if err := InspectJSON(&b, c); err != nil || json.Unmarshal(b.Bytes(), &in) != nil || len(in.Queues) != 2 {
		t.Fatalf("inspect json: got %v, queues %+v; want 2 queues", err, in.Queues)
	}
}
