package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hostileOpsTrace is a Kineto trace whose host ops carry what a corrupted
// or hostile trace can (the third sweep): shapes whose element counts pass
// int64, a 2^1240-element elementwise op, negative dims, an unknown dtype,
// a convolution with a negative dilation, a 0 ns kernel, an op without
// shapes, a dispatch without a launch, and the forged name as an op name.
// Each op launches one 100 µs kernel (the 0 ns one aside).
func hostileOpsTrace(t *testing.T, dir string) string {
	t.Helper()
	big, huge := "9223372036854775807", strings.TrimSuffix(strings.Repeat("4611686018427387904,", 20), ",")
	ops := []struct{ name, args, kernel string }{
		{"aten::mm", `"Input Dims":[[` + big + `,` + big + `],[` + big + `,` + big + `]],"Input type":["float","float"]`, "mm_int64_max"},
		{"aten::mm", `"Input Dims":[[1099511627776,1099511627776],[1099511627776,4]],"Input type":["float","float"]`, "mm_2e80"},
		{"aten::add", `"Input Dims":[[` + huge + `],[2]],"Input type":["float","float"]`, "add_2e1240"},
		{"aten::add", `"Input Dims":[[-4,8],[8]],"Input type":["float","float"]`, "add_negative"},
		{"aten::mm", `"Input Dims":[[3,5],[5,7]],"Input type":["c10::Mystery","c10::Mystery"]`, "mm_unknown_dtype"},
		{"aten::convolution", `"Input Dims":[[1,3,100,100],[8,3,3,3],[],[],[],[],[],[],[]],"Input type":["float","float","","","","","","",""],"Concrete Inputs":["","","","[1, 1]","[0, 0]","[-5, -5]","False","[0, 0]","1"]`, "conv_negative_dilation"},
		{"aten::_scaled_dot_product_flash_attention", `"Input Dims":[[1,1,1152921504606846976,64],[1,1,1152921504606846976,64],[1,1,1152921504606846976,64]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"]`, "attention_2e60"},
		{"aten::mm", ``, "mm_no_shapes"},
		{forged, `"Input Dims":[[3,5],[5,7]],"Input type":["float","float"]`, "forged_op"},
		// At the lowest peaks (--peak-tflops 0.001) its 2·8192³ FLOPs take
		// over a second on the roof: large figures, still finite.
		{"aten::mm", `"Input Dims":[[8192,8192],[8192,8192]],"Input type":["float","float"]`, "mm_fine"},
	}
	var ev []string
	for i, o := range ops {
		name, _ := json.Marshal(o.name)
		h := 1000 * i
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":%s,"pid":1,"tid":1,"ts":%d,"dur":20,"args":{%s}}`, name, h, o.args),
			fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}}`, h+5, i+1),
			fmt.Sprintf(`{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%d,"dur":100,"args":{"device":0,"stream":7,"correlation":%d}}`, o.kernel, h+10, i+1))
	}
	ev = append(ev, `{"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":20000,"dur":100,"args":{"device":0,"stream":7,"correlation":999}}`,
		`{"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":0}`)
	doc := `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[` + strings.Join(ev, ",\n") + "]}"
	return writeFile(t, dir, "hostile-ops.json", doc)
}

// nonFinite is how Go prints an Inf or a NaN (not "distributedInfo").
var nonFinite = regexp.MustCompile(`(^|[^A-Za-z])[+-]?Inf([^A-Za-z]|$)|NaN`)

// TestOpsHostileShapes: garbage shapes are not modelled (counted), the
// JSON report is written (an Inf FLOP count failed it with "json:
// unsupported value: +Inf", exit 2), and no output prints Inf or NaN.
func TestOpsHostileShapes(t *testing.T) {
	dir := t.TempDir()
	p := hostileOpsTrace(t, dir)
	d := reportOps(t, p)
	if d.Table.DeviceNS == nil || d.Table.Modelled == nil || d.Unmodelled == nil || d.Unattributed == nil {
		t.Fatalf("got op_table %+v, unmodelled %v, unattributed %v; want every figure", d.Table, d.Unmodelled, d.Unattributed)
	}
	// 11 kernels of 100 µs: only mm_fine is modelled; the orphan is under
	// no op; the other nine are unmodelled, one of them without shapes.
	if *d.Table.DeviceNS != 1_100_000 || *d.Table.Modelled != 100_000 || *d.Unmodelled != 900_000 || *d.Table.NoShapes != 100_000 || *d.Unattributed != 100_000 {
		t.Errorf("got device %d = modelled %d + unmodelled %d (no shapes %d) + unattributed %d; want 1100000 = 100000 + 900000 (100000) + 100000",
			*d.Table.DeviceNS, *d.Table.Modelled, *d.Unmodelled, *d.Table.NoShapes, *d.Unattributed)
	}
	for _, o := range d.Ops {
		for _, s := range o.Sigs {
			if !strings.Contains(s.Dims, "[8192,8192]") {
				t.Errorf("%s: got the signature %s modelled, want only mm_fine's", o.Name, s.Dims)
			}
		}
	}
	text := tallyOK(t, "report", "--by", "op", p)
	page := filepath.Join(dir, "r.html")
	tallyOK(t, "report", "--by", "op", "--html", page, p)
	tiny := tallyOK(t, "report", "--by", "op", "--peak-tflops", "0.001", "--peak-tbps", "0.001", p)
	reportOps(t, "--peak-tflops", "0.001", p) // the JSON report is written
	for what, out := range map[string]string{"text": text, "html": readFile(t, page), "text at 0.001 TFLOP/s": tiny} {
		if loc := nonFinite.FindStringIndex(out); loc != nil {
			t.Errorf("%s: got %q (…%s…), want no Inf or NaN", what, out[loc[0]:loc[1]], out[max(0, loc[0]-80):min(len(out), loc[1]+20)])
		}
	}
	checkNoControls(t, "report --by op", text)
}
