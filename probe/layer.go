package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/tallyprof/tally/internal/checkedfile"
)

// LayerFailure is one layer dump that was not written.
type LayerFailure struct {
	Layer int
	Path  string
	Err   error
}

type layerState struct {
	mu       sync.Mutex
	failed   []LayerFailure
	reported map[string]bool // failure modes already printed
}

// WriteLayer writes one layer's activations as dir/layer_<l>.f32 (M×H
// float32, little-endian, row-major, no header) with the sidecar
// dir/layer_<l>.json = {"shape":[M,H],"dtype":"f32"} that `tally layers`
// reads. Every open, write, sync and close is checked and each file is
// replaced atomically; a failed dump removes an earlier run's files of
// that layer, so it reads as not written. A failure never stops the caller: it is returned,
// printed once per failure mode (not once per layer) unless Options.Quiet,
// and listed again by Close (so dump before Close).
func (s *Session) WriteLayer(dir string, layer int, data []float32, shape [2]int) error {
	f32 := filepath.Join(dir, "layer_"+strconv.Itoa(layer)+".f32")
	side := filepath.Join(dir, "layer_"+strconv.Itoa(layer)+".json")
	// Divide rather than multiply: M×H can wrap around in int.
	if shape[0] <= 0 || shape[1] <= 0 || len(data)%shape[1] != 0 || len(data)/shape[1] != shape[0] {
		err := fmt.Errorf("shape %dx%d does not match %d values", shape[0], shape[1], len(data))
		return s.layerFailed(layer, f32, "shape", clearStale(err, f32, side))
	}
	if err := checkedfile.Write(f32, func(w io.Writer) error { return writeF32(w, data) }); err != nil {
		return s.layerFailed(layer, f32, failureMode(err), clearStale(err, f32, side))
	}
	meta := fmt.Sprintf("{\"shape\":[%d,%d],\"dtype\":\"f32\"}\n", shape[0], shape[1])
	if err := checkedfile.Write(side, func(w io.Writer) error { _, err := io.WriteString(w, meta); return err }); err != nil {
		err = fmt.Errorf("%w (the data file was written, its sidecar was not)", err)
		return s.layerFailed(layer, side, failureMode(err), clearStale(err, side))
	}
	return nil
}

// clearStale removes files an earlier dump of this layer left, so a dump
// that failed reads as not written, never as an earlier run's layer (or
// this run's data with an earlier run's shape). A file that cannot be
// removed is named in the error.
func clearStale(err error, paths ...string) error {
	for _, p := range paths {
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = fmt.Errorf("%w; an earlier %s is left and will read as this run's: %v", err, filepath.Base(p), rerr)
		}
	}
	return err
}

// writeF32 encodes in 64 KiB pieces so a large layer needs no second copy.
func writeF32(w io.Writer, data []float32) error {
	var buf [64 << 10]byte
	for len(data) > 0 {
		n := min(len(data), len(buf)/4)
		for i, v := range data[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(buf[:4*n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// failureMode groups errors that have one cause, so a full disk is reported
// once, not once per layer.
func failureMode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return "errno " + errno.Error()
	}
	return err.Error()
}

func (s *Session) layerFailed(layer int, path, mode string, err error) error {
	l := &s.layers
	l.mu.Lock()
	l.failed = append(l.failed, LayerFailure{Layer: layer, Path: path, Err: err})
	if l.reported == nil {
		l.reported = map[string]bool{}
	}
	first := !l.reported[mode]
	l.reported[mode] = true
	l.mu.Unlock()
	if first && !s.opts.Quiet {
		s.logLine(fmt.Sprintf("probe: layer %d not written: %v (later dumps that fail the same way are counted, not printed; Close lists them)", layer, err))
	}
	return fmt.Errorf("probe: layer %d not written: %w", layer, err)
}

func (l *layerState) failures() []LayerFailure {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LayerFailure(nil), l.failed...)
}
