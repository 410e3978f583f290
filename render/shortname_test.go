package render

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestShortNameMatchesNsys checks ShortName against the shortName column
// Nsight Systems itself wrote for every kernel of the real nsys sample.
func TestShortNameMatchesNsys(t *testing.T) {
	f, err := os.Open("testdata/nsys_shortnames.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		full, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("got line %q, want full<TAB>short", line)
		}
		n++
		if got := ShortName(full); got != want {
			t.Errorf("ShortName(%q)\n got %q, want %q (nsys shortName)", full, got, want)
		}
	}
	if n < 40 {
		t.Fatalf("read %d names, want the sample's 41", n)
	}
}

func TestShortNameLevels(t *testing.T) {
	const add = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	const pow = "void at::native::vectorized_elementwise_kernel<(int)4, void at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)"
	const rsqrt = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)"
	const elem = "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)"
	for _, c := range []struct {
		name  string
		level int
		want  string
	}{
		{add, levelShort, "vectorized_elementwise_kernel"},
		{add, 1, "vectorized_elementwise_kernel<4, CUDAFunctor_add, array>"},
		{add, 2, "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char *, 3>>"},
		{add, levelRaw, "vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>"},
		{add, levelFull, add},
		{pow, 1, "vectorized_elementwise_kernel<4, pow_tensor_scalar_kernel_impl, array>"},
		{pow, 2, "vectorized_elementwise_kernel<4, pow_tensor_scalar_kernel_impl<float, float>, array<char *, 2>>"},
		{rsqrt, 1, "vectorized_elementwise_kernel<4, rsqrt_kernel_cuda, array>"},
		{elem, 1, "elementwise_kernel<128, 2, gpu_kernel_impl_nocast>"},
		{elem, 2, "elementwise_kernel<128, 2, gpu_kernel_impl_nocast<BinaryFunctor>>"},
		{elem, 3, "elementwise_kernel<128, 2, gpu_kernel_impl_nocast<BinaryFunctor<float, float, float, MulFunctor>>>"},
		// GCC style: anonymous namespaces and lambdas in braces.
		{"void (anonymous namespace)::fill_kernel<float>(float*, int)", levelShort, "fill_kernel"},
		{"void foo::bar(int)::{lambda(int)#1}::operator()(int) const", levelShort, "bar"},
		{"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", levelShort, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
		{"cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)", 1, "Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"},
		{"std::vector<int> ns::make<int>(int)", levelShort, "make"},
		// Not signatures: kept whole at every level.
		{"memcpy Host-to-Device", levelShort, "memcpy Host-to-Device"},
		{"Memcpy HtoD (Pageable -> Device)", levelShort, "Memcpy HtoD (Pageable -> Device)"},
		{"Memset (Device)", levelShort, "Memset (Device)"},
		{"loom_libs:ggml_mul_mat_f32_f32_wmma", levelShort, "loom_libs:ggml_mul_mat_f32_f32_wmma"},
		{"aten::mm", levelShort, "aten::mm"},
		{"p41:#14896872061627543929", levelShort, "p41:#14896872061627543929"},
		{"triton_poi_fused_add_0", levelShort, "triton_poi_fused_add_0"},
		{"unbalanced<(int)4", levelShort, "unbalanced<(int)4"},
		{"a) b (c", levelShort, "a) b (c"},
		{"bool operator<(int)", levelShort, "bool operator<(int)"},
		{"my_operator_kernel<4>(int)", levelShort, "my_operator_kernel"},
		{"", levelShort, ""},
	} {
		if got := shortName(c.name, c.level); got != c.want {
			t.Errorf("shortName(%q, %d): got %q, want %q", c.name, c.level, got, c.want)
		}
	}
}

// TestShortNameLong: a name at the model's cap (64 KiB) is shortened in
// linear time; deeply nested brackets neither panic nor recurse.
func TestShortNameLong(t *testing.T) {
	deep := "void k<" + strings.Repeat("a<", 20000) + "int" + strings.Repeat(">", 20000) + ">(int)"
	if got := ShortName(deep); got != "k" {
		t.Errorf("ShortName(deeply nested): got %q, want k", got)
	}
	if got := shortName(deep, 3); got != "k<a<a<a>>>" {
		t.Errorf("shortName(deeply nested, 3): got %q, want k<a<a<a>>>", got)
	}
	wide := "void k<" + strings.Repeat("int, ", 10000) + "int>(int)"
	if got := ShortName(wide); got != "k" {
		t.Errorf("ShortName(wide): got %q, want k", got)
	}
}
