/* SPDX-License-Identifier: MIT */
/*
 * early.c - a preloaded library whose constructor uses the hooks before the
 * shim's own constructor may have run (LD_PRELOAD="libhipsvm.so libearly.so":
 * constructors of later preloads run first). Its malloc stand-in unmaps
 * through the PLT on every free, as other allocators do, so that dlsym's
 * allocations during the shim's start-up re-enter the shim's munmap.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((constructor)) static void early_ctor(void)
{
	int (*hm)(void **, size_t) = (int (*)(void **, size_t))dlsym(RTLD_DEFAULT, "hipMalloc");
	int (*hf)(void *) = (int (*)(void *))dlsym(RTLD_DEFAULT, "hipFree");
	void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char msg[64];
	void *p = NULL;
	int n;

	n = snprintf(msg, sizeof(msg), "early munmap %d\n", munmap(page, 4096));
	if (write(1, msg, (size_t)n) < 0)
		return;
	if (hm && hf) {
		int rc = hm(&p, 1 << 20);

		n = snprintf(msg, sizeof(msg), "early hipMalloc %d hipFree %d\n", rc,
			     rc ? -1 : hf(p));
		if (write(1, msg, (size_t)n) < 0)
			return;
	}
}
