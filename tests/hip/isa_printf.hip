// SPDX-License-Identifier: MIT
// isa_printf.hip - device printf through hostcall: every conversion (d i u o
// x X c s p e E f F g G a A %%), flags, width, precision, '*' arguments and
// length modifiers, a string from device memory, printf's return value, and
// hip-basic/hello_world's line, from several lanes of two blocks. The
// program's stdout goes to a file for the run; the text must equal what the
// host's snprintf makes of the same formats and arguments, as a set of lines
// (blocks run in no defined order; within one, lanes print in lane order,
// which is checked too). Built at -O0 and at -O3 (tests/hip/meson.build).
// Exit 0 right, 2 wrong, 1 a HIP or file error.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define BLOCKS 2

// the same formats on both sides
#define F1 "int %d %i %5d|%-5d|%+d %05d %hhd %hd %ld %lld\n"
#define F2 "uns %u %o %x %X %#x %#o %lu %llx %zu %c%c\n"
#define F3 "flt %f %.3f %10.4f|%-10.2e|%E %g %G %F %a %A\n"
#define F4 "str [%s] [%10s] [%-6.3s] [%.*s] [%*d] %p %%\n"

__global__ void k_printf(const char *dstr, int *ret)
{
	int t = (int)threadIdx.x, b = (int)blockIdx.x, i = b * THREADS + t;
	double x = 1.0 / (i + 3);

	if (t == 0)
		printf("Hello world from block %d\n", b);
	ret[4 * i + 0] = printf(F1, i, -i, i * 7, i, i, i, (signed char)(i - 100), (short)(i * 1000),
				(long)i * 100000000L, -12345678901234ll * (i + 1));
	ret[4 * i + 1] = printf(F2, (unsigned)i * 3000000000u, i * 8 + 7, 0xbeef + i, 0xcafe + i, i + 1,
				i + 9, (unsigned long)i << 40, 0x123456789abcull * (i + 1), (size_t)i * 3,
				'a' + i, 'Z' - i);
	ret[4 * i + 2] = printf(F3, x, x * 1000, -x, x * 1e10, x * -1e-10, x, 1e20 * x, 2.5 + i, x,
				-x);
	ret[4 * i + 3] = printf(F4, dstr, dstr, dstr + i, i, dstr, i + 2, i, (void *)dstr);
}

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			fprintf(stderr, "%s: %s\n", #x, hipGetErrorName(e_));      \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static char want[1 << 16];

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits text into its lines (in place) and sorts them; the count. */
static size_t sorted_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;

	for (char *p = text; *p && n < max;) {
		char *nl = strchr(p, '\n');

		lines[n++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	qsort(lines, n, sizeof(*lines), by_text);
	return n;
}

/* Block b's lines in got must come in lane order: each of its "int"
 * lines names its thread's number right after the word. */
static bool lanes_in_order(const char *got)
{
	int last = -1;

	for (const char *p = strstr(got, "int "); p; p = strstr(p + 1, "\nint ")) {
		int i = atoi(p[0] == '\n' ? p + 5 : p + 4);

		if (i % THREADS != 0 && i != last + 1)
			return false;
		last = i;
	}
	return true;
}
static size_t wlen;
static int wret[4 * THREADS * BLOCKS + 1];	/* the last: the hello lines' */

#define ADD(slot, ...)                                                              \
	do {                                                                        \
		int n_ = snprintf(want + wlen, sizeof(want) - wlen, __VA_ARGS__);   \
		wret[slot] = n_;                                                    \
		wlen += (size_t)n_;                                                 \
	} while (0)

int main(void)
{
	static const char str[] = "device string";
	char tmpl[] = "/tmp/hipsvm-printf-XXXXXX", got[sizeof(want)];
	int ret[4 * THREADS * BLOCKS], fd, saved, bad = 0;
	char *dstr;
	int *dret;
	ssize_t n;
	FILE *f;

	CHECK(hipMalloc(&dstr, sizeof(str)));
	CHECK(hipMalloc(&dret, sizeof(ret)));
	CHECK(hipMemcpy(dstr, str, sizeof(str), hipMemcpyHostToDevice));
	fd = mkstemp(tmpl);
	if (fd < 0)
		return 1;
	unlink(tmpl);
	fflush(stdout);
	saved = dup(1);
	if (saved < 0 || dup2(fd, 1) < 0)
		return 1;
	hipLaunchKernelGGL(k_printf, dim3(BLOCKS), dim3(THREADS), 0, 0, dstr, dret);
	if (hipDeviceSynchronize() != hipSuccess)
		bad++;
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CHECK(hipMemcpy(ret, dret, sizeof(ret), hipMemcpyDeviceToHost));
	// the CPU reference: blocks in order; in a block each printf for all lanes
	for (int b = 0; b < BLOCKS; b++) {
		ADD(4 * THREADS * BLOCKS, "Hello world from block %d\n", b);
		for (int t = 0; t < THREADS; t++) {
			int i = b * THREADS + t;

			ADD(4 * i + 0, F1, i, -i, i * 7, i, i, i, (signed char)(i - 100), (short)(i * 1000),
			    (long)i * 100000000L, -12345678901234ll * (i + 1));
		}
		for (int t = 0; t < THREADS; t++) {
			int i = b * THREADS + t;

			ADD(4 * i + 1, F2, (unsigned)i * 3000000000u, i * 8 + 7, 0xbeef + i, 0xcafe + i, i + 1,
			    i + 9, (unsigned long)i << 40, 0x123456789abcull * (i + 1), (size_t)i * 3,
			    'a' + i, 'Z' - i);
		}
		for (int t = 0; t < THREADS; t++) {
			int i = b * THREADS + t;
			double x = 1.0 / (i + 3);

			ADD(4 * i + 2, F3, x, x * 1000, -x, x * 1e10, x * -1e-10, x, 1e20 * x, 2.5 + i, x, -x);
		}
		for (int t = 0; t < THREADS; t++) {
			int i = b * THREADS + t;

			ADD(4 * i + 3, F4, str, str, str + i, i, str, i + 2, i, (void *)dstr);
		}
	}
	lseek(fd, 0, SEEK_SET);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	got[n < 0 ? 0 : n] = 0;
	if (!lanes_in_order(got)) {
		printf("lanes printed out of order:\n%s\n", got);
		bad++;
	}
	{
		static char *gl[1024], *wl[1024], gcopy[sizeof(want)], wcopy[sizeof(want)];
		size_t ng, nw;

		memcpy(gcopy, got, sizeof(gcopy));
		memcpy(wcopy, want, sizeof(wcopy));
		ng = sorted_lines(gcopy, gl, 1024);
		nw = sorted_lines(wcopy, wl, 1024);
		for (size_t i = 0; i < ng || i < nw; i++) {
			if (i >= ng || i >= nw || strcmp(gl[i], wl[i])) {
				printf("device printf gave:\n%s\nwanted:\n%s\n", got, want);
				bad++;
				break;
			}
		}
		if ((size_t)n != wlen)
			bad++;
	}
	for (int i = 0; i < 4 * THREADS * BLOCKS; i++)
		if (ret[i] != wret[i]) {
			printf("printf %d returned %d, want %d\n", i, ret[i], wret[i]);
			bad++;
		}
	f = stdout;
	fprintf(f, "%s (%zu bytes of device printf)\n", bad ? "FAILED" : "ok", wlen);
	return bad ? 2 : 0;
}
