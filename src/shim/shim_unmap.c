/* SPDX-License-Identifier: MIT */
/*
 * shim_unmap.c - coordination of an unmap of GPU-visible memory with the
 * checkpoint hook (docs/design.md, docs/protocol.md):
 *
 *   set (every GPU of the owning contexts, with the range)
 *   -> the real unmap -> drain (HIPSVM_DRAIN_TIMEOUT_MS) -> clear (the values
 *   set) -> the registry loses the range (split or removed).
 * A hook of protocol version 2 or later takes drain and clear in one
 * request (drainclear): two round trips per unmap instead of three.
 *
 * Runs inside munmap & co. of any thread, from signal handlers too, and
 * while the runtime holds its own locks (its internal munmap): no HIP call,
 * no lock that a HIP call could hold, no allocation, no stdio. A request on
 * this thread's hook connection that is already in flight (a signal handler
 * interrupted it) is never interleaved with: that unmap goes ahead
 * uncoordinated and is counted as reentrant_skipped.
 */
#include "shim/shim.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "shared/checkpoint.h"
#include "shim/unmap_args.h"
#include "shim/trace.h"

static bool overlaps(uintptr_t s1, uintptr_t l1, uintptr_t s2, uintptr_t l2)
{
	/* closed intervals [s1, l1] and [s2, l2] overlap iff each starts
	 * before the other ends */
	return s1 <= l2 && s2 <= l1;
}

static uintptr_t last_of(uintptr_t addr, size_t len)
{
	uintptr_t last = addr + len - 1;

	return last < addr ? UINTPTR_MAX : last;
}

static void add_owner(struct hipsvm_shim *s, struct hipsvm_unmap *u, int ctx)
{
	if (ctx == HIPSVM_CTX_HOST)
		u->ctx_host = 1;
	else if (ctx >= 0 && ctx < HIPSVM_MAX_GPUS)
		u->ctx_dev |= UINT64_C(1) << ctx;
	u->gpus |= hipsvm_shim_ctx_gpus(s, ctx);
}

static int set(struct hipsvm_shim *s, struct hipsvm_unmap *u);

int hipsvm_unmap_begin(struct hipsvm_shim *s, struct hipsvm_unmap *u, enum hipsvm_unmap_op op,
		       uintptr_t addr, size_t len)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	uintptr_t last = last_of(addr, len);
	int n, i;

	memset(u, 0, offsetof(struct hipsvm_unmap, over));
	u->op = op;
	u->addr = addr;
	u->len = len;
	if (!len)
		return 0;
	n = hipsvm_reg_overlaps(s->reg, addr, len, u->over, HIPSVM_UNMAP_MAX_OVER);
	if (n == -EDEADLK) {
		/* A signal handler interrupted this thread's own registry
		 * write: the registry cannot be read from here. */
		hipsvm_unmap_reentered(s);
		return 0;
	}
	u->n_over = n;
	for (i = 0; i < n && i < HIPSVM_UNMAP_MAX_OVER; i++) {
		if (!hipsvm_kind_is_svm(u->over[i].kind))
			continue;
		add_owner(s, u, u->over[i].ctx);
		if (u->over[i].start < addr || u->over[i].last > last)
			u->partial = true;
	}
	if (n > HIPSVM_UNMAP_MAX_OVER)
		u->gpus |= hipsvm_shim_ctx_gpus(s, HIPSVM_CTX_HOST);
	if (!u->gpus && t->freeing && overlaps(t->freeing->start, t->freeing->last, addr, last)) {
		u->internal = true;
		add_owner(s, u, t->freeing->ctx);
	}
	if (!u->gpus)
		return 0;
	return set(s, u);
}

int hipsvm_unmap_begin_gpus(struct hipsvm_shim *s, struct hipsvm_unmap *u, uintptr_t addr,
			    size_t len, uint64_t gpus)
{
	memset(u, 0, offsetof(struct hipsvm_unmap, over));
	u->op = HIPSVM_UNMAP_HIP;
	u->addr = addr;
	u->len = len;
	u->gpus = gpus;
	if (!len || !gpus)
		return 0;
	return set(s, u);
}

/* The GPUs of u are known: checkpoint them through this thread's hook
 * connection. 1 (end() must follow) whether or not that worked. */
static int set(struct hipsvm_shim *s, struct hipsvm_unmap *u)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	struct hipsvm_hook *h;
	uint64_t left;
	int i, fd, err;

	u->active = true;
	if (t->busy) {
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_REENTRANT_SKIPPED], 1);
		if (s->notify)
			s->notify(HIPSVM_EV_REENTRANT, 0);
		return 1;
	}
	h = hipsvm_shim_conn(s);
	if (!h) {
		/* No hook at all, or this thread could not connect to it (a
		 * server that limits its connections): say which. */
		bool none = __atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE) !=
			    HIPSVM_HOOK_CONNECTED;

		if (s->notify)
			s->notify(none ? HIPSVM_EV_NO_HOOK : HIPSVM_EV_HOOK_ERROR,
				  none ? 0 : -ECONNREFUSED);
		return 1;
	}
	t->busy = true;
	fd = h->fd;
	err = hipsvm_hook_set(h, u->gpus, u->addr, u->len, u->cp, &u->cp_mask);
	hipsvm_shim_conn_check(t, fd);
	if (err) {
		t->busy = false;
		if (s->notify)
			s->notify(HIPSVM_EV_HOOK_ERROR, err);
		return 1;
	}
	u->coordinated = true;
	for (left = u->cp_mask; left; left &= left - 1) {
		i = __builtin_ctzll(left);
		hipsvm_stats_add(&s->stats.dev[i].checkpoints_set, 1);
		if (s->trace_fd >= 0) {
			struct hipsvm_tfield f[] = {
				HIPSVM_TF_U("dev", i),
				HIPSVM_TF_X("cp", u->cp[i]),
			};

			hipsvm_trace_emit(s->trace_fd, "cp_set", f, 2);
		}
	}
	return 1;
}

static void punched(void *arg, const struct hipsvm_alloc *a)
{
	struct hipsvm_unmap *u = ((void **)arg)[1];
	struct hipsvm_shim *s = ((void **)arg)[0];
	uint64_t bytes = a->last - a->start + 1;

	hipsvm_shim_release(s, a, bytes, -1);
	if (hipsvm_kind_is_svm(a->kind))
		u->punched_bytes += bytes;
}

static void drain_clear(struct hipsvm_shim *s, struct hipsvm_unmap *u)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	struct hipsvm_hook *h = &t->hook;
	int result[HIPSVM_MAX_GPUS];
	uint64_t t0, dur, keep = 0, cleared = 0, left;
	bool both = s->hook_version >= HIPSVM_PROTO_VERSION_DRAINCLEAR;
	int err, i, fd = h->fd;

	t0 = hipsvm_now_ns();
	/* drainclear: the server clears exactly the GPUs given a value (those
	 * whose set recorded one) whose drain passed, each only if its
	 * checkpoint is still that value: the rules below, server side. */
	if (both)
		err = hipsvm_hook_drainclear(h, u->gpus, s->drain_timeout_ms, u->cp, u->cp_mask,
					     result, &cleared);
	else
		err = hipsvm_hook_drain(h, u->gpus, s->drain_timeout_ms, result);
	dur = hipsvm_now_ns() - t0;
	hipsvm_shim_conn_check(t, fd);
	if (err) {
		if (s->notify)
			s->notify(HIPSVM_EV_HOOK_ERROR, err);
		u->coordinated = false;
	}
	/* by the set bits: a drain names a few GPUs of 64 */
	for (left = err ? 0 : u->gpus; left; left &= left - 1) {
		i = __builtin_ctzll(left);
		if (result[i] == -ETIME) {
			keep |= UINT64_C(1) << i;
			if (s->notify)
				s->notify(HIPSVM_EV_DRAIN_TIMEOUT, i);
		}
		if (s->trace_fd >= 0) {
			const char *res = result[i] == 0 ? "ok" : result[i] == -ETIME ? "timeout" :
					  result[i] == -ENODEV ? "nodev" :
					  result[i] == HIPSVM_DRAIN_SKIPPED ? "skipped" : "error";
			struct hipsvm_tfield f[] = {
				HIPSVM_TF_U("dev", i),
				HIPSVM_TF_U("dur_ns", dur),
				HIPSVM_TF_S("result", res),
			};

			hipsvm_trace_emit(s->trace_fd, "drain", f, 3);
		}
	}
	if (!err)
		hipsvm_stats_drains(&s->stats, u->gpus, dur, keep);
	if (both) {
		for (i = 0; !err && s->trace_fd >= 0 && i < HIPSVM_MAX_GPUS; i++) {
			if ((u->cp_mask & u->gpus) >> i & 1 &&
			    (result[i] == 0 || result[i] == HIPSVM_DRAIN_SKIPPED)) {
				struct hipsvm_tfield f[] = { HIPSVM_TF_U("dev", i) };

				hipsvm_trace_emit(s->trace_fd, "cp_clear", f, 1);
			}
		}
		(void)cleared;
		return;
	}
	if (!t->open)
		return;
	/* A GPU whose drain timed out keeps its checkpoint: stale faults may
	 * still be in its ring, and a checkpoint left behind is harmless. It
	 * only drops faults raised before the set, which the GPU retries with
	 * a new timestamp, and the first of those clears it (the kernel's own
	 * rule). Clearing it here would let the stale ones through. */
	/* Only the checkpoints this unmap set, each only if it is still the
	 * value set: a GPU whose rings were empty at the set ("none") may now
	 * hold another unmapper's checkpoint, which an unconditional clear
	 * would wipe while that unmapper is still draining. */
	keep |= ~u->cp_mask;
	if (!(u->gpus & ~keep))
		return;
	fd = h->fd;
	err = hipsvm_hook_clear(h, u->gpus & ~keep, u->cp, u->cp_mask & ~keep);
	hipsvm_shim_conn_check(t, fd);
	if (err) {
		if (s->notify)
			s->notify(HIPSVM_EV_HOOK_ERROR, err);
		return;
	}
	for (i = 0; s->trace_fd >= 0 && i < HIPSVM_MAX_GPUS; i++) {
		if ((u->gpus & ~keep) >> i & 1) {
			struct hipsvm_tfield f[] = { HIPSVM_TF_U("dev", i) };

			hipsvm_trace_emit(s->trace_fd, "cp_clear", f, 1);
		}
	}
}

/* Traced: after each drain, the fault counters of the GPUs drained, so
 * that the trace shows faults over time (one more request, only then). */
static void drain(struct hipsvm_shim *s, struct hipsvm_unmap *u)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	int fd;

	drain_clear(s, u);
	if (s->trace_fd < 0 || !t->open)
		return;
	fd = t->hook.fd;
	hipsvm_trace_faults(s->trace_fd, &t->hook, u->gpus, NULL);
	hipsvm_shim_conn_check(t, fd);
}

void hipsvm_unmap_end(struct hipsvm_shim *s, struct hipsvm_unmap *u, bool ok,
		      uintptr_t punch_addr, size_t punch_len)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	void *arg[2] = { s, u };
	uint64_t left;

	if (!u->active)
		return;
	if (u->coordinated) {
		/* also after a refused call: the checkpoints it set are
		 * drained and cleared like any others */
		drain(s, u);
		t->busy = false;
	}
	if (!ok) {
		/* Refused by the kernel for a reason the arguments did not
		 * show (unmap_args.h): nothing was unmapped, nothing counts
		 * as an unmap. */
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_REFUSED], 1);
		return;
	}
	hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_TRACKED], 1);
	if (u->op == HIPSVM_UNMAP_HIP)
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_BY_HIP], 1);
	hipsvm_stats_add(&s->stats.unmap[u->coordinated ? HIPSVM_UNMAP_COORDINATED :
					 HIPSVM_UNMAP_UNCOORDINATED], 1);
	if (u->coordinated) {
		struct hipsvm_ctx_stats *cs;

		if (u->ctx_host && (cs = hipsvm_stats_ctx(&s->stats, HIPSVM_CTX_HOST)))
			hipsvm_stats_add(&cs->unmaps_coordinated, 1);
		for (left = u->ctx_dev; left; left &= left - 1)
			if ((cs = hipsvm_stats_ctx(&s->stats, __builtin_ctzll(left))))
				hipsvm_stats_add(&cs->unmaps_coordinated, 1);
	}
	/* The punch uses what begin found to skip the registry when there is
	 * nothing to take (no piece over the range: an unmap that was only
	 * followed because this thread is inside a hipFree, or the runtime's
	 * own). Otherwise it still takes the writer lock and reads the tree:
	 * begin's pieces are a lock-free snapshot, and between begin and here
	 * another thread may have freed one of them and had the address
	 * handed out again; only the locked read removes the right piece. */
	if (punch_len && !u->internal && u->n_over != 0)
		hipsvm_reg_punch(s->reg, punch_addr, punch_len, punched, arg);
	if (u->punched_bytes) {
		/* Live memory that HIP still thinks allocated went away under
		 * it: the program unmapped it instead of freeing it. */
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_LIVE_SVM], 1);
		hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_LIVE_SVM_BYTES], u->punched_bytes);
		if (u->partial)
			hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_PARTIAL], 1);
	}
	if (s->trace_fd >= 0) {
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_X("addr", u->addr),
			HIPSVM_TF_U("len", u->len),
			HIPSVM_TF_B("coordinated", u->coordinated),
		};

		hipsvm_trace_emit(s->trace_fd, "unmap", f, 3);
	}
}

void hipsvm_unmap_refused(struct hipsvm_shim *s)
{
	hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_REFUSED], 1);
}

void hipsvm_unmap_reentered(struct hipsvm_shim *s)
{
	hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_TRACKED], 1);
	hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_UNCOORDINATED], 1);
	hipsvm_stats_add(&s->stats.unmap[HIPSVM_UNMAP_REENTRANT_SKIPPED], 1);
	if (s->notify)
		s->notify(HIPSVM_EV_REENTRANT, 0);
}

/* ---- the unmap family's decisions (preload/unmap_wrap.c asks) ---- */

static bool returns_pointer(enum hipsvm_unmap_op op)
{
	return op == HIPSVM_UNMAP_MMAP_FIXED || op == HIPSVM_UNMAP_MREMAP;
}

static bool succeeded(const struct hipsvm_unmap_call *c, long r)
{
	return returns_pointer(c->op) ? (void *)r != MAP_FAILED : r == 0;
}

/* The kernel's refusal on the arguments alone (unmap_args.h), or 0. */
static int refusal(const struct hipsvm_vm_limits *l, const struct hipsvm_unmap_call *c)
{
	uintptr_t a = (uintptr_t)c->addr;

	switch (c->op) {
	case HIPSVM_UNMAP_MUNMAP:
		return hipsvm_munmap_refusal(l, a, c->len);
	case HIPSVM_UNMAP_MMAP_FIXED:
		return hipsvm_mmap_refusal(l, a, c->len, c->flags, c->off);
	case HIPSVM_UNMAP_MREMAP:
		return hipsvm_mremap_refusal(l, a, c->len, c->new_size, c->flags,
					     (uintptr_t)c->new_addr);
	case HIPSVM_UNMAP_MADVISE:
		return hipsvm_madvise_refusal(l, a, c->len);
	default:
		return 0;	/* shmdt: its extent was read from the kernel */
	}
}

/* What a successful call took from the address space, for the registry:
 * madvise drops pages but keeps the mapping and the allocation (nothing);
 * mremap takes the old range when it moved and the tail when it shrank. */
static void taken(const struct hipsvm_unmap_call *c, long r, uintptr_t *a, size_t *n)
{
	*a = (uintptr_t)c->addr;
	*n = c->len;
	if (c->op == HIPSVM_UNMAP_MADVISE) {
		*n = 0;
	} else if (c->op == HIPSVM_UNMAP_MREMAP) {
		if ((void *)r == MAP_FAILED) {
			*n = 0;
		} else if ((void *)r == c->addr) {
			*n = c->new_size < c->len ? c->len - c->new_size : 0;
			*a += c->new_size;
		}
	}
}

/* Could the call take tracked SVM memory (or memory being freed by this
 * thread's hipFree)? */
static bool tracked(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c)
{
	uint32_t m = HIPSVM_SVM_KIND_MASK;

	if (c->op == HIPSVM_UNMAP_SHMDT)
		return c->len && hipsvm_reg_touches(s->reg, (uintptr_t)c->addr, c->len, m);
	if (__builtin_expect(hipsvm_tls.freeing != NULL, 0))
		return true;
	if (hipsvm_reg_touches(s->reg, (uintptr_t)c->addr, c->len, m))
		return true;
	return c->op == HIPSVM_UNMAP_MREMAP && (c->flags & MREMAP_FIXED) &&
	       hipsvm_reg_touches(s->reg, (uintptr_t)c->new_addr, c->new_size, m);
}

bool hipsvm_unmap_call_needs_extent(struct hipsvm_shim *s)
{
	return hipsvm_reg_count(s->reg) != 0;
}

int hipsvm_unmap_call_begin(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c,
			    struct hipsvm_unmap *u, struct hipsvm_unmap *t,
			    const struct hipsvm_vm_limits *limits)
{
	u->active = t->active = false;
	if (!c->takes || !tracked(s, c))
		return 0;
	/* The kernel would refuse it: it unmaps nothing, so it must not
	 * take anything from the GPUs either. */
	if (refusal(limits, c)) {
		hipsvm_unmap_refused(s);
		return 0;
	}
	if (!hipsvm_unmap_begin(s, u, c->op, (uintptr_t)c->addr, c->len))
		u->active = false;
	/* With MREMAP_FIXED whatever was at the new address is unmapped too. */
	if (!u->active && c->op == HIPSVM_UNMAP_MREMAP && (c->flags & MREMAP_FIXED) &&
	    !hipsvm_unmap_begin(s, t, c->op, (uintptr_t)c->new_addr, c->new_size))
		t->active = false;
	return 1;
}

void hipsvm_unmap_call_end(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c,
			   struct hipsvm_unmap *u, struct hipsvm_unmap *t, long r)
{
	int saved = errno;

	if (u->active) {
		uintptr_t a;
		size_t n;

		taken(c, r, &a, &n);
		hipsvm_unmap_end(s, u, succeeded(c, r), a, n);
	}
	if (t->active)
		hipsvm_unmap_end(s, t, succeeded(c, r), (uintptr_t)c->new_addr, c->new_size);
	errno = saved;
}

void hipsvm_unmap_call_reentered(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c)
{
	if (c->takes && c->op != HIPSVM_UNMAP_SHMDT &&
	    hipsvm_reg_touches(s->reg, (uintptr_t)c->addr, c->len, HIPSVM_SVM_KIND_MASK) != 0)
		hipsvm_unmap_reentered(s);
}
