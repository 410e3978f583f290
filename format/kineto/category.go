package kineto

import "strings"

// catID is a known event category (spec §4), by every spelling Kineto has
// used; catUnknown is any other, counted by name.
type catID uint8

const (
	catNone    catID = iota // no "cat" key (metadata, instants)
	catUnknown              // a category tally does not know

	// Device work: the dispatches.
	catKernel
	catMemcpy
	catMemset
	catKernel2021
	catMemcpy2021
	catMemset2021
	catMTIACCP

	// Host runtime/driver calls: joined to device work by correlation.
	catCudaRuntime
	catCudaDriver
	catRuntime2021
	catMTIARuntime
	catPU1Runtime
	catPU1Driver
	catXPURuntime
	catXPUDriver

	catGPUAnnotation // gpu_user_annotation: the default program source

	// Host-side work that is not device work.
	catCPUOp
	catUserAnnotation
	catOperator2021
	catPythonFunction
	catCPUInstant
	catExternalCorrelation
	catOverhead
	catCudaSync
	catCudaEvent
	catXPUSync
	catCollectiveComm
	catMTIAInsight
	catHPUOp
	catGlowRuntime
	catXPUScopeProfiler

	// Counters instead of timed device work.
	catProfilerRange
	catMTIACounters
	catHardwareCounters

	catTrace // the capture window span

	// Flow arrows (secondary linkage, not used).
	catAC2G
	catFwdBwd
	catAsync2021
	catAsyncCPUToGPU
	catAsyncGPU

	numCats
)

// catClass is what the reader does with a category.
type catClass uint8

const (
	clsNone catClass = iota
	clsUnknown
	clsDevice
	clsRuntime
	clsGPUAnnotation
	clsHostOp
	clsHostOther
	clsCounters
	clsWindow
	clsFlow
	numClasses
)

type catInfo struct {
	name  string
	class catClass
	// label is the dispatch category for device work (capture.Kernel):
	// "kernel", "memcpy", "memset" or the device category itself.
	label string
}

var cats = [numCats]catInfo{
	catNone:                {"", clsNone, ""},
	catUnknown:             {"", clsUnknown, ""},
	catKernel:              {"kernel", clsDevice, "kernel"},
	catMemcpy:              {"gpu_memcpy", clsDevice, "memcpy"},
	catMemset:              {"gpu_memset", clsDevice, "memset"},
	catKernel2021:          {"Kernel", clsDevice, "kernel"},
	catMemcpy2021:          {"Memcpy", clsDevice, "memcpy"},
	catMemset2021:          {"Memset", clsDevice, "memset"},
	catMTIACCP:             {"mtia_ccp_events", clsDevice, "mtia_ccp_events"},
	catCudaRuntime:         {"cuda_runtime", clsRuntime, ""},
	catCudaDriver:          {"cuda_driver", clsRuntime, ""},
	catRuntime2021:         {"Runtime", clsRuntime, ""},
	catMTIARuntime:         {"mtia_runtime", clsRuntime, ""},
	catPU1Runtime:          {"privateuse1_runtime", clsRuntime, ""},
	catPU1Driver:           {"privateuse1_driver", clsRuntime, ""},
	catXPURuntime:          {"xpu_runtime", clsRuntime, ""},
	catXPUDriver:           {"xpu_driver", clsRuntime, ""},
	catGPUAnnotation:       {"gpu_user_annotation", clsGPUAnnotation, ""},
	catCPUOp:               {"cpu_op", clsHostOp, ""},
	catUserAnnotation:      {"user_annotation", clsHostOp, ""},
	catOperator2021:        {"Operator", clsHostOp, ""},
	catPythonFunction:      {"python_function", clsHostOp, ""},
	catCPUInstant:          {"cpu_instant_event", clsHostOther, ""},
	catExternalCorrelation: {"external_correlation", clsHostOther, ""},
	catOverhead:            {"overhead", clsHostOther, ""},
	catCudaSync:            {"cuda_sync", clsHostOther, ""},
	catCudaEvent:           {"cuda_event", clsHostOther, ""},
	catXPUSync:             {"xpu_sync", clsHostOther, ""},
	catCollectiveComm:      {"collective_comm", clsHostOther, ""},
	catMTIAInsight:         {"mtia_insight", clsHostOther, ""},
	catHPUOp:               {"hpu_op", clsHostOther, ""},
	catGlowRuntime:         {"glow_runtime", clsHostOther, ""},
	catXPUScopeProfiler:    {"xpu_scope_profiler", clsCounters, ""},
	catProfilerRange:       {"cuda_profiler_range", clsCounters, ""},
	catMTIACounters:        {"mtia_counters", clsCounters, ""},
	catHardwareCounters:    {"hardware_counters", clsCounters, ""},
	catTrace:               {"Trace", clsWindow, ""},
	catAC2G:                {"ac2g", clsFlow, ""},
	catFwdBwd:              {"fwdbwd", clsFlow, ""},
	catAsync2021:           {"async", clsFlow, ""},
	catAsyncCPUToGPU:       {"async_cpu_to_gpu", clsFlow, ""},
	catAsyncGPU:            {"async_gpu", clsFlow, ""},
}

// lookupCat maps a raw category to its id without allocating.
func lookupCat(b []byte) catID {
	switch string(b) {
	case "cpu_op":
		return catCPUOp
	case "kernel":
		return catKernel
	case "cuda_runtime":
		return catCudaRuntime
	case "ac2g":
		return catAC2G
	case "gpu_memcpy":
		return catMemcpy
	case "gpu_memset":
		return catMemset
	case "user_annotation":
		return catUserAnnotation
	case "python_function":
		return catPythonFunction
	case "cuda_driver":
		return catCudaDriver
	case "gpu_user_annotation":
		return catGPUAnnotation
	case "Kernel":
		return catKernel2021
	case "Memcpy":
		return catMemcpy2021
	case "Memset":
		return catMemset2021
	case "Runtime":
		return catRuntime2021
	case "Operator":
		return catOperator2021
	case "mtia_ccp_events":
		return catMTIACCP
	case "mtia_runtime":
		return catMTIARuntime
	case "privateuse1_runtime":
		return catPU1Runtime
	case "privateuse1_driver":
		return catPU1Driver
	case "xpu_runtime":
		return catXPURuntime
	case "xpu_driver":
		return catXPUDriver
	case "cpu_instant_event":
		return catCPUInstant
	case "external_correlation":
		return catExternalCorrelation
	case "overhead":
		return catOverhead
	case "cuda_sync":
		return catCudaSync
	case "cuda_event":
		return catCudaEvent
	case "xpu_sync":
		return catXPUSync
	case "collective_comm":
		return catCollectiveComm
	case "mtia_insight":
		return catMTIAInsight
	case "hpu_op":
		return catHPUOp
	case "glow_runtime":
		return catGlowRuntime
	case "xpu_scope_profiler":
		return catXPUScopeProfiler
	case "cuda_profiler_range":
		return catProfilerRange
	case "mtia_counters":
		return catMTIACounters
	case "hardware_counters":
		return catHardwareCounters
	case "Trace":
		return catTrace
	case "fwdbwd":
		return catFwdBwd
	case "async":
		return catAsync2021
	case "async_cpu_to_gpu":
		return catAsyncCPUToGPU
	case "async_gpu":
		return catAsyncGPU
	}
	return catUnknown
}

func (c catID) class() catClass { return cats[c].class }

// Runtime call names (spec §7). The list is data: a call of another name
// that carries a correlation id and matches device work is still linked,
// and the inventory lists such names.
var launchNames = map[string]bool{
	"cudaLaunchKernel":            true,
	"cudaLaunchKernelExC":         true,
	"cuLaunchKernel":              true,
	"cuLaunchKernelEx":            true,
	"cudaLaunchCooperativeKernel": true,
	"cudaMemcpyAsync":             true,
	"cudaMemsetAsync":             true,
	"cudaGraphLaunch":             true,
	"cuGraphLaunch":               true,
	"hipLaunchKernel":             true,
	"hipExtModuleLaunchKernel":    true,
	"hipModuleLaunchKernel":       true,
	"hipExtLaunchKernel":          true,
	"hipGraphLaunch":              true,
	"hipMemcpyAsync":              true,
	"hipMemcpyWithStream":         true,
	"hipMemsetAsync":              true,
	"runFunction - job_prep_and_submit_for_execution": true,
}

// baseCallName strips CUPTI's per-thread-stream and version suffixes
// ("cudaMemcpyAsync_ptsz", "cudaLaunchKernel_v7000") before list lookups.
func baseCallName(name string) string {
	for {
		i := strings.LastIndexByte(name, '_')
		if i <= 0 {
			return name
		}
		suf := name[i+1:]
		if suf == "ptsz" || suf == "ptds" || (len(suf) > 1 && suf[0] == 'v' && allDigits(suf[1:])) {
			name = name[:i]
			continue
		}
		return name
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

// callKind classifies a runtime call name once, when it is interned.
type callKind struct {
	launch       bool // expected to produce device work
	graph        bool // replays a graph: many device events share its id
	invalid      bool // the writer could not name it ("INVALID")
	captureBegin bool // cudaStreamBeginCapture & co: launches are recorded, not run
	captureEnd   bool
}

func classifyCall(name string) callKind {
	b := baseCallName(name)
	k := callKind{launch: launchNames[b], graph: strings.Contains(name, "GraphLaunch"), invalid: name == "INVALID"}
	switch b {
	case "cudaStreamBeginCapture", "cudaStreamBeginCaptureToGraph", "hipStreamBeginCapture", "hipStreamBeginCaptureToGraph", "cuStreamBeginCapture":
		k.captureBegin = true
	case "cudaStreamEndCapture", "hipStreamEndCapture", "cuStreamEndCapture":
		k.captureEnd = true
	}
	if k.graph {
		k.launch = true
	}
	return k
}
