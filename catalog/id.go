// Package catalog names kernels. It builds the ggml-hrx kernel catalog from a
// build's manifest.json files (ids are hashes of family and name) and gives
// the anonymous label for an id no catalog of its program names.
package catalog

import "strconv"

// The ggml-hrx catalog hash is FNV-1a in shape but with its own offset basis:
// 1469598103934665603 is the standard FNV-64 basis with its last decimal digit
// dropped, so hash/fnv gives different ids. Do not "fix" it.
const (
	offsetBasis uint64 = 1469598103934665603
	prime       uint64 = 1099511628211
)

// ID returns the kernel catalog id of (family, name): the hash over the family
// bytes, one zero byte, then the name bytes.
func ID(family, name string) uint64 {
	h := offsetBasis
	for i := 0; i < len(family); i++ {
		h ^= uint64(family[i])
		h *= prime
	}
	h ^= 0 // the separator byte takes part like any other byte
	h *= prime
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= prime
	}
	return h
}

// Anonymous is the label of a kernel id that no catalog of its own program
// names: "program:#id". It is never a guess from another program's catalog.
func Anonymous(program string, id uint64) string {
	return program + ":#" + strconv.FormatUint(id, 10)
}
