// Package testfile holds helpers the readers' tests share for their sample
// files.
package testfile

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Gunzip returns the decompressed content of the gzip file at path,
// failing the test on any error.
func Gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
