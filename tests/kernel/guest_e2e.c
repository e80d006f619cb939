/* SPDX-License-Identifier: MIT */
/*
 * guest_e2e.c - end to end in the QEMU guest: a plain HIP host program run
 * on the simulated runtime under LD_PRELOAD=libhipsvm.so, with
 * HIPSVM_HOOK=/sys/kernel/debug/hipsvm/hook, so that the shim's unmap path
 * goes through the real debugfs file of hipsvm.ko.
 *
 * It allocates managed memory, munmaps a page in the middle of it, frees it,
 * then reads the module's log through its own open of the hook (the same
 * process, so the same state) and checks, for the unmapped page: a "range"
 * event naming it, then set, drain and clear in that order, and that the
 * drain saw the range already unmapped from the CPU (docs/design.md: set,
 * unmap, drain, clear).
 *
 * To have a fault in flight when the shim sets the checkpoint (a set on
 * empty rings records nothing, and the shim then has nothing to clear), GPU
 * 0's handler is paused and a retry fault on the page is injected first; a
 * thread resumes the handler while the shim's drain waits. That fault was
 * raised on the mapping being torn down: the log must show it dropped.
 *
 * The hook file is opened first and kept open, so that the process's state
 * in the module outlives any close by the shim.
 */
#include <hip/hip_runtime_api.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"

static struct kt_event ev[64];

/* Resumes the paused handler while the shim's drain (1 s timeout) waits. */
static void *resume_later(void *arg)
{
	struct timespec t = { 0, 200 * 1000 * 1000 };

	(void)arg;
	nanosleep(&t, NULL);
	kt_pause(0);
	return NULL;
}

/* The shim's own report (public API, found at run time: this program is
 * not linked with the shim) asks the module "stats <gpus>" for each GPU's
 * filter counters: GPU 0's entry must count the dropped fault. */
static void report_shows_drop(void)
{
	typedef int (*report_fn)(char *, size_t);
	report_fn rep = (report_fn)dlsym(RTLD_DEFAULT, "hipsvm_report_json");
	static char json[1 << 16];
	const char *d0, *f, *dr;

	if (!kt_check(rep && rep(json, sizeof(json)) > 0, "the shim's report"))
		return;
	d0 = strstr(json, "{\"index\":0,");
	f = d0 ? strstr(d0, "\"faults\":") : NULL;
	dr = f ? strstr(f, "\"dropped\":") : NULL;
	kt_check(dr && strtoull(dr + 10, NULL, 10) >= 1,
		 "the report counts GPU 0's dropped fault (the module's stats 0-3)");
}

int main(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = NULL;
	char *hole;
	hipError_t e;
	int fd = kt_open(), n, i, range = -1, set = -1, drain = -1, clear = -1, unmapped = 0;
	uint64_t hole_addr, stale_ts;
	struct hipsvm_reply r;
	pthread_t resumer;
	const char *outcome;

	e = hipMallocManaged(&p, 4 * pg, hipMemAttachGlobal);
	if (!kt_check(e == hipSuccess && p, "hipMallocManaged of 4 pages: %d", (int)e))
		return kt_done();
	memset(p, 0x5a, 4 * pg);
	hole = (char *)p + 2 * pg;
	hole_addr = (uint64_t)(uintptr_t)hole;
	kt_pause(1);
	kt_reqf(fd, &r, "inject 0 now 0x%llx w", (unsigned long long)hole_addr);
	stale_ts = kt_num(&r, "0", UINT64_MAX);
	kt_check(r.status == 0 && stale_ts != UINT64_MAX, "a fault in flight on GPU 0 (ts 0x%llx)",
		 (unsigned long long)stale_ts);
	pthread_create(&resumer, NULL, resume_later, NULL);
	kt_check(munmap(hole, pg) == 0, "munmap of page 2 at %p", (void *)hole);
	pthread_join(resumer, NULL);
	e = hipFree(p);
	kt_check(e == hipSuccess, "hipFree: %d", (int)e);

	n = kt_log(fd, ev, 64);
	kt_check(n > 0, "the module's log has %d events", n);
	for (i = 0; i < n; i++)
		kt_note("log %llu:%s:%u:%s", (unsigned long long)ev[i].seq, ev[i].op, ev[i].gpu,
			ev[i].x);
	/* The first range event for the hole, then the events after it. */
	for (i = 0; i < n && range < 0; i++)
		if (!strcmp(ev[i].op, "range") && strtoull(ev[i].x, NULL, 16) == hole_addr)
			range = i;
	kt_check(range >= 0, "a set named the range 0x%llx", (unsigned long long)hole_addr);
	for (i = range + 1; range >= 0 && i < n; i++) {
		if (!strcmp(ev[i].op, "range"))
			break;		/* the next unmap */
		if (!strcmp(ev[i].op, "set") && set < 0)
			set = i;
		if (!strcmp(ev[i].op, "drain")) {
			if (drain < 0)
				drain = i;
			unmapped += !strcmp(ev[i].x, "unmapped");
		}
		if (!strcmp(ev[i].op, "clear") && clear < 0)
			clear = i;
	}
	kt_check(set > range, "set after the range event");
	kt_check(drain > set && set >= 0, "drain after set");
	kt_check(clear > drain && drain >= 0, "clear after drain");
	kt_check(unmapped > 0, "the drain saw the range unmapped (%d GPU(s))", unmapped);
	outcome = kt_fault_outcome(ev, n, 0, stale_ts);
	kt_check(outcome && !strcmp(outcome, "dropped"),
		 "the fault raised before the unmap was dropped (got %s)", outcome ? outcome : "nothing");
	report_shows_drop();
	close(fd);
	return kt_done();
}
