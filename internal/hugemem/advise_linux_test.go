//go:build linux

package hugemem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Make's memory is marked for huge pages: the kernel's VmFlags for the
// mapping that holds it include "hg" (MADV_HUGEPAGE), on kernels built
// with transparent huge pages.
func TestMakeAdvised(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	s := Make[rec](3 * PageSize / 24)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	flags, ok := vmFlags(t, p)
	if !ok {
		t.Fatalf("no mapping in /proc/self/smaps holds %#x", p)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("got VmFlags %q for the memory of Make, want them to include hg (advised for huge pages)", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps
// holding address p.
func vmFlags(t *testing.T, p uintptr) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, _ := strings.Cut(fields[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(p) >= a && uint64(p) < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), true
		}
	}
	return "", false
}
