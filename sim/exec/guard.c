/* SPDX-License-Identifier: MIT */
/*
 * guard.c - the interpreter's memory on a simulated GPU: every page an
 * instruction's active lanes touch goes through the GPU's page-fault path
 * (sim_gpu_access_page: a page the GPU has not mapped raises a retry fault
 * into the ring and the wave waits for the handler), then the bytes move
 * with a guarded copy.
 *
 * Why guarded, and how. The program can munmap a range while a kernel
 * reads it (that race is what the shim coordinates; without the shim it is
 * simply allowed to happen). A plain load would then kill the simulator
 * with SIGSEGV. Loads and stores therefore go through process_vm_readv /
 * process_vm_writev on our own pid: the kernel copies and answers EFAULT
 * (or a short count) for an unmapped page, with no signal, from any thread,
 * whatever handlers the program has installed: the safest choice in a
 * multi-threaded host program, and one system call per instruction (all
 * lanes' ranges in one iovec list). Where a seccomp filter refuses those
 * calls (EPERM, ENOSYS), the copies fall back to the guard below. Atomics cannot be done that way; they
 * run as host atomics under a per-thread sigsetjmp guard: a SIGSEGV/SIGBUS
 * handler, installed once, long-jumps out when the faulting thread is
 * inside a guarded atomic and otherwise hands the signal to the handler
 * that was there before (or to the default action). The interpreter's
 * threads unblock SIGSEGV/SIGBUS only while they run a dispatch.
 *
 * Either way a page that has vanished from the CPU is a real GPU fault
 * (-ISA_E_FAULT): the dispatch ends with hipErrorIllegalAddress.
 */
#include "run.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_PAGES 16

static __thread sigjmp_buf guard_jmp;
static __thread volatile sig_atomic_t guard_on;
static struct sigaction old_segv, old_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;

	if (guard_on) {
		guard_on = 0;
		siglongjmp(guard_jmp, 1);
	}
	/* not ours: whoever handled it before us */
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* default action: restore it and let the instruction fault again */
	signal(sig, SIG_DFL);
}

static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
}

void sim_isa_guard_unblock(sigset_t *saved)
{
	sigset_t s;

	pthread_once(&guard_once, guard_install);
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigaddset(&s, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &s, saved);
}

void sim_isa_guard_restore(const sigset_t *saved)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static bool internal(const struct sim_isa_mem *m, uint64_t a, size_t n)
{
	for (unsigned i = 0; i < m->ninternal; i++)
		if (a >= m->lo[i] && a <= m->hi[i] && n <= m->hi[i] - a)
			return true;
	return false;
}

/* The pages of [a, a + n), through the GPU's fault path; seen[] keeps the
 * pages this instruction has already walked. */
static int walk(struct sim_isa_mem *m, uint64_t a, size_t n, bool write, uint64_t *seen,
		unsigned *nseen)
{
	uint64_t p, end = a + n;

	if (end < a)
		return -ISA_E_FAULT;
	for (p = a & ~(uint64_t)(SIM_PAGE - 1); p < end; p += SIM_PAGE) {
		unsigned i;
		int r;

		for (i = 0; i < *nseen && seen[i] != p; i++)
			;
		if (i < *nseen)
			continue;
		r = sim_gpu_access_page(m->gpu, (uintptr_t)p, write, m->stop);
		if (r == SIM_RES_REAL || r == SIM_RES_NONE)
			return -ISA_E_FAULT;
		__atomic_fetch_add(&m->pages, 1, __ATOMIC_RELAXED);
		if (*nseen < MAX_PAGES)
			seen[(*nseen)++] = p;
		else
			seen[p / SIM_PAGE % MAX_PAGES] = p;
	}
	return 0;
}

/* process_vm_* refused (a seccomp filter may do that in a container):
 * the copies then run under the signal guard, as the atomics do. */
static int vm_refused;

static __attribute__((noinline)) void plain_copy(const struct iovec *local,
						 const struct iovec *remote, unsigned nr, bool write)
{
	uint8_t *lp = local->iov_base;

	for (unsigned i = 0; i < nr; i++) {
		if (write)
			memcpy(remote[i].iov_base, lp, remote[i].iov_len);
		else
			memcpy(lp, remote[i].iov_base, remote[i].iov_len);
		lp += remote[i].iov_len;
	}
}

static int guarded_copy(const struct iovec *local, const struct iovec *remote, unsigned nr,
			bool write)
{
	if (sigsetjmp(guard_jmp, 0))
		return -ISA_E_FAULT;
	guard_on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	plain_copy(local, remote, nr, write);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_on = 0;
	return 0;
}

/* One guarded copy between local (one buffer) and nr remote ranges. */
static int vm_copy(const struct sim_isa_mem *m, const struct iovec *local,
		   const struct iovec *remote, unsigned nr, bool write)
{
	ssize_t got;

	if (!__atomic_load_n(&vm_refused, __ATOMIC_RELAXED)) {
		got = write ? process_vm_writev(m->pid, local, 1, remote, nr, 0)
			    : process_vm_readv(m->pid, local, 1, remote, nr, 0);
		if (got == (ssize_t)local->iov_len)
			return 0;
		if (got >= 0 || (errno != EPERM && errno != ENOSYS))
			return -ISA_E_FAULT;
		__atomic_store_n(&vm_refused, 1, __ATOMIC_RELAXED);
	}
	return guarded_copy(local, remote, nr, write);
}

static int mem_access(struct isa_mem *im, const uint64_t *addr, unsigned n, unsigned size,
		      bool write, void *buf)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)im;
	struct iovec local, remote[ISA_LANES];
	uint64_t seen[MAX_PAGES];
	unsigned nseen = 0, nr = 0;
	bool mixed = false;

	if (n > ISA_LANES)
		return -ISA_E_FAULT;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *b = (uint8_t *)buf + (size_t)i * size;

		if (internal(m, addr[i], size)) {
			/* our own kernarg segment or dispatch packet */
			if (write)
				memcpy((void *)(uintptr_t)addr[i], b, size);
			else
				memcpy(b, (const void *)(uintptr_t)addr[i], size);
			mixed = true;
		} else if (walk(m, addr[i], size, write, seen, &nseen)) {
			return -ISA_E_FAULT;
		}
	}
	if (mixed) {	/* lane by lane (never seen in practice) */
		for (unsigned i = 0; i < n; i++) {
			struct iovec l = { (uint8_t *)buf + (size_t)i * size, size };
			struct iovec r = { (void *)(uintptr_t)addr[i], size };

			if (internal(m, addr[i], size))
				continue;
			if (vm_copy(m, &l, &r, 1, write))
				return -ISA_E_FAULT;
		}
		return 0;
	}
	/* one guarded copy: consecutive lanes at consecutive addresses merge */
	for (unsigned i = 0; i < n; i++) {
		if (nr && (uintptr_t)remote[nr - 1].iov_base + remote[nr - 1].iov_len == addr[i]) {
			remote[nr - 1].iov_len += size;
			continue;
		}
		remote[nr].iov_base = (void *)(uintptr_t)addr[i];
		remote[nr].iov_len = size;
		nr++;
	}
	local.iov_base = buf;
	local.iov_len = (size_t)n * size;
	return vm_copy(m, &local, remote, nr, write);
}

/* The atomic itself, under the guard; a CAS loop for every operation. */
static int guarded_rmw(uint64_t addr, unsigned size, int op, uint64_t src, uint64_t cmp,
		       uint64_t *old_out)
{
	if (sigsetjmp(guard_jmp, 0))
		return -ISA_E_FAULT;
	guard_on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (size == 4) {
		uint32_t *p = (uint32_t *)(uintptr_t)addr, old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;

		do {
			if (op == ISA_AT_CMPSWAP) {
				if (old != (uint32_t)cmp)
					break;
				nv = (uint32_t)src;
			} else {
				nv = (uint32_t)isa_atomic_rmw(op, 4, old, src);
			}
		} while (!__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		*old_out = old;
	} else {
		uint64_t *p = (uint64_t *)(uintptr_t)addr, old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;

		do {
			if (op == ISA_AT_CMPSWAP) {
				if (old != cmp)
					break;
				nv = src;
			} else {
				nv = isa_atomic_rmw(op, 8, old, src);
			}
		} while (!__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		*old_out = old;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_on = 0;
	return 0;
}

static int mem_atomic(struct isa_mem *im, uint64_t addr, unsigned size, int op, uint64_t src,
		      uint64_t cmp, uint64_t *old)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)im;
	uint64_t seen[MAX_PAGES];
	unsigned nseen = 0;

	if (addr % size)
		return -ISA_E_FAULT;	/* misaligned atomics fault on the hardware too */
	if (internal(m, addr, size))
		return -ISA_E_FAULT;
	if (walk(m, addr, size, true, seen, &nseen))
		return -ISA_E_FAULT;
	return guarded_rmw(addr, size, op, src, cmp, old);
}

void sim_isa_mem_init(struct sim_isa_mem *m, struct sim_gpu *g, const uint32_t *stop)
{
	memset(m, 0, sizeof(*m));
	m->ops.access = mem_access;
	m->ops.atomic = mem_atomic;
	m->gpu = g;
	m->stop = stop;
	m->pid = getpid();
}

void sim_isa_mem_internal(struct sim_isa_mem *m, const void *p, size_t n)
{
	if (m->ninternal < SIM_ISA_INTERNAL) {
		m->lo[m->ninternal] = (uint64_t)(uintptr_t)p;
		m->hi[m->ninternal] = (uint64_t)(uintptr_t)p + n;
		m->ninternal++;
	}
}
