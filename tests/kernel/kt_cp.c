/* SPDX-License-Identifier: MIT */
/*
 * kt_cp.c - checkpoint semantics of hipsvm.ko on injected faults.
 *
 *   kt_cp        (module loaded with ngpus=4, clock_start=1)
 *       faults before, at and after the checkpoint; set on empty rings; clear
 *       with an expected value; the wrap with chosen timestamps; a fresh set
 *       over a checkpoint left for more than 2^47 ticks; a drain that
 *       completes while the handler is held back; a drain that times out after
 *       about 1 s when the handler is paused; a drain on a disabled ring.
 *   kt_cp wrap   (module loaded with clock_start=0xfffffffffff0)
 *       the same decisions with the GPU clock itself crossing 2^48.
 *   kt_cp cam    (retry_cam=1) and kt_cp apu (apu=1)
 *       retry faults on ih0 passed on to ih_soft: the checkpoint from
 *       ih_soft, the drain of ih0 and ih_soft (CAM) or none (APU: no ih1),
 *       a full ih_soft losing IVs.
 *
 * The handler is held back with the module's debug control "pause" so that
 * IVs stay in the ring: a checkpoint is only ever taken from a ring that is
 * not empty.
 */
#include "ktest.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TS_MASK 0xffffffffffffull

static struct hipsvm_reply r;
static struct kt_event ev[64];

static uint64_t inject(int fd, unsigned gpu, const char *ts, uint64_t addr)
{
	kt_reqf(fd, &r, "inject %u %s 0x%llx", gpu, ts, (unsigned long long)addr);
	if (r.status) {
		kt_note("inject %u %s failed: %d %s", gpu, ts, r.status, r.detail);
		return 0;
	}
	return r.ntok ? kt_num(&r, r.tok[0].key, 0) : 0;
}

static uint64_t inject_at(int fd, unsigned gpu, uint64_t ts)
{
	char t[32];

	snprintf(t, sizeof(t), "0x%llx", (unsigned long long)ts);
	return inject(fd, gpu, t, 0x7e0000000000ull + (ts & 0xfffff) * 4096);
}

static uint64_t cp_of(int fd, unsigned gpu)
{
	char key[8];

	snprintf(key, sizeof(key), "cp%u", gpu);
	kt_reqp(fd, "stats", &r);
	return kt_num(&r, key, ~0ull);
}

static const char *set_one(int fd, unsigned gpu, uint64_t *ts)
{
	static char word[32];
	char key[8];

	snprintf(key, sizeof(key), "%u", gpu);
	kt_reqf(fd, &r, "set %u", gpu);
	snprintf(word, sizeof(word), "%s", r.status ? "error" : kt_word(&r, key));
	*ts = kt_num(&r, key, 0);
	return word;
}

static const char *drain_one(int fd, unsigned gpu, int ms)
{
	static char word[32];
	char key[8];

	snprintf(key, sizeof(key), "%u", gpu);
	if (ms >= 0)
		kt_reqf(fd, &r, "drain %u %d", gpu, ms);
	else
		kt_reqf(fd, &r, "drain %u", gpu);
	snprintf(word, sizeof(word), "%s", r.status ? "error" : kt_word(&r, key));
	return word;
}

static void expect(int n, unsigned gpu, uint64_t ts, const char *want, const char *what)
{
	const char *got = kt_fault_outcome(ev, n, gpu, ts);

	kt_check(got && !strcmp(got, want), "%s: fault 0x%llx %s (got %s)", what,
		 (unsigned long long)ts, want, got ? got : "nothing");
}

/* stats <gpu>: that GPU's filter counters (g<N>.faults_*), and no other
 * GPU's keys. */
static void gpu_counts(int fd, unsigned gpu, uint64_t *handled, uint64_t *dropped)
{
	char kh[32], kd[32], other[8];

	snprintf(kh, sizeof(kh), "g%u.faults_handled", gpu);
	snprintf(kd, sizeof(kd), "g%u.faults_dropped", gpu);
	snprintf(other, sizeof(other), "cp%u", (gpu + 1) % 4);
	kt_reqf(fd, &r, "stats %u", gpu);
	kt_check(r.status == 0 && hipsvm_reply_get(&r, kh) && !hipsvm_reply_get(&r, other),
		 "stats %u: that GPU's counters only", gpu);
	*handled = kt_num(&r, kh, 0);
	*dropped = kt_num(&r, kd, 0);
}

/* Faults before, at and after the checkpoint on one GPU. */
static void test_before_at_after(int fd, unsigned gpu, uint64_t base)
{
	uint64_t a, b, c, d, cp, h0, d0, h1, d1;
	int n;

	gpu_counts(fd, gpu, &h0, &d0);
	kt_pause(1ull << gpu);
	a = inject_at(fd, gpu, base);
	b = inject_at(fd, gpu, base + 0x100);
	c = inject_at(fd, gpu, base + 0x200);
	set_one(fd, gpu, &cp);
	kt_check(cp == c, "set takes the last IV of ih1: 0x%llx", (unsigned long long)cp);
	kt_check(cp_of(fd, gpu) == c, "stats shows the checkpoint");
	d = inject_at(fd, gpu, base + 0x300);
	kt_pause(0);
	kt_check(!strcmp(drain_one(fd, gpu, -1), "ok"), "drain: ok");
	n = kt_log(fd, ev, 64);
	expect(n, gpu, a, "dropped", "before the checkpoint");
	expect(n, gpu, b, "dropped", "before the checkpoint");
	expect(n, gpu, c, "dropped", "at the checkpoint");
	expect(n, gpu, d, "handled", "after the checkpoint");
	kt_check(cp_of(fd, gpu) == 0, "the first newer fault cleared the checkpoint");
	gpu_counts(fd, gpu, &h1, &d1);
	kt_check(d1 - d0 == 3 && h1 - h0 == 1, "stats %u: 3 more dropped (%llu), 1 more handled (%llu)",
		 gpu, (unsigned long long)(d1 - d0), (unsigned long long)(h1 - h0));
}

static void test_set_empty_and_clear(int fd, unsigned gpu, uint64_t base)
{
	uint64_t cp, a;

	kt_check(!strcmp(set_one(fd, gpu, &cp), "none"), "set on empty rings: none");
	kt_check(cp_of(fd, gpu) == 0, "set on empty rings leaves the value unchanged");

	kt_pause(1ull << gpu);
	a = inject_at(fd, gpu, base);
	set_one(fd, gpu, &cp);
	kt_check(cp == a, "checkpoint 0x%llx", (unsigned long long)cp);
	kt_pause(0);
	kt_check(!strcmp(drain_one(fd, gpu, -1), "ok"), "drain: ok");
	kt_check(cp_of(fd, gpu) == a, "no newer fault: the checkpoint stays");
	kt_check(!strcmp(set_one(fd, gpu, &cp), "none") && cp_of(fd, gpu) == a,
		 "set on empty rings keeps the checkpoint in force");
	kt_reqf(fd, &r, "clear %u=0x%llx", gpu, (unsigned long long)(a - 1));
	kt_check(r.status == 0 && !strcmp(r.tok[0].val, "kept"), "clear with another value: kept");
	kt_reqf(fd, &r, "clear %u=0x%llx", gpu, (unsigned long long)a);
	kt_check(r.status == 0 && !strcmp(r.tok[0].val, "cleared"), "clear with its value: cleared");
	kt_check(cp_of(fd, gpu) == 0, "cleared");
	kt_reqf(fd, &r, "clear %u", gpu);
	kt_check(r.status == 0 && !strcmp(r.tok[0].val, "kept"), "clear again: kept (nothing to clear)");
}

/* A later set never lowers the checkpoint. */
static void test_set_moves_forward(int fd, unsigned gpu, uint64_t base)
{
	uint64_t cp, a, b;

	kt_pause(1ull << gpu);
	a = inject_at(fd, gpu, base);
	set_one(fd, gpu, &cp);
	b = inject_at(fd, gpu, base + 1);
	set_one(fd, gpu, &cp);
	kt_check(cp == b && cp_of(fd, gpu) == b, "a second set raises the checkpoint to 0x%llx",
		 (unsigned long long)b);
	kt_pause(0);
	drain_one(fd, gpu, -1);
	expect(kt_log(fd, ev, 64), gpu, a, "dropped", "under two checkpoints");
	kt_reqf(fd, &r, "clear %u", gpu);
}

static void *unpause_later(void *arg)
{
	(void)arg;
	usleep(200 * 1000);
	kt_pause(0);
	return NULL;
}

static void test_drain_waits(int fd, unsigned gpu, uint64_t base)
{
	char key[8];
	pthread_t t;
	uint64_t h0, last = 0;
	int i;

	snprintf(key, sizeof(key), "%u", gpu);
	kt_reqp(fd, "stats", &r);
	h0 = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
	kt_pause(1ull << gpu);
	for (i = 0; i < 40; i++)
		last = inject_at(fd, gpu, base + (uint64_t)i);
	pthread_create(&t, NULL, unpause_later, NULL);
	kt_check(!strcmp(drain_one(fd, gpu, 5000), "ok"), "drain while the handler is held back: ok");
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0) - h0 == 40,
		 "after the drain all 40 faults were processed (up to 0x%llx)",
		 (unsigned long long)last);
	pthread_join(t, NULL);
}

static void test_drain_timeout(int fd, unsigned gpu)
{
	double t0, dt;
	uint64_t timeouts;

	kt_reqp(fd, "stats", &r);
	timeouts = kt_num(&r, "drain_timeouts", 0);
	kt_pause(1ull << gpu);
	inject(fd, gpu, "now", 0x7e0000000000ull);
	t0 = kt_now();
	kt_check(!strcmp(drain_one(fd, gpu, -1), "timeout"), "paused handler: drain times out");
	dt = kt_now() - t0;
	kt_note("default drain timed out after %.3f s", dt);
	/* Bounds, not a timing assertion: the default is 1 s; QEMU without KVM
	 * can be slow, so only a gross error fails. */
	kt_check(dt >= 0.9 && dt < 10.0, "the default timeout is about 1 s (%.3f s)", dt);
	t0 = kt_now();
	kt_check(!strcmp(drain_one(fd, gpu, 200), "timeout"), "drain with 200 ms: timeout");
	dt = kt_now() - t0;
	kt_check(dt >= 0.18 && dt < 10.0, "200 ms timeout (%.3f s)", dt);
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "drain_timeouts", 0) == timeouts + 2, "timeouts are counted");
	kt_reqf(fd, &r, "ring %u ih1 off", gpu);
	t0 = kt_now();
	kt_check(!strcmp(drain_one(fd, gpu, -1), "nodev"), "disabled ring: nodev, at once");
	kt_check(kt_now() - t0 < 0.5, "nodev does not wait");
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "drain_nodev", 0) >= 1, "nodev is counted");
	kt_reqf(fd, &r, "ring %u ih1 on", gpu);
	kt_pause(0);
	kt_check(!strcmp(drain_one(fd, gpu, -1), "ok"), "resumed: drain ok");
}

static void test_all_gpus(int fd, uint64_t base)
{
	kt_pause(0x3);
	inject_at(fd, 0, base);
	inject_at(fd, 1, base + 1);
	kt_reqp(fd, "set all", &r);
	kt_check(r.status == 0 && kt_num(&r, "0", 0) == base && kt_num(&r, "1", 0) == base + 1 &&
		 !strcmp(kt_word(&r, "2"), "none"), "set all: per-GPU checkpoints from each ring");
	kt_pause(0);
	kt_reqp(fd, "drain all", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "0"), "ok") && !strcmp(kt_word(&r, "1"), "ok"),
		 "drain all: ok");
	kt_reqp(fd, "clear all", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "0"), "cleared") &&
		 !strcmp(kt_word(&r, "1"), "cleared") && !strcmp(kt_word(&r, "2"), "kept"),
		 "clear all: the two checkpoints cleared");
}

/* The last log event with op on gpu, or NULL. */
static const struct kt_event *last_event(int n, const char *op, unsigned gpu)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		if (!strcmp(ev[i].op, op) && ev[i].gpu == gpu)
			return &ev[i];
	return NULL;
}

/* set with a range: the drain logs whether the range was still mapped. */
static void test_range(int fd, unsigned gpu)
{
	const struct kt_event *e;
	size_t len = 2 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int n;

	if (!kt_check(p != MAP_FAILED, "mmap 2 pages"))
		return;
	kt_reqf(fd, &r, "set %u %p %zu", gpu, (void *)p, len);
	kt_reqf(fd, &r, "drain %u", gpu);
	n = kt_log(fd, ev, 64);
	e = last_event(n, "range", gpu);
	kt_check(e && strtoull(e->x, NULL, 16) == (uintptr_t)p, "range event names %p", (void *)p);
	e = last_event(n, "drain", gpu);
	kt_check(e && !strcmp(e->x, "mapped"), "drain before the unmap: mapped (%s)", e ? e->x : "-");
	kt_reqf(fd, &r, "set %u %p %zu", gpu, (void *)(p + 4096), (size_t)4096);
	munmap(p + 4096, 4096);
	kt_reqf(fd, &r, "drain %u", gpu);
	n = kt_log(fd, ev, 64);
	e = last_event(n, "drain", gpu);
	kt_check(e && !strcmp(e->x, "unmapped"), "drain after the unmap: unmapped (%s)",
		 e ? e->x : "-");
	kt_reqf(fd, &r, "clear %u", gpu);
	kt_reqf(fd, &r, "drain %u", gpu);
	n = kt_log(fd, ev, 64);
	e = last_event(n, "drain", gpu);
	kt_check(e && !strcmp(e->x, "ok"), "after clear the range is forgotten: ok (%s)",
		 e ? e->x : "-");
	munmap(p, 4096);
}

/* Polls the process's counters until n more faults were processed. */
static bool wait_processed(int fd, uint64_t before, uint64_t n)
{
	int i;

	for (i = 0; i < 500; i++) {
		kt_reqp(fd, "stats", &r);
		if (kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0) >= before + n)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* Chosen timestamps across 2^48 on a GPU whose clock is far away. A drain
 * cannot be trusted here: the processed timestamp left by earlier faults is
 * itself after these (the jump back by 2^48 is not something hardware does),
 * so the test waits for the counters instead. */
static void test_wrap_chosen(int fd, unsigned gpu)
{
	uint64_t a = TS_MASK - 0x20, b = TS_MASK, c = 0x10, cp, before;
	int n;

	kt_reqp(fd, "stats", &r);
	before = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
	kt_pause(1ull << gpu);
	inject_at(fd, gpu, a);
	inject_at(fd, gpu, b);
	set_one(fd, gpu, &cp);
	kt_check(cp == b, "checkpoint 2^48-1");
	inject_at(fd, gpu, c);
	kt_pause(0);
	kt_check(wait_processed(fd, before, 3), "the three faults were processed");
	n = kt_log(fd, ev, 64);
	expect(n, gpu, a, "dropped", "chosen ts before the wrap");
	expect(n, gpu, b, "dropped", "chosen ts at the checkpoint 2^48-1");
	expect(n, gpu, c, "handled", "chosen ts after the wrap");
	kt_check(cp_of(fd, gpu) == 0, "cleared by the fault after the wrap");
}

/* The checkpoint IV stamped 0 (the clock at the wrap) is a checkpoint like
 * any other: the checkpoint IV itself must be dropped.
 * src/shared/checkpoint.c keeps a valid bit above the 48 timestamp bits for this. */
static void test_checkpoint_at_zero(int fd, unsigned gpu)
{
	uint64_t cp, before;
	int n;

	kt_reqp(fd, "stats", &r);
	before = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
	kt_pause(1ull << gpu);
	inject_at(fd, gpu, TS_MASK - 1);
	inject_at(fd, gpu, 0);
	set_one(fd, gpu, &cp);
	inject_at(fd, gpu, 5);
	kt_pause(0);
	kt_check(wait_processed(fd, before, 3), "checkpoint IV at 0: three faults processed");
	n = kt_log(fd, ev, 64);
	expect(n, gpu, TS_MASK - 1, "dropped", "checkpoint IV at 0");
	expect(n, gpu, 5, "handled", "checkpoint IV at 0");
	kt_check(kt_fault_outcome(ev, n, gpu, 0) &&
		 !strcmp(kt_fault_outcome(ev, n, gpu, 0), "dropped"),
		 "the checkpoint IV stamped 0 is dropped (got %s)",
		 kt_fault_outcome(ev, n, gpu, 0) ? kt_fault_outcome(ev, n, gpu, 0) : "nothing");
	kt_reqf(fd, &r, "clear %u", gpu);
}

/* A checkpoint left uncleared for more than 2^47 ticks reads as newer than a
 * fresh one. Set overwrites (as upstream), so the fresh one takes effect:
 * the fault it was taken on is dropped and the next one is handled. With a
 * set that only moved forward, the old value stayed and the next fault, too,
 * read as "before" it and was dropped, again and again. */
static void test_set_after_half_the_clock(int fd, unsigned gpu)
{
	uint64_t old = 0x6000, fresh = old + (1ull << 47) + 0x10, cp, before;
	int n;

	kt_reqp(fd, "stats", &r);
	before = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
	kt_pause(1ull << gpu);
	inject_at(fd, gpu, old);
	set_one(fd, gpu, &cp);
	kt_check(cp == old, "checkpoint 0x%llx, left in place", (unsigned long long)old);
	kt_pause(0);
	kt_check(wait_processed(fd, before, 1), "its fault was processed");
	kt_check(cp_of(fd, gpu) == old, "no newer fault: the checkpoint stays");
	kt_pause(1ull << gpu);
	inject_at(fd, gpu, fresh);
	set_one(fd, gpu, &cp);
	kt_check(cp == fresh && cp_of(fd, gpu) == fresh,
		 "2^47+16 ticks later a fresh set is in force: 0x%llx (got 0x%llx)",
		 (unsigned long long)fresh, (unsigned long long)cp);
	inject_at(fd, gpu, fresh + 1);
	kt_pause(0);
	kt_check(wait_processed(fd, before, 3), "the two faults were processed");
	n = kt_log(fd, ev, 64);
	expect(n, gpu, fresh, "dropped", "at the fresh checkpoint");
	expect(n, gpu, fresh + 1, "handled", "after the fresh checkpoint");
	kt_check(cp_of(fd, gpu) == 0, "cleared by the newer fault");
}

/* Module loaded with clock_start=2^48-16: "now" crosses the wrap. */
static int run_wrap(int fd)
{
	uint64_t ts[20], cp;
	int i, n;

	kt_pause(0x1);
	for (i = 0; i < 16; i++)
		ts[i] = inject(fd, 0, "now", 0x7d0000000000ull + (uint64_t)i * 4096);
	kt_check(ts[0] == TS_MASK - 15 && ts[15] == TS_MASK,
		 "the clock starts at 2^48-16 (0x%llx .. 0x%llx)", (unsigned long long)ts[0],
		 (unsigned long long)ts[15]);
	set_one(fd, 0, &cp);
	kt_check(cp == TS_MASK, "checkpoint at 2^48-1");
	for (i = 16; i < 20; i++)
		ts[i] = inject(fd, 0, "now", 0x7d0000000000ull + (uint64_t)i * 4096);
	kt_check(ts[16] == 0 && ts[19] == 3, "the clock wrapped to 0");
	kt_pause(0);
	kt_check(!strcmp(drain_one(fd, 0, -1), "ok"), "drain across the wrap: ok");
	n = kt_log(fd, ev, 64);
	for (i = 0; i < 20; i++)
		if (!kt_fault_outcome(ev, n, 0, ts[i]) ||
		    strcmp(kt_fault_outcome(ev, n, 0, ts[i]), i < 16 ? "dropped" : "handled"))
			break;
	kt_check(i == 20, "16 faults up to 2^48-1 dropped, 4 after the wrap handled (first wrong: %d)",
		 i);
	kt_check(cp_of(fd, 0) == 0, "the fault stamped 0 cleared the checkpoint");

	/* A checkpoint taken after the wrap, with the drain's processed
	 * timestamp on the other side of 2^48 from it. */
	kt_pause(0x2);
	for (i = 0; i < 18; i++)
		ts[i] = inject(fd, 1, "now", 0x7d0000000000ull);
	set_one(fd, 1, &cp);
	kt_check(cp == 1, "GPU 1: checkpoint 0x1 after its clock wrapped");
	ts[18] = inject(fd, 1, "now", 0x7d0000000000ull);
	kt_pause(0);
	kt_check(!strcmp(drain_one(fd, 1, -1), "ok"), "GPU 1: drain ok");
	n = kt_log(fd, ev, 64);
	expect(n, 1, ts[0], "dropped", "2^48-16, before a checkpoint at 1");
	expect(n, 1, ts[16], "dropped", "0, before a checkpoint at 1");
	expect(n, 1, ts[17], "dropped", "at the checkpoint 1");
	expect(n, 1, ts[18], "handled", "2, after the checkpoint 1");
	return kt_done();
}

/* Until ih0 of the GPU has passed its IVs on to ih_soft (its interrupt
 * handler runs although the GPU is paused), at most a second. */
static void wait_ih0_empty(unsigned gpu)
{
	char k0[32];
	double end = kt_now() + 1.0;

	snprintf(k0, sizeof(k0), "gpu%u.ih0.pending", gpu);
	while (kt_now() < end && kt_module_stat(k0) != 0)
		usleep(1000);
}

static void wait_delegated(unsigned gpu, uint64_t soft_pending)
{
	char k0[32], ks[32];
	double end = kt_now() + 1.0;

	snprintf(k0, sizeof(k0), "gpu%u.ih0.pending", gpu);
	snprintf(ks, sizeof(ks), "gpu%u.soft.pending", gpu);
	while (kt_now() < end &&
	       (kt_module_stat(k0) != 0 || kt_module_stat(ks) != soft_pending))
		usleep(1000);
	kt_check(kt_module_stat(k0) == 0 && kt_module_stat(ks) == soft_pending,
		 "GPU %u: ih0 empty, %llu IVs in ih_soft", gpu, (unsigned long long)soft_pending);
}

/* Retry faults on ih0, passed on to ih_soft: with the retry CAM (module
 * parameter retry_cam=1) or on an APU (apu=1, no ih1). The
 * set takes the last IV of ih_soft; the drain waits on ih0 and ih_soft with
 * the CAM, and on ih1 otherwise, which an APU does not have. */
static int run_delegated(int fd, bool apu)
{
	const char *what = apu ? "APU" : "retry CAM";
	uint64_t a, b, c, d, cp, pending, lost;
	unsigned i;
	int n;

	kt_check(apu ? kt_module_stat("gpu0.ih1") == 0 : kt_module_stat("gpu0.retry_cam") == 1,
		 "%s mode", what);
	if (apu) {
		kt_reqp(fd, "ring 0 ih1 off", &r);
		kt_check(r.status == -ENODEV, "APU: no ih1 to switch off");
	}
	kt_pause(1);
	a = inject_at(fd, 0, 0x1000);
	b = inject_at(fd, 0, 0x1001);
	c = inject_at(fd, 0, 0x1002);
	wait_delegated(0, 3);
	set_one(fd, 0, &cp);
	kt_check(cp == c, "%s: set takes the last IV of ih_soft: 0x%llx", what,
		 (unsigned long long)cp);
	d = inject_at(fd, 0, 0x1003);
	wait_delegated(0, 4);
	kt_pause(0);
	if (apu) {
		kt_check(!strcmp(drain_one(fd, 0, -1), "nodev"),
			 "APU without the CAM: no ih1 to drain (nodev)");
		wait_delegated(0, 0);
	} else {
		kt_check(!strcmp(drain_one(fd, 0, -1), "ok"), "CAM: drain of ih0 and ih_soft: ok");
		kt_check(kt_module_stat("gpu0.soft.pending") == 0, "CAM: the drain waited for ih_soft");
	}
	n = kt_log(fd, ev, 64);
	expect(n, 0, a, "dropped", "before the checkpoint, via ih_soft");
	expect(n, 0, b, "dropped", "before the checkpoint, via ih_soft");
	expect(n, 0, c, "dropped", "at the checkpoint, via ih_soft");
	expect(n, 0, d, "handled", "after the checkpoint, via ih_soft");

	/* A full ih_soft loses the new IV (the GPU would retry it). */
	kt_pause(2);
	for (i = 0; i < 40; i++) {
		inject_at(fd, 1, 0x2000 + i);
		wait_ih0_empty(1);
	}
	pending = kt_module_stat("gpu1.soft.pending");
	lost = kt_module_stat("gpu1.soft_lost");
	kt_check(lost >= 1 && pending + lost == 40, "%s: ih_soft full: %llu kept, %llu lost", what,
		 (unsigned long long)pending, (unsigned long long)lost);
	kt_pause(0);
	return kt_done();
}

int main(int argc, char **argv)
{
	int fd = kt_open();

	if (argc > 1 && !strcmp(argv[1], "wrap"))
		return run_wrap(fd);
	if (argc > 1 && (!strcmp(argv[1], "cam") || !strcmp(argv[1], "apu")))
		return run_delegated(fd, !strcmp(argv[1], "apu"));
	test_before_at_after(fd, 0, 0x1000);
	test_set_empty_and_clear(fd, 0, 0x2000);
	test_set_moves_forward(fd, 0, 0x3000);
	test_drain_waits(fd, 1, 0x1000);
	test_drain_timeout(fd, 2);
	test_all_gpus(fd, 0x10000);
	test_wrap_chosen(fd, 3);
	test_checkpoint_at_zero(fd, 3);
	test_range(fd, 1);
	test_set_after_half_the_clock(fd, 2);
	return kt_done();
}
