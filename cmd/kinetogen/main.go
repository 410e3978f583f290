// Command kinetogen writes a synthetic Kineto trace for benchmarks:
//
//	go run ./cmd/kinetogen -size 1GiB -o /tmp/big.json
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

func main() {
	size := flag.String("size", "100MiB", "approximate size of the JSON (suffixes KiB, MiB, GiB)")
	out := flag.String("o", "", "output `file` (.gz to compress); required")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: kinetogen -size 1GiB -o FILE[.gz]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(*out, ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	st, err := kinetogen.Write(w, kinetogen.Config{TargetBytes: n, Seed: *seed})
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(st)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSuffix(s, u.suf), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	return int64(v * float64(mult)), err
}
