package format

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/internal/cleanup"
)

// A spool is a temporary copy of an input in TMPDIR, made for a reader that
// needs random access (a stream) or a path (SQLite, which cannot read gzip).
// Inflating gzip data can write far more than tally was given — a 3 MB
// .sqlite.gz of zeros inflates to 3 GB — so an inflated spool stops at
// SpoolRatio times the compressed size, at least SpoolFloor: real traces
// compress 3 to 20 times, a gzip bomb a thousand. A plain stream is copied
// as it comes, byte for byte: the disk it takes is what its producer sent,
// so by default it has no limit but TMPDIR's free space. TALLY_SPOOL_LIMIT
// replaces both rules by one size for every spool (docs/formats, README).

// SpoolLimitEnv names the environment variable that sets the spool limit:
// a size in bytes, with an optional K, M, G or T suffix (powers of 1024;
// KiB, MiB, GiB, TiB and KB, MB, GB, TB mean the same), or "unlimited".
const SpoolLimitEnv = "TALLY_SPOOL_LIMIT"

// SpoolRatio and SpoolFloor set the default limit of an inflated spool:
// SpoolRatio times the compressed size, at least SpoolFloor bytes.
const SpoolRatio = 100

// SpoolFloor is a variable so tests can lower it.
var SpoolFloor int64 = 1 << 30

// SpoolLimitError ends a spool that reached its limit. The error a reader
// returns is a *Error wrapping it, naming the file.
type SpoolLimitError struct {
	Limit int64
	// Compressed is the compressed size the default limit came from; -1
	// when the limit was set with TALLY_SPOOL_LIMIT.
	Compressed int64
}

func (e *SpoolLimitError) Error() string {
	if e.Compressed < 0 {
		return fmt.Sprintf("it reached the spool limit of %s set by %s", sizeText(e.Limit), SpoolLimitEnv)
	}
	return fmt.Sprintf("it reached the spool limit of %s (%d times the %s compressed, at least %s)",
		sizeText(e.Limit), SpoolRatio, sizeText(e.Compressed), sizeText(SpoolFloor))
}

// spoolHint says how to raise the limit.
const spoolHint = "set " + SpoolLimitEnv + " to a larger size (e.g. " + SpoolLimitEnv + "=64GiB) or to unlimited"

// spoolLimit is the most bytes a spool may hold, made from compressed
// bytes of gzip data or from a plain stream (compressed < 0), and the error
// that ends a spool at it. limit < 0 is no limit.
func spoolLimit(compressed int64) (limit int64, atLimit *SpoolLimitError, err error) {
	if v, ok := os.LookupEnv(SpoolLimitEnv); ok && strings.TrimSpace(v) != "" {
		n, err := ParseSize(v)
		if err != nil {
			return 0, nil, fmt.Errorf("%s=%q: %v", SpoolLimitEnv, v, err)
		}
		return n, &SpoolLimitError{Limit: n, Compressed: -1}, nil
	}
	switch {
	case compressed < 0:
		return -1, nil, nil
	case compressed > SpoolFloor/SpoolRatio:
		limit = compressed * SpoolRatio
	default:
		limit = SpoolFloor
	}
	return limit, &SpoolLimitError{Limit: limit, Compressed: compressed}, nil
}

// ParseSize reads a size: bytes, with an optional K, M, G or T suffix
// (powers of 1024; KiB/KB, MiB/MB, … mean the same), or "unlimited" (-1).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "unlimited") {
		return -1, nil
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size: give bytes, e.g. 16GiB, 500M or 1073741824, or unlimited")
	}
	shift := 0
	switch strings.ToUpper(strings.TrimSpace(s[i:])) {
	case "", "B":
	case "K", "KB", "KIB":
		shift = 10
	case "M", "MB", "MIB":
		shift = 20
	case "G", "GB", "GIB":
		shift = 30
	case "T", "TB", "TIB":
		shift = 40
	default:
		return 0, fmt.Errorf("not a size: unknown unit %q (give K, M, G or T, or bytes)", s[i:])
	}
	if n > (1<<63-1)>>shift {
		return 0, fmt.Errorf("too large")
	}
	return n << shift, nil
}

// sizeText is a size for a message: "1 GiB", "3.0 MB (3145728 bytes)".
func sizeText(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s (%d bytes)", float64(n)/float64(int64(1)<<u.shift), u.name, n)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// copyLimited copies src to dst and fails with atLimit rather than write
// more than limit bytes (limit < 0: no limit).
func copyLimited(dst io.Writer, src io.Reader, limit int64, atLimit *SpoolLimitError) (int64, error) {
	if limit < 0 {
		return io.Copy(dst, src)
	}
	n, err := io.Copy(dst, io.LimitReader(src, limit))
	if err != nil || n < limit {
		return n, err
	}
	var b [1]byte
	switch _, err := io.ReadFull(src, b[:]); {
	case err == nil:
		return n, atLimit
	case err == io.EOF:
		return n, nil
	default:
		return n, err
	}
}

// TempFile writes the input's content, decompressed when it is gzip, to a
// new file in TMPDIR, for a reader that needs a path (SQLite), and returns
// its name. The copy stops at the spool limit (SpoolLimitEnv), is removed
// by tally when a signal interrupts it (internal/cleanup), and on any
// error nothing is left. The caller removes it with RemoveTempFile.
// reader names the reader and pattern the file (os.CreateTemp).
func (in *Input) TempFile(pattern, reader string) (string, error) {
	if err := in.RandomAccess(reader); err != nil {
		var fe *Error
		if !errors.As(err, &fe) {
			err = FileError(in.Path, err, "", "%v", err)
		}
		return "", err
	}
	compressed := int64(-1)
	if in.Gzip {
		compressed = in.Size
	}
	limit, atLimit, err := spoolLimit(compressed)
	if err != nil {
		return "", FileError(in.Path, err, "", "%v", err)
	}
	r, err := in.Reader()
	if err != nil {
		return "", FileError(in.Path, err, "is it a complete .gz file?", "reading: %v", err)
	}
	release := cleanup.Hold()
	f, err := os.CreateTemp("", pattern)
	if err == nil {
		cleanup.Track(f.Name())
	}
	release()
	if err != nil {
		return "", FileError(in.Path, err, "set TMPDIR to a writable disk, or give the data as a file", "the %s reader needs the data in a file, and no temporary file could be made: %v", reader, err)
	}
	n, err := copyLimited(f, r, limit, atLimit)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		RemoveTempFile(f.Name())
		var le *SpoolLimitError
		if errors.As(err, &le) {
			verb := "copying"
			if in.Gzip {
				verb = "inflating"
			}
			return "", FileError(in.Path, err, spoolHint+", or decompress the data to a file yourself and give that", "the %s reader needs the data in a file; %s it into a temporary file stopped: %v", reader, verb, err)
		}
		return "", FileError(in.Path, err, "set TMPDIR to a disk with free space, or give the data as a file", "copying it to a temporary file for the %s reader failed after %d bytes: %v", reader, n, err)
	}
	return f.Name(), nil
}

// RemoveTempFile removes a file TempFile made.
func RemoveTempFile(name string) error {
	err := os.Remove(name)
	cleanup.Untrack(name)
	return err
}
