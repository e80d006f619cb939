// isa_module: kernels of a code object loaded with hipModuleLoad run on the
// simulator's interpreter: hipModuleLaunchKernel with kernelParams (grid in
// blocks), and hipExtModuleLaunchKernel with a packed `extra` buffer and a
// grid in work-items that is not a multiple of the block (partial workgroups).
// Usage: isa_module CODE_OBJECT (isa_module_kernel.hip built with --genco).
// Exit 0 when the results match the CPU, 2 when not, 1 on an API failure.
#include <hip/hip_runtime.h>
#include <hip/hip_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%s\n", #call, hipGetErrorName(e_));       \
			exit(1);                                             \
		}                                                            \
	} while (0)

/* The CPU's version of the launch. In a partial workgroup blockDim is the
 * partial size (HIP's rule, read from the dispatch packet and the grid), so
 * blockIdx.x * blockDim.x + threadIdx.x there does not reach every x. */
static int check(const char *what, const float *out, const float *in, int w, int h, float s,
		 int bx, int by)
{
	static float want_a[64 * 64];
	float *want = want_a;

	memset(want_a, 0, sizeof(want_a));
	for (int gy = 0; gy * by < h; gy++)
		for (int gx = 0; gx * bx < w; gx++) {
			int sx = w - gx * bx < bx ? w - gx * bx : bx;
			int sy = h - gy * by < by ? h - gy * by : by;

			for (int ty = 0; ty < sy; ty++)
				for (int tx = 0; tx < sx; tx++) {
					int x = gx * sx + tx, y = gy * sy + ty;

					if (x < w && y < h)
						want[y * w + x] = in[y * w + x] * s + (float)x;
				}
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			if (out[y * w + x] != want[y * w + x]) {
				printf("FAIL %s at (%d,%d): %g, want %g\n", what, x, y, out[y * w + x],
				       want[y * w + x]);
				return 1;
			}
		}
	printf("ok %s\n", what);
	return 0;
}

int main(int argc, char **argv)
{
	const int w = 37, h = 29, n = w * h;
	float in[n], out[n], *din, *dout, s = 1.5f;
	hipModule_t mod;
	hipFunction_t f;
	int bad = 0;

	if (argc < 2) {
		printf("usage: isa_module CODE_OBJECT\n");
		return 1;
	}
	for (int i = 0; i < n; i++)
		in[i] = (float)(i % 97) - 40.0f;
	CHECK(hipModuleLoad(&mod, argv[1]));
	CHECK(hipModuleGetFunction(&f, mod, "scale2d"));
	CHECK(hipMalloc((void **)&din, sizeof(in)));
	CHECK(hipMalloc((void **)&dout, sizeof(out)));
	CHECK(hipMemcpy(din, in, sizeof(in), hipMemcpyHostToDevice));

	int wi = w, hi = h;
	void *params[] = { &dout, &din, &s, &wi, &hi };
	CHECK(hipMemset(dout, 0, sizeof(out)));
	CHECK(hipModuleLaunchKernel(f, (w + 15) / 16, (h + 7) / 8, 1, 16, 8, 1, 0, NULL, params, NULL));
	CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
	/* whole workgroups: blocks of 16 x 8 cover 48 x 32 */
	bad |= check("hipModuleLaunchKernel", out, in, w, h, s, 1 << 30, 1 << 30);

	struct __attribute__((packed)) {
		float *o;
		const float *i;
		float s;
		int w, h;
	} args = { dout, din, 0.25f, w, h };
	size_t size = sizeof(args);
	void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  HIP_LAUNCH_PARAM_END };
	CHECK(hipMemset(dout, 0, sizeof(out)));
	CHECK(hipExtModuleLaunchKernel(f, w, h, 1, 16, 8, 1, 0, NULL, NULL, extra));
	CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
	bad |= check("hipExtModuleLaunchKernel, partial workgroups", out, in, w, h, 0.25f, 16, 8);

	CHECK(hipFree(din));
	CHECK(hipFree(dout));
	CHECK(hipModuleUnload(mod));
	return bad ? 2 : 0;
}
