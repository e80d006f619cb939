// SPDX-License-Identifier: MIT
// isa_modglobals.hip CODEOBJ - hipModuleLoad of isa_modglobals_kernel.co,
// hipModuleGetGlobal of its variables (their address in the module's image:
// the initial values are the code object's), a write through that address
// that the kernel sees, and the result against the CPU. Exit 0 right, 2 wrong.
#include <hip/hip_runtime.h>
#include <stdio.h>

#define N 300

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static int poly(const int c[4], int off, unsigned i)
{
	int x = (int)i + off;

	return c[0] + x * (c[1] + x * (c[2] + x * c[3]));
}

int main(int argc, char **argv)
{
	hipModule_t m;
	hipFunction_t f;
	hipDeviceptr_t coef, off, none;
	size_t coef_size, off_size, none_size;
	int c[4], out[N], *dout;
	int o, bad = 0;
	unsigned n = N;
	void *args[] = { &dout, &n };

	if (argc < 2)
		return 1;
	CHECK(hipModuleLoad(&m, argv[1]));
	CHECK(hipModuleGetFunction(&f, m, "k_poly"));
	CHECK(hipModuleGetGlobal(&coef, &coef_size, m, "coef"));
	CHECK(hipModuleGetGlobal(&off, &off_size, m, "offset"));
	if (hipModuleGetGlobal(&none, &none_size, m, "no_such_variable") != hipErrorNotFound)
		bad++;
	if (coef_size != sizeof(c) || off_size != sizeof(o))
		bad++;
	CHECK(hipMemcpyDtoH(c, coef, sizeof(c)));
	CHECK(hipMemcpyDtoH(&o, off, sizeof(o)));
	if (c[0] != 1 || c[1] != 2 || c[2] != 5 || c[3] != -1 || o != 3)
		bad++;
	o = -40;
	CHECK(hipMemcpyHtoD(off, &o, sizeof(o)));
	CHECK(hipMalloc(&dout, sizeof(out)));
	CHECK(hipModuleLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, 0, args, NULL));
	CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++)
		if (out[i] != poly(c, o, i)) {
			printf("out[%u] = %d, want %d\n", i, out[i], poly(c, o, i));
			bad++;
			break;
		}
	CHECK(hipFree(dout));
	CHECK(hipModuleUnload(m));
	printf("%s\n", bad ? "FAILED" : "ok");
	return bad ? 2 : 0;
}
