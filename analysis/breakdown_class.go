package analysis

import (
	"strings"

	"github.com/tallyprof/tally/capture"
)

// What a dispatch is, for the breakdown: its class, from its kernel's
// category and name. The sweep ranks classes by priority (the order of the
// constants): a moment when several ran counts for the first.

type class uint8

const (
	clsCompute class = iota
	clsComm
	clsMemcpyHtoD
	clsMemcpyDtoH
	clsMemcpyDtoD
	clsMemcpyPtoP
	clsMemcpyOther
	clsMemset
	numClasses
)

// commNames are the name parts (matched case-insensitively) that make a
// kernel a communication kernel: the collective libraries' kernels
// (ncclDevKernel_*, ncclKernel_*, RCCL's, MSCCL's, HCCL's) and the custom
// all-reduce kernels of inference servers (vLLM's cross_device_reduce).
var commNames = []string{"nccl", "rccl", "msccl", "hccl", "cross_device_reduce"}

// classOf classifies a kernel.
func classOf(k *capture.Kernel) class {
	switch k.Category {
	case "memset":
		return clsMemset
	case "memcpy":
		return memcpyDirection(k.Name)
	case "comm":
		return clsComm
	}
	if isComm(k.Name) {
		return clsComm
	}
	return clsCompute
}

func isComm(name string) bool {
	if len(name) > 256 {
		name = name[:256] // collective names say so up front
	}
	l := strings.ToLower(name)
	for _, n := range commNames {
		if strings.Contains(l, n) {
			return true
		}
	}
	return false
}

// memcpyDirection reads a copy's direction from its name as the formats
// write it: Kineto "Memcpy HtoD (Pageable -> Device)", nsys "[CUDA memcpy
// Host-to-Device]", rocprof "CopyHostToDevice".
func memcpyDirection(name string) class {
	l := strings.ToLower(name)
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(l, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("htod", "host-to-device", "hosttodevice", "host to device"):
		return clsMemcpyHtoD
	case has("dtoh", "device-to-host", "devicetohost", "device to host"):
		return clsMemcpyDtoH
	case has("dtod", "device-to-device", "devicetodevice", "device to device"):
		return clsMemcpyDtoD
	case has("ptop", "peer-to-peer", "peertopeer", "peer to peer"):
		return clsMemcpyPtoP
	}
	return clsMemcpyOther
}
