// SPDX-License-Identifier: MIT
// isa_hiprtc.hip - runtime compilation end to end: a source with a user
// header, an extern "C" kernel and a template kernel named by a name
// expression, compiled by hiprtc, loaded with hipModuleLoadData and launched;
// results against the CPU. Also: a source that does not compile answers
// HIPRTC_ERROR_COMPILATION with the compiler's message in the log, and a
// lowered name is not there before compilation. Exit 0 right, 2 wrong.
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

static const char header[] = "#define SCALE 3\n";
static const char source[] =
	"#include \"scale.h\"\n"
	"extern \"C\" __global__ void axpy(float a, const float *x, float *y, unsigned n)\n"
	"{\n"
	"	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		y[i] = a * x[i] + y[i];\n"
	"}\n"
	"template <typename T> __global__ void triple(T *v, unsigned n)\n"
	"{\n"
	"	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		v[i] = v[i] * SCALE + (T)i;\n"
	"}\n";

#define HIP(x)                                                                     \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)
#define RTC(x, want)                                                               \
	do {                                                                       \
		hiprtcResult r_ = (x);                                             \
		if (r_ != (want)) {                                                \
			printf("%s: %s\n", #x, hiprtcGetErrorString(r_));          \
			return 2;                                                  \
		}                                                                  \
	} while (0)

static int compile_error(void)
{
	hiprtcProgram p;
	size_t n = 0;
	char *log;

	RTC(hiprtcCreateProgram(&p, "__global__ void k() { undeclared_thing(); }", "bad.cu", 0,
				NULL, NULL), HIPRTC_SUCCESS);
	RTC(hiprtcCompileProgram(p, 0, NULL), HIPRTC_ERROR_COMPILATION);
	RTC(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
	log = (char *)calloc(1, n + 1);
	RTC(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
	if (!strstr(log, "undeclared_thing")) {
		printf("log does not name the error: %s\n", log);
		return 2;
	}
	free(log);
	RTC(hiprtcGetCodeSize(p, &n), HIPRTC_SUCCESS);
	if (n)
		return 2;
	RTC(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
	return 0;
}

int main(void)
{
	const char *hdrs[] = { header }, *hdr_names[] = { "scale.h" };
	const char *opts[] = { "-O2" };
	hiprtcProgram p;
	const char *lowered = NULL;
	size_t code_size = 0, log_size = 0;
	char *code;
	hipModule_t m;
	hipFunction_t faxpy, ftriple;
	float x[N], y[N], *dx, *dy, a = 2.5f;
	int v[N], *dv, rc;
	unsigned n = N;

	RTC(hiprtcCreateProgram(&p, source, "axpy.cu", 1, hdrs, hdr_names), HIPRTC_SUCCESS);
	RTC(hiprtcAddNameExpression(p, "triple<int>"), HIPRTC_SUCCESS);
	RTC(hiprtcGetLoweredName(p, "triple<int>", &lowered), HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
	if (hiprtcCompileProgram(p, 1, opts) != HIPRTC_SUCCESS) {
		char *log;

		hiprtcGetProgramLogSize(p, &log_size);
		log = (char *)calloc(1, log_size + 1);
		hiprtcGetProgramLog(p, log);
		printf("compilation failed:\n%s\n", log);
		return 2;
	}
	RTC(hiprtcGetProgramLogSize(p, &log_size), HIPRTC_SUCCESS);
	RTC(hiprtcGetLoweredName(p, "triple<int>", &lowered), HIPRTC_SUCCESS);
	if (strcmp(lowered, "_Z6tripleIiEvPT_j")) {
		printf("lowered name %s\n", lowered);
		return 2;
	}
	RTC(hiprtcGetCodeSize(p, &code_size), HIPRTC_SUCCESS);
	code = (char *)malloc(code_size);
	RTC(hiprtcGetCode(p, code), HIPRTC_SUCCESS);
	HIP(hipModuleLoadData(&m, code));
	HIP(hipModuleGetFunction(&faxpy, m, "axpy"));
	HIP(hipModuleGetFunction(&ftriple, m, lowered));
	for (unsigned i = 0; i < N; i++) {
		x[i] = (float)i * 0.25f;
		y[i] = 1000.0f - (float)i;
		v[i] = (int)i - 500;
	}
	HIP(hipMalloc(&dx, sizeof(x)));
	HIP(hipMalloc(&dy, sizeof(y)));
	HIP(hipMalloc(&dv, sizeof(v)));
	HIP(hipMemcpy(dx, x, sizeof(x), hipMemcpyHostToDevice));
	HIP(hipMemcpy(dy, y, sizeof(y), hipMemcpyHostToDevice));
	HIP(hipMemcpy(dv, v, sizeof(v), hipMemcpyHostToDevice));
	{
		void *args[] = { &a, &dx, &dy, &n };
		void *targs[] = { &dv, &n };

		HIP(hipModuleLaunchKernel(faxpy, (N + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, NULL));
		HIP(hipModuleLaunchKernel(ftriple, (N + 127) / 128, 1, 1, 128, 1, 1, 0, 0, targs,
					  NULL));
	}
	HIP(hipMemcpy(y, dy, sizeof(y), hipMemcpyDeviceToHost));
	HIP(hipMemcpy(v, dv, sizeof(v), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++) {
		if (y[i] != a * ((float)i * 0.25f) + (1000.0f - (float)i) ||
		    v[i] != ((int)i - 500) * 3 + (int)i) {
			printf("wrong at %u: %g %d\n", i, y[i], v[i]);
			return 2;
		}
	}
	HIP(hipModuleUnload(m));
	RTC(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
	free(code);
	rc = compile_error();
	if (!rc)
		printf("ok (code object %zu bytes, log %zu bytes)\n", code_size, log_size);
	return rc;
}
