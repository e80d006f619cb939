/* SPDX-License-Identifier: MIT */
/*
 * linked.c - a program linked with -lhipsvm (before the runtime) instead of
 * preloading it: the same interception, and the public API (hipsvm.h).
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "hipsvm.h"

static char buf[256 * 1024];

int main(void)
{
	void *p = NULL, *m = NULL;
	int len;

	printf("active %d version %s\n", hipsvm_active(), hipsvm_version());
	printf("hipMalloc %d\n", (int)hipMalloc(&p, 1 << 20));
	printf("hipMallocManaged %d\n", (int)hipMallocManaged(&m, 4 << 20, hipMemAttachGlobal));
	printf("munmap %d\n", munmap((char *)m + (1 << 20), 1 << 20));
	len = hipsvm_report_json(buf, sizeof(buf));
	printf("report_json %d\n", len > 0);
	printf("small buffer %d\n", hipsvm_report_json(buf, 16));
	len = hipsvm_report_json(buf, sizeof(buf));
	fputs(buf, stdout);
	printf("report_write %d\n", hipsvm_report_write("linked.%p.json"));
	printf("report_write(bad) %d\n", hipsvm_report_write("/nonexistent/dir/r.json"));
	printf("hipFree %d\n", (int)hipFree(p));
	printf("hipFree %d\n", (int)hipFree(m));
	return 0;
}
