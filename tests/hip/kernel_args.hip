// kernel_args: kernels with every argument kind the code object metadata test
// (tests/sim/test_codeobj.c) checks. Launching them is incidental.
#include <hip/hip_runtime.h>
#include <stdio.h>

struct Params { int n; float scale; double bias; };	/* 16 bytes, align 8 */
namespace ka {
struct Vec { float x, y, z; };				/* 12 bytes, align 4 */
__global__ void k_ns(const Vec *v, Vec *w, Vec val) { w[0] = v[0]; w[1] = val; }
}

extern "C" __global__ void k_plain_c(int *out, int n) { out[0] = n; }
__global__ void k_mixed(float *out, const float *in, int n, float s, Params p)
{
	out[0] = in[0] * s + p.bias + n;
}
__global__ void k_restrict(float *__restrict__ out, const float *__restrict__ in, int n)
{
	out[n] = in[n];
}
__global__ void k_two_const(const float *a, const float *b, float *c, char tag, double d)
{
	c[0] = a[0] + b[0] + tag + d;
}
__global__ void k_const_ptr(float *const p, const int *const q) { p[0] = q[0]; }
__global__ void k_hidden(int *out) { printf("x %d\n", out[0]); out[1] = gridDim.x; }
__global__ void k_noargs() {}
template <typename T> __global__ void k_tmpl(T *out, const T *in, T v) { out[0] = in[0] + v; }

int main(void)
{
	int *i = nullptr;
	float *f = nullptr;
	ka::Vec *v = nullptr;

	hipLaunchKernelGGL(k_plain_c, dim3(1), dim3(1), 0, 0, i, 1);
	hipLaunchKernelGGL(k_mixed, dim3(1), dim3(1), 0, 0, f, f, 1, 2.0f, Params{1, 2.0f, 3.0});
	hipLaunchKernelGGL(k_restrict, dim3(1), dim3(1), 0, 0, f, f, 0);
	hipLaunchKernelGGL(k_two_const, dim3(1), dim3(1), 0, 0, f, f, f, 'x', 1.0);
	hipLaunchKernelGGL(k_const_ptr, dim3(1), dim3(1), 0, 0, f, i);
	hipLaunchKernelGGL(k_hidden, dim3(1), dim3(1), 0, 0, i);
	hipLaunchKernelGGL(k_noargs, dim3(1), dim3(1), 0, 0);
	hipLaunchKernelGGL(k_tmpl<float>, dim3(1), dim3(1), 0, 0, f, f, 1.0f);
	hipLaunchKernelGGL(k_tmpl<int>, dim3(1), dim3(1), 0, 0, i, i, 1);
	hipLaunchKernelGGL(ka::k_ns, dim3(1), dim3(1), 0, 0, v, v, ka::Vec{1, 2, 3});
	printf("launched=%d\n", (int)hipGetLastError());
	return 0;
}
