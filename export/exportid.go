package export

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// ExportIDColumn is the last column of every row of a csv or jsonl export,
// in OUT and in OUT.gaps.csv|jsonl alike: one id per export, so a reader can
// always tell whether a table and a gaps file belong together (a SIGKILL
// between their two renames can leave the previous OUT beside a new gaps
// file). CheckPair checks it; docs/export.md says how.
const ExportIDColumn = "export_id"

// OutputKind is the kind of the gaps file's last line (record "export"):
// the rows and bytes of the OUT written with it.
const OutputKind = "output"

// newExportID returns a random UUID of version 7 (RFC 9562): 48 bits of
// Unix milliseconds, then 74 random bits. The time makes ids of one OUT
// sort by export; the random bits make two exports' ids differ.
func newExportID(now time.Time) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		return "", fmt.Errorf("making the export id: %w", err)
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[:6], ms[2:])
	b[6] = 0x70 | b[6]&0x0f // version 7
	b[8] = 0x80 | b[8]&0x3f // variant 10
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// exportIDTime is the time a version-7 export id was made (ok false for
// another text).
func exportIDTime(id string) (t time.Time, ok bool) {
	if len(id) != 36 || id[14] != '7' {
		return time.Time{}, false
	}
	raw, err := hex.DecodeString(id[:8] + id[9:13])
	if err != nil {
		return time.Time{}, false
	}
	var ms [8]byte
	copy(ms[2:], raw)
	return time.UnixMilli(int64(binary.BigEndian.Uint64(ms[:]))).UTC(), true
}
