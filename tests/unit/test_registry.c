/* SPDX-License-Identifier: MIT */
/*
 * test_registry.c - the allocation registry (src/shim/registry.c), case by case:
 * the answers the hooks rely on (insert, punch, touches, foreach, fork), and
 * the two failures they must survive: -ENOMEM leaves everything as it was,
 * and a signal handler that re-enters the writer gets -EDEADLK, not a hang.
 * The random model and the stress runs are in test_registry_model.c and
 * test_registry_mt.c, so a failure here points at one rule.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry_fixture.h"

TestSuite(registry, .init = setup, .fini = teardown);

Test(registry, insert_find_remove)
{
	struct hipsvm_alloc a, got;
	uint64_t bytes = 0;

	a = mk(0x7f0000100000, 1 * MB, HIPSVM_KIND_MANAGED);
	a.device = -1;
	a.ctx = 3;
	a.flags = 0xdeadbeef;
	a.route = 0xfffffff0;
	cr_assert_eq(hipsvm_reg_insert(r, &a), 0);
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EEXIST);
	cr_assert_eq(add(0x7f0000100000 + MB - 1, 10, HIPSVM_KIND_HOST), -EEXIST);
	cr_assert_eq(add(0x7f0000100000 + MB, 10, HIPSVM_KIND_HOST), 0, "adjacent");
	cr_assert_eq(hipsvm_reg_count(r), 2);
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000 + 12345, &got), 0);
	cr_assert(!memcmp(&got, &a, sizeof(a)), "every field survives the round trip");
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000 - 1, &got), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, 0x7f0000100000 + 5, NULL, NULL), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, 0x7f0000100000, &got, &bytes), 0);
	cr_assert_eq(bytes, MB);
	cr_assert_eq(got.start, 0x7f0000100000);
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000, &got), -ENOENT);
	cr_assert_eq(hipsvm_reg_count(r), 1);
	a.last = a.start - 1;
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EINVAL);
	a = mk(0x1000, 10, HIPSVM_KIND_COUNT);
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EINVAL);
}

struct pieces {
	unsigned n;
	struct hipsvm_alloc p[16];
};

static void collect(void *arg, const struct hipsvm_alloc *a)
{
	struct pieces *ps = arg;

	if (ps->n < 16)
		ps->p[ps->n] = *a;
	ps->n++;
}

#define B 0x7f1000000000

Test(registry, punch_cases)
{
	struct pieces ps = { 0 };
	struct hipsvm_alloc o[8];
	uint64_t bytes;

	/* head: the hole covers the start of the entry */
	cr_assert_eq(add(B, 100, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B - 10, 30, collect, &ps), 1);
	cr_assert(ps.p[0].start == B && ps.p[0].last == B + 19 && ps.p[0].origin == B);
	cr_assert_eq(hipsvm_reg_overlaps(r, B - 100, 1000, o, 8), 1);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 99 && o[0].origin == B &&
		  o[0].origin_size == 100);
	/* tail */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 90, 1000, collect, &ps), 1);
	cr_assert(ps.p[0].start == B + 90 && ps.p[0].last == B + 99);
	cr_assert_eq(hipsvm_reg_overlaps(r, B, 1000, o, 8), 1);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 89);
	/* middle hole: head and tail stay, same attributes */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 40, 10, collect, &ps), 1);
	cr_assert(ps.p[0].start == B + 40 && ps.p[0].last == B + 49);
	cr_assert_eq(hipsvm_reg_overlaps(r, B, 1000, o, 8), 2);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 39);
	cr_assert(o[1].start == B + 50 && o[1].last == B + 89);
	cr_assert(o[1].kind == HIPSVM_KIND_MANAGED && o[1].origin == B && o[1].route == 7);
	cr_assert_eq(hipsvm_reg_touches(r, B + 40, 10, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B + 39, 2, ALL_KINDS), 1);
	/* touching boundaries: a hole that ends right before or starts right
	 * after an entry changes nothing */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 40, 10, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B, 20, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B + 90, 10, collect, &ps), 0);
	cr_assert_eq(ps.n, 0);
	cr_assert_eq(hipsvm_reg_count(r), 2);
	/* spanning several: other allocation in the hole, then one hole over all */
	cr_assert_eq(add(B + 42, 4, HIPSVM_KIND_HOST), 0);
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 30, 40, collect, &ps), 3);
	cr_assert(ps.p[0].start == B + 30 && ps.p[0].last == B + 39);
	cr_assert(ps.p[1].start == B + 42 && ps.p[1].last == B + 45 && ps.p[1].origin == B + 42);
	cr_assert(ps.p[2].start == B + 50 && ps.p[2].last == B + 69);
	cr_assert_eq(hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, 8), 2);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 29);
	cr_assert(o[1].start == B + 70 && o[1].last == B + 89);
	/* the origin is still known, and the free still finds both pieces */
	cr_assert_eq(hipsvm_reg_find_origin(r, B, &o[2]), 0);
	cr_assert(o[2].start == B + 20 && o[2].origin == B && o[2].origin_size == 100);
	cr_assert_eq(hipsvm_reg_find_origin(r, B + 20, &o[2]), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, NULL, &bytes), 0);
	cr_assert_eq(bytes, 30);
	cr_assert_eq(hipsvm_reg_count(r), 0);
	/* exact cover */
	cr_assert_eq(add(B, 100, HIPSVM_KIND_HOST), 0);
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B, 100, collect, &ps), 1);
	cr_assert(ps.p[0].start == B && ps.p[0].last == B + 99);
	cr_assert_eq(hipsvm_reg_count(r), 0);
	/* every byte unmapped: the free finds the tombstone once, with the
	 * allocation's attributes, and nothing after it */
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, &o[3], &bytes), -ESTALE, "tombstone");
	cr_assert(o[3].origin == B && o[3].origin_size == 100 && o[3].kind == HIPSVM_KIND_HOST);
	cr_assert_eq(bytes, 0);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, NULL, NULL), -ENOENT, "origin is gone");
	/* a new allocation over a tombstone's origin buries it */
	cr_assert_eq(add(B, 100, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B, 100, NULL, NULL), 1);
	cr_assert_eq(add(B - 10, 20, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, NULL, NULL), -ENOENT, "buried");
	cr_assert_eq(hipsvm_reg_check(r), 0);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B - 10, NULL, &bytes), 0);
	cr_assert_eq(bytes, 20);
	cr_assert_eq(hipsvm_reg_punch(r, B, 0, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_check(r), 0);
}

Test(registry, punch_across_leaves)
{
	/* Pieces larger than the filter's 32 GiB leaves, punched apart. */
	uintptr_t base = (uintptr_t)3 << 35;
	struct hipsvm_alloc o[4];

	cr_assert_eq(add(base - 1 * MB, 100 * GB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, base + 40 * GB, 8 * GB, NULL, NULL), 1);
	cr_assert_eq(hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, 4), 2);
	cr_assert_eq(hipsvm_reg_touches(r, base + 40 * GB, 8 * GB, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base + 41 * GB, 4 * KB, SVM_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base + 40 * GB - 1, 1, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, base + 48 * GB, 1, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, base + 80 * GB, 4 * KB, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_punch(r, base - 1 * MB, 100 * GB, NULL, NULL), 2);
	cr_assert_eq(hipsvm_reg_touches(r, 0, SIZE_MAX, ALL_KINDS), 0);
	/* and at the top of the address space */
	cr_assert_eq(add(UINTPTR_MAX - 4095, 4096, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX, 1, ALL_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX - 8191, 4096, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX - 8191, SIZE_MAX, ALL_KINDS), 1);
}

Test(registry, touches_kind_mask)
{
	cr_assert_eq(add(B, 64 * KB, HIPSVM_KIND_DEVICE), 0);
	cr_assert_eq(add(B + 1 * MB, 64 * KB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, ALL_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, SVM_KINDS), 0, "device memory only");
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, BIT(HIPSVM_KIND_DEVICE)), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, BIT(HIPSVM_KIND_HOST)), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, BIT(HIPSVM_KIND_MANAGED)), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, 0), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B + 64 * KB, 1 * MB - 64 * KB, ALL_KINDS), 0, "gap");
	cr_assert_eq(hipsvm_reg_touches(r, B, 0, ALL_KINDS), 0, "empty range");
	cr_assert_eq(hipsvm_reg_touches(r, 0x1000, 4 * KB, ALL_KINDS), 0, "far away");
}

Test(registry, foreach_count_and_fork)
{
	unsigned n = 0;
	pid_t pid;
	int st;

	for (unsigned i = 0; i < 100; i++)
		cr_assert_eq(add(B + i * 8 * KB, 4 * KB, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_count(r), 100);
	{
		struct pieces ps = { 0 };

		hipsvm_reg_foreach(r, collect, &ps);
		n = ps.n;
		cr_assert(ps.p[0].start == B && ps.p[15].start == B + 15 * 8 * KB, "ascending");
	}
	cr_assert_eq(n, 100);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct hipsvm_alloc got;

		hipsvm_reg_atfork_child(r);
		if (hipsvm_reg_find(r, B + 8 * KB, &got) || add(B + 4 * KB, 4 * KB,
							       HIPSVM_KIND_HOST) ||
		    hipsvm_reg_count(r) != 101)
			_exit(1);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- -ENOMEM changes nothing ---- */

static size_t vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

static unsigned cb_calls;

static void count_cb(void *arg, const struct hipsvm_alloc *a)
{
	cb_calls++;
}

/* With the address space capped at what is mapped now, inserts and middle
 * punches go on until the registry needs more memory; the one that gets
 * -ENOMEM must have changed nothing (and called no callback). */
Test(registry, enomem_changes_nothing, .timeout = 60)
{
	enum { MAXOPS = 200000 };
	static struct hipsvm_alloc before[4], after[4];
	struct rlimit old, lim;
	int ins_rc = 0, punch_rc = 0, nb = 0, na = 0, nbp = 0, nap = 0;
	size_t cnt_before = 0, cnt_after = 0, cnt_bp = 0, cnt_ap = 0;
	unsigned i, cb_before = 0, cb_after = 0;
	uintptr_t pa = 0;

	for (i = 0; i < 8; i++)
		cr_assert_eq(add(B + i * 64 * KB, 16 * KB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = vm_bytes() + 64 * KB;
	cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
	/* No assertion (it could allocate) until the limit is lifted again. */
	for (i = 8; i < MAXOPS && (ins_rc == 0 || punch_rc == 0); i++) {
		uintptr_t a = B + i * 64 * KB;

		if (ins_rc == 0) {
			cnt_before = hipsvm_reg_count(r);
			nb = hipsvm_reg_overlaps(r, a - 64 * KB, 128 * KB, before, 4);
			ins_rc = add(a, 16 * KB, HIPSVM_KIND_MANAGED);
			if (ins_rc) {
				cnt_after = hipsvm_reg_count(r);
				na = hipsvm_reg_overlaps(r, a - 64 * KB, 128 * KB, after, 4);
			}
		}
		if (punch_rc == 0 && i >= 16) {
			pa = B + (i - 8) * 64 * KB;
			cnt_bp = hipsvm_reg_count(r);
			nbp = hipsvm_reg_overlaps(r, pa, 16 * KB, before + 2, 2);
			cb_before = cb_calls;
			punch_rc = hipsvm_reg_punch(r, pa + 4 * KB, 4 * KB, count_cb, NULL);
			if (punch_rc == 1)
				punch_rc = 0;
			if (punch_rc) {
				cb_after = cb_calls;
				cnt_ap = hipsvm_reg_count(r);
				nap = hipsvm_reg_overlaps(r, pa, 16 * KB, after + 2, 2);
			}
		}
	}
	cr_assert_eq(setrlimit(RLIMIT_AS, &old), 0);
	cr_log_info("enomem: insert failed at op %u with %d, punch with %d", i, ins_rc, punch_rc);
	cr_assert_eq(ins_rc, -ENOMEM);
	cr_assert_eq(punch_rc, -ENOMEM);
	cr_assert_eq(cnt_after, cnt_before);
	cr_assert_eq(na, nb);
	cr_assert(!memcmp(before, after, (size_t)nb * sizeof(before[0])));
	cr_assert_eq(cnt_ap, cnt_bp);
	cr_assert_eq(nap, nbp);
	cr_assert_eq(nap, 1);
	cr_assert(after[2].start == pa && after[2].last == pa + 16 * KB - 1);
	cr_assert_eq(cb_after, cb_before);
	/* and with memory back, the same operations work */
	cr_assert_eq(hipsvm_reg_punch(r, pa + 4 * KB, 4 * KB, NULL, NULL), 1);
}

/* ---- a signal handler that interrupts the writer on its own thread ---- */

static int sig_touch, sig_find, sig_over, sig_punch;

static void on_sig(int sig)
{
	struct hipsvm_alloc a;

	sig_touch = hipsvm_reg_touches(r, B, 4096, ALL_KINDS);
	sig_find = hipsvm_reg_find(r, B, &a);
	sig_over = hipsvm_reg_overlaps(r, B, 4096, &a, 1);
	sig_punch = hipsvm_reg_punch(r, B, 4096, NULL, NULL);
}

static void raise_in_cb(void *arg, const struct hipsvm_alloc *a)
{
	raise(SIGUSR1);
}

Test(registry, signal_in_writer_gets_edeadlk)
{
	struct sigaction sa = { .sa_handler = on_sig };

	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(add(B, 2 * MB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B + MB, 4096, raise_in_cb, NULL), 1);
	cr_assert_eq(sig_touch, -EDEADLK);
	cr_assert_eq(sig_find, -EDEADLK);
	cr_assert_eq(sig_over, -EDEADLK);
	cr_assert_eq(sig_punch, -EDEADLK);
	/* outside the writer the same calls answer normally */
	raise(SIGUSR1);
	cr_assert_eq(sig_touch, 1);
	cr_assert_eq(sig_find, 0);
	cr_assert_eq(sig_over, 1);
	cr_assert_eq(sig_punch, 1);
	cr_assert_eq(hipsvm_reg_count(r), 2);
}
