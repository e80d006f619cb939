/* SPDX-License-Identifier: MIT */
/*
 * conf_fpatomic.c - gfx90a's float atomics (global_atomic_add_f64, _max_f64,
 * _min_f64, _add_f32) by the memory they reach, with a real kernel
 * (conf_kernels.hip's fp_atomics). An MI200 reaches fine-grained host
 * memory uncached, over PCIe, which carries no float atomics: there they do
 * nothing and return 0, as ROCm 5.2.3's own hip-tests expect of coherent
 * hipHostMalloc memory (AtomicAddTester.hh, BuiltIns_fadd.cc,
 * BuiltIns_fmax.cc); integer atomics work everywhere. Non-coherent host
 * memory (cached in the GPU's L2) and device memory take them.
 */
#include "conf.h"

static hipModule_t mod;
static hipFunction_t f_fp;
static double *out;

static void setup(void)
{
	const char *path = getenv("CONF_KERNELS");

	cr_assert(path, "CONF_KERNELS names the code object (meson sets it)");
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipModuleLoad(&mod, path));
	ASSERT_OK(hipModuleGetFunction(&f_fp, mod, "fp_atomics"));
	ASSERT_OK(hipMalloc((void **)&out, 5 * sizeof(double)));
}

static void teardown(void)
{
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipFree(out));
	ASSERT_OK(hipModuleUnload(mod));
}

TestSuite(conf_fpatomic, .init = setup, .fini = teardown);

struct vals {
	double d[3];
	float f;
	int i;
};

/* The kernel on v (d = 5, 7, 5; f = 5; i = 5), one work-item; got: what
 * each atomic returned. */
static void run(struct vals *v, double got[5])
{
	double *d = v->d;
	float *f = &v->f;
	int *i = &v->i;
	void *params[] = { &d, &f, &i, &out };

	*v = (struct vals){ { 5, 7, 5 }, 5, 5 };
	ASSERT_OK(hipModuleLaunchKernel(f_fp, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
	ASSERT_OK(hipMemcpy(got, out, 5 * sizeof(double), hipMemcpyDeviceToHost));
}

static void expect_taken(const struct vals *v, const double got[5], const char *what)
{
	cr_expect(v->d[0] == 15 && v->d[1] == 10 && v->d[2] == -10 && v->f == 15,
		  "%s: d = %g %g %g, f = %g; want 15 10 -10, 15", what, v->d[0], v->d[1], v->d[2],
		  (double)v->f);
	cr_expect(got[0] == 5 && got[1] == 7 && got[2] == 5 && got[3] == 5,
		  "%s: returned %g %g %g %g, want the old values 5 7 5 5", what, got[0], got[1],
		  got[2], got[3]);
	cr_expect(v->i == 6 && got[4] == 5, "%s: the integer atomic: %d, returned %g", what,
		  v->i, got[4]);
}

static void expect_dropped(const struct vals *v, const double got[5], const char *what)
{
	cr_expect(v->d[0] == 5 && v->d[1] == 7 && v->d[2] == 5 && v->f == 5,
		  "%s: d = %g %g %g, f = %g; want them untouched (5 7 5, 5)", what, v->d[0],
		  v->d[1], v->d[2], (double)v->f);
	cr_expect(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0,
		  "%s: returned %g %g %g %g, want 0", what, got[0], got[1], got[2], got[3]);
	cr_expect(v->i == 6 && got[4] == 5, "%s: the integer atomic: %d, returned %g", what,
		  v->i, got[4]);
}

Test(conf_fpatomic, coherent_host_memory_drops_float_atomics)
{
	static const unsigned flags[] = { hipHostMallocCoherent, hipHostMallocDefault,
					  hipHostMallocMapped };
	struct vals *v;
	double got[5];

	for (unsigned k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		ASSERT_OK(hipHostMalloc((void **)&v, sizeof(*v), flags[k]));
		run(v, got);
		expect_dropped(v, got, k == 0 ? "coherent" : k == 1 ? "default" : "mapped");
		ASSERT_OK(hipHostFree(v));
	}
}

Test(conf_fpatomic, registered_memory_drops_float_atomics)
{
	struct vals *v = aligned_alloc(4096, 4096), *dv;
	double got[5];

	cr_assert(v);
	ASSERT_OK(hipHostRegister(v, 4096, 0));
	ASSERT_OK(hipHostGetDevicePointer((void **)&dv, v, 0));
	cr_assert_eq(dv, v);
	run(v, got);
	expect_dropped(v, got, "registered");
	ASSERT_OK(hipHostUnregister(v));
	free(v);
}

Test(conf_fpatomic, noncoherent_host_and_device_memory_take_them)
{
	struct vals *v, *dv, host;
	double got[5];

	ASSERT_OK(hipHostMalloc((void **)&v, sizeof(*v), hipHostMallocNonCoherent));
	run(v, got);
	expect_taken(v, got, "non-coherent");
	ASSERT_OK(hipHostFree(v));

	ASSERT_OK(hipMallocManaged((void **)&v, sizeof(*v), hipMemAttachGlobal));
	run(v, got);
	ASSERT_OK(hipDeviceSynchronize());
	expect_taken(v, got, "managed");
	ASSERT_OK(hipFree(v));

	ASSERT_OK(hipMalloc((void **)&dv, sizeof(*dv)));
	host = (struct vals){ { 5, 7, 5 }, 5, 5 };
	ASSERT_OK(hipMemcpy(dv, &host, sizeof(host), hipMemcpyHostToDevice));
	{
		double *d = dv->d;
		float *f = &dv->f;
		int *i = &dv->i;
		void *params[] = { &d, &f, &i, &out };

		ASSERT_OK(hipModuleLaunchKernel(f_fp, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
	}
	ASSERT_OK(hipMemcpy(got, out, sizeof(got), hipMemcpyDeviceToHost));
	ASSERT_OK(hipMemcpy(&host, dv, sizeof(host), hipMemcpyDeviceToHost));
	expect_taken(&host, got, "device");
	ASSERT_OK(hipFree(dv));
}
