/* SPDX-License-Identifier: MIT */
/*
 * hook_cmds.c - what each request of the checkpoint hook does to the
 * simulated GPUs (docs/simulator.md has the table).
 *
 * "set" with a range is the kernel's svm_range_unmap_from_cpu step: the
 * checkpoint is recorded and the range unmapped from the GPUs' page tables,
 * atomically with respect to the fault handler. The range is remembered so
 * that "drain" can invalidate it again once the CPU unmap has happened (a
 * fault strictly newer than the checkpoint may have mapped a page in
 * between) and log whether the CPU unmap had already happened (the
 * kernel is asked which pieces of the range it maps: O(pieces), never
 * O(pages), so that a drain of 4 GiB costs what one of a page does). The pages that the CPU unmap took leave their allocation
 * then: a fault on them is real from then on, even once another mapping
 * reuses the address, and hipFree does not unmap them again.
 *
 * What a request means is decided in src/shared/hooksrv.c, shared with the kernel
 * module; this file is the simulator's backend: one process, whose
 * checkpoint on GPU g is that GPU's, sets under the GPU's pt_lock, drains
 * sleeping on the rings' futex words.
 */
#include "hook/hook.h"
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/state.h"
#include "runtime/step.h"

#include <stdio.h>
#include <sys/mman.h>

#include "shared/hooksrv.h"
#include "hipsvm_sim.h"

struct zap {
	uintptr_t start, end;
	uint64_t gpus;
	uint64_t map_events;	/* sim_gpu_map_events() before the set */
	bool gone;	/* seen unmapped from the CPU, its pages released */
};

/* Kept as given and formatted when the log is asked for: the words are
 * static strings (the reply words, "on"/"off"), the rest a number. */
struct log_ev {
	uint64_t seq;
	const char *op;
	unsigned gpu;
	bool has_x;
	const char *word;	/* or NULL */
	uint64_t x;
};

static struct {
	struct sim_lock zap_lock;
	struct zap zap[SIM_ZAP_MAX];
	unsigned nzap;
	struct log_ev log[SIM_LOG_LEN];
	uint64_t seq;
} hs;

static void hook_cmds_reset(void)
{
	memset(&hs, 0, sizeof(hs));	/* the zap lock free */
}
SIM_STEP(hook_cmds, .reset = hook_cmds_reset);

/* Without a lock: every unmap logs a few events per GPU. A writer takes a
 * sequence number, marks its slot as being written (seq 0), fills it and
 * publishes the number; a reader keeps an entry only if the slot holds the
 * number it expects before and after reading it. */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void log_event(const char *op, unsigned gpu, const char *word, bool has_x, uint64_t x)
{
	uint64_t seq = __atomic_add_fetch(&hs.seq, 1, __ATOMIC_RELAXED);
	struct log_ev *e = &hs.log[(seq - 1) % SIM_LOG_LEN];

	ST(e->seq, 0);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ST(e->op, op);
	ST(e->gpu, gpu);
	ST(e->word, word);
	ST(e->has_x, has_x);
	ST(e->x, x);
	__atomic_store_n(&e->seq, seq, __ATOMIC_RELEASE);
}

static void zap_add(uintptr_t start, uintptr_t end, uint64_t gpus)
{
	sim_lock(&hs.zap_lock);
	if (hs.nzap == SIM_ZAP_MAX) {
		/* the oldest goes: its drain re-check is lost, not its unmap */
		memmove(&hs.zap[0], &hs.zap[1], (SIM_ZAP_MAX - 1) * sizeof(hs.zap[0]));
		hs.nzap--;
	}
	__atomic_store_n(&hs.nzap, hs.nzap + 1, __ATOMIC_RELAXED);
	hs.zap[hs.nzap - 1] = (struct zap){ start, end, gpus, sim_gpu_map_events(), false };
	sim_unlock(&hs.zap_lock);
}

/* After a drain on the GPUs of the mask gpus: invalidate every remembered
 * range of theirs once more (when invalidate) and forget them in it, under
 * one lock; word[g], for a GPU g of the mask that had a range, becomes
 * "unmapped" or "mapped" for the log, and is left alone otherwise. */
static void zap_forget(uint64_t gpus, bool invalidate, const char **word)
{
	unsigned i = 0;

	/* drainclear: the drain forgot its GPUs everywhere already; the clear
	 * finds nothing (a zap added meanwhile is another unmapper's) */
	if (!__atomic_load_n(&hs.nzap, __ATOMIC_RELAXED))
		return;
	sim_lock(&hs.zap_lock);
	while (i < hs.nzap) {
		struct zap *z = &hs.zap[i];
		uint64_t mine = z->gpus & gpus, left;

		if (!mine) {
			i++;
			continue;
		}
		/* First the pages the CPU unmap took leave their
		 * allocation, so that no fault maps them again even
		 * when a new mapping reuses the address; then each
		 * GPU forgets what was mapped since the set. Once the
		 * range is wholly gone that is known for every GPU
		 * of the drain; a range still (partly) mapped may be
		 * another unmapper's whose CPU unmap is yet to come,
		 * so the next GPU looks again. */
		for (left = invalidate ? mine : 0; left; left &= left - 1) {
			unsigned g = (unsigned)__builtin_ctzll(left);

			if (!z->gone)
				z->gone = sim_map_release_unmapped(z->start, z->end);
			sim_gpu_unmap_range(sim.gpu[g], z->start, z->end, z->map_events);
			word[g] = z->gone ? "unmapped" : "mapped";
		}
		z->gpus &= ~mine;
		if (!z->gpus) {
			memmove(z, z + 1, (hs.nzap - i - 1) * sizeof(*z));
			hs.nzap--;
		} else {
			i++;
		}
	}
	sim_unlock(&hs.zap_lock);
}

/* zap_forget for one GPU: its word, NULL if it had no range. */
static const char *zap_drain(struct sim_gpu *g, bool invalidate)
{
	const char *word[HIPSVM_MAX_GPUS];

	word[g->index] = NULL;
	zap_forget(UINT64_C(1) << g->index, invalidate, word);
	return word[g->index];
}

/* ---- the backend of src/shared/hooksrv.c ---- */

static unsigned be_ngpus(void *be)
{
	(void)be;
	return sim.ngpu;
}

static const struct hipsvm_gpu_irq *be_irq(void *be, unsigned g)
{
	(void)be;
	return &sim.gpu[g]->irq;
}

static struct hipsvm_cp *be_cp(void *be, unsigned g)
{
	(void)be;
	return &sim.gpu[g]->cp;
}

/* What a connection's requests leave it to finish (sim_hook_conn_gone). */
static void conn_set(void *be, uint64_t gpus, uint64_t got, const uint64_t *ts)
{
	struct sim_hook_conn *conn = be;
	uint64_t left;

	if (!conn)
		return;
	conn->pending |= gpus;
	conn->cp_mask |= got;
	for (left = got; left; left &= left - 1)
		conn->cp[__builtin_ctzll(left)] = ts[__builtin_ctzll(left)];
}

static int be_set(void *be, unsigned g, const struct hipsvm_cmd *c, uint64_t *ts)
{
	int r = sim_gpu_set(sim.gpu[g], c->has_range, (uintptr_t)c->addr,
			    (uintptr_t)(c->addr + c->len), ts);
	uint64_t v[HIPSVM_MAX_GPUS];

	v[g] = *ts;
	conn_set(be, UINT64_C(1) << g, r == 1 ? UINT64_C(1) << g : 0, v);
	return r;
}

static uint64_t be_set_gpus(void *be, uint64_t gpus, const struct hipsvm_cmd *c, uint64_t *ts)
{
	uint64_t got = sim_gpus_set(gpus, c->has_range, (uintptr_t)c->addr,
				    (uintptr_t)(c->addr + c->len), ts);

	conn_set(be, gpus, got, ts);
	return got;
}

static void be_drained_gpus(void *be, uint64_t gpus, const char **word)
{
	struct sim_hook_conn *conn = be;

	/* drained: whatever its result, what follows is the protocol's (the
	 * clear, or a checkpoint kept because the drain timed out) */
	if (conn) {
		conn->pending &= ~gpus;
		conn->cp_mask &= ~gpus;
	}
	zap_forget(gpus, true, word);
}

static int be_wait(void *be, unsigned g, struct hipsvm_drain *d, uint32_t ms)
{
	(void)be;
	(void)g;
	return hipsvm_cp_drain_wait(d, (uint64_t)ms * 1000000u);
}

static void be_range(void *be, const struct hipsvm_cmd *c, uint64_t gpus)
{
	(void)be;
	if (c->has_range && gpus)
		zap_add((uintptr_t)c->addr, (uintptr_t)(c->addr + c->len), gpus);
}

static const char *be_drained(void *be, unsigned g, int res)
{
	struct sim_hook_conn *conn = be;

	(void)res;
	if (conn) {
		conn->pending &= ~(UINT64_C(1) << g);
		conn->cp_mask &= ~(UINT64_C(1) << g);
	}
	return zap_drain(sim.gpu[g], true);
}

static void be_cleared(void *be, unsigned g, bool reset)
{
	struct sim_hook_conn *conn = be;

	if (conn)
		conn->cp_mask &= ~(UINT64_C(1) << g);
	if (reset)
		__atomic_fetch_add(&sim.gpu[g]->clears, 1, __ATOMIC_RELAXED);
	zap_drain(sim.gpu[g], false);
}

static void be_log(void *be, enum hipsvm_srv_ev ev, unsigned g, bool has_x, uint64_t x,
		   const char *word)
{
	static const char *const names[] = {
		[HIPSVM_SRV_EV_SET] = "set", [HIPSVM_SRV_EV_DRAIN] = "drain",
		[HIPSVM_SRV_EV_CLEAR] = "clear", [HIPSVM_SRV_EV_RANGE] = "range",
	};
	(void)be;
	log_event(names[ev], g, word, !word && has_x, x);
}

static void gpu_stats(struct hipsvm_out *o, const char *prefix, const struct hipsvm_sim_stats *s)
{
	static const char *const keys[] = { "sets", "drains", "drain_timeouts", "clears",
					    "faults_raised", "faults_handled", "faults_dropped",
					    "faults_real" };
	uint64_t v[8] = { s->sets, s->drains, s->drain_timeouts, s->clears, s->faults_raised,
			  s->faults_handled, s->faults_dropped, s->faults_real };
	char key[48];
	unsigned k;

	for (k = 0; k < 8; k++) {
		snprintf(key, sizeof(key), "%s%s", prefix, keys[k]);
		hipsvm_out_kv(o, key, v[k]);
	}
}

/* Per-GPU keys for as many GPUs as a client's reply parser holds tokens:
 * those the request lists (a client with more asks again for the rest),
 * else the first ones. */
#define STATS_GPUS ((HIPSVM_PROTO_MAX_TOKENS - 8) / 8)

static void be_stats(void *be, const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	uint64_t want = c->gpus ? c->gpus : ~UINT64_C(0);
	unsigned listed = 0;
	struct hipsvm_sim_stats sum, s[HIPSVM_MAX_GPUS];
	char prefix[16];
	unsigned i;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < sim.ngpu; i++) {
		sim_gpu_stats(sim.gpu[i], &s[i]);
		sum.sets += s[i].sets;
		sum.clears += s[i].clears;
		sum.faults_raised += s[i].faults_raised;
		sum.faults_handled += s[i].faults_handled;
		sum.faults_dropped += s[i].faults_dropped;
		sum.faults_real += s[i].faults_real;
		sum.drains += s[i].drains;
		sum.drain_timeouts += s[i].drain_timeouts;
	}
	(void)be;
	gpu_stats(o, "", &sum);
	for (i = 0; i < sim.ngpu && listed < STATS_GPUS; i++) {
		if (!((want >> i) & 1))
			continue;
		snprintf(prefix, sizeof(prefix), "g%u.", i);
		gpu_stats(o, prefix, &s[i]);
		listed++;
	}
}

static void be_log_format(void *be, struct hipsvm_out *o)
{
	uint64_t first, k, last = __atomic_load_n(&hs.seq, __ATOMIC_ACQUIRE);

	(void)be;
	first = last > SIM_LOG_LEN ? last - SIM_LOG_LEN : 0;
	for (k = first; k < last; k++) {
		const struct log_ev *e = &hs.log[k % SIM_LOG_LEN];
		struct log_ev v;

		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != k + 1)
			continue;	/* being written, or written over */
		v.op = LD(e->op);
		v.gpu = LD(e->gpu);
		v.word = LD(e->word);
		v.has_x = LD(e->has_x);
		v.x = LD(e->x);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LD(e->seq) != k + 1)
			continue;
		hipsvm_out_lit(o, " ");
		hipsvm_out_u64(o, k + 1);
		hipsvm_out_lit(o, ":");
		hipsvm_out_str(o, v.op);
		hipsvm_out_lit(o, ":");
		hipsvm_out_u64(o, v.gpu);
		if (v.word && v.word[0]) {
			hipsvm_out_lit(o, ":");
			hipsvm_out_str(o, v.word);
		} else if (v.has_x) {
			hipsvm_out_lit(o, ":");
			hipsvm_out_hex(o, v.x);
		}
	}
}

static int be_inject(void *be, const struct hipsvm_cmd *c, uint64_t *ts, const char **detail)
{
	struct sim_gpu *g = sim.gpu[c->gpu];
	int err;

	(void)be;
	err = sim_gpu_raise(g, (uintptr_t)c->addr, c->write, true, !c->ts_now, c->ts, 0, ts);
	if (err) {
		*detail = err == -ENOSPC ? "ring full" : "inject";
		return err;
	}
	log_event("inject", c->gpu, NULL, false, 0);
	return 0;
}

static int be_ring(void *be, const struct hipsvm_cmd *c, const char **detail)
{
	struct sim_gpu *g = sim.gpu[c->gpu];
	struct hipsvm_ring *r;

	(void)be;
	r = c->ring == HIPSVM_RING_IH0 ? g->irq.ih0 :
	    c->ring == HIPSVM_RING_IH1 ? g->irq.ih1 : g->irq.ih_soft;
	if (!r) {
		*detail = "no such ring";	/* no ih1 on an APU */
		return -ENODEV;
	}
	HIPSVM_STORE(&r->enabled, c->on ? 1u : 0u);
	sim_gpu_kick(g);
	log_event("ring", c->gpu, c->on ? "on" : "off", false, 0);
	return 0;
}

static const struct hipsvm_srv_ops sim_srv_ops = {
	.ngpus = be_ngpus,
	.irq = be_irq,
	.cp = be_cp,
	.set = be_set,
	.wait = be_wait,
	.range = be_range,
	.drained = be_drained,
	.cleared = be_cleared,
	.log = be_log,
	.stats = be_stats,
	.log_format = be_log_format,
	.inject = be_inject,
	.ring = be_ring,
	.set_gpus = be_set_gpus,
	.drained_gpus = be_drained_gpus,
};

/* One request line to one reply line in out; returns the reply length. */
int sim_hook_handle_line(struct sim_hook_conn *conn, const char *line, size_t len, char *out,
			 size_t cap)
{
	struct hipsvm_cmd c;
	size_t n;

	hipsvm_srv_request(&sim_srv_ops, conn, &c, line, len, out, cap, &n);
	return (int)n;
}

/* How long the server waits for the drains of a connection that is gone,
 * in all: the kernel module's bound for a process that closes its file. */
#define CONN_GONE_DRAIN_MS 1000

void sim_hook_conn_gone(struct sim_hook_conn *conn)
{
	char line[HIPSVM_PROTO_MAX_REQ + 1], out[HIPSVM_PROTO_MAX_REPLY];
	struct hipsvm_cmd c;
	uint64_t left, gpus = conn->pending | conn->cp_mask;
	int len;

	conn->pending = 0;
	if (!gpus)
		return;
	/* What the shim's drainclear does after its unmap, through the same
	 * path (and into the log): the GPUs it set drained and the ranges it
	 * remembered re-invalidated and forgotten; each checkpoint it set
	 * cleared if its drain passed and it is still the value set (another
	 * unmapper's is kept); one that timed out keeps its checkpoint, which
	 * the next newer fault clears. */
	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_DRAINCLEAR;
	c.gpus = gpus;
	c.has_timeout = true;
	/* the bound is for all its GPUs: the server's other clients wait */
	c.timeout_ms = CONN_GONE_DRAIN_MS / (uint32_t)__builtin_popcountll(gpus);
	for (left = conn->cp_mask; left; left &= left - 1) {
		unsigned g = (unsigned)__builtin_ctzll(left);

		c.has_value |= UINT64_C(1) << g;
		c.value[g] = conn->cp[g];
	}
	conn->cp_mask = 0;
	len = hipsvm_proto_format(&c, line, sizeof(line));
	if (len > 0)
		sim_hook_handle_line(NULL, line, (size_t)len, out, sizeof(out));
}
