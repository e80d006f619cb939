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
 * between) and log whether the CPU unmap had already happened (mincore
 * answers ENOMEM). The pages that the CPU unmap took leave their allocation
 * then: a fault on them is real from then on, even once another mapping
 * reuses the address, and hipFree does not unmap them again.
 */
#include "sim.h"

#include <stdio.h>
#include <sys/mman.h>

#define DEFAULT_DRAIN_MS 1000

struct zap {
	uintptr_t start, end;
	uint64_t gpus;
	bool gone;	/* seen unmapped from the CPU, its pages released */
};

struct log_ev {
	uint64_t seq;
	enum hipsvm_op op;
	unsigned gpu;
	char extra[12];
};

static struct {
	pthread_mutex_t zap_lock;
	struct zap zap[SIM_ZAP_MAX];
	unsigned nzap;
	pthread_mutex_t log_lock;
	struct log_ev log[SIM_LOG_LEN];
	uint64_t seq;
	uint64_t drains, drain_timeouts;
} hs;

void sim_hook_cmds_reset(void)
{
	memset(&hs, 0, sizeof(hs));
	pthread_mutex_init(&hs.zap_lock, NULL);
	pthread_mutex_init(&hs.log_lock, NULL);
}

static void log_event(enum hipsvm_op op, unsigned gpu, const char *extra)
{
	struct log_ev *e;

	pthread_mutex_lock(&hs.log_lock);
	e = &hs.log[hs.seq % SIM_LOG_LEN];
	e->seq = ++hs.seq;
	e->op = op;
	e->gpu = gpu;
	snprintf(e->extra, sizeof(e->extra), "%s", extra ? extra : "");
	pthread_mutex_unlock(&hs.log_lock);
}

static void zap_add(uintptr_t start, uintptr_t end, uint64_t gpus)
{
	pthread_mutex_lock(&hs.zap_lock);
	if (hs.nzap == SIM_ZAP_MAX) {
		/* the oldest goes: its drain re-check is lost, not its unmap */
		memmove(&hs.zap[0], &hs.zap[1], (SIM_ZAP_MAX - 1) * sizeof(hs.zap[0]));
		hs.nzap--;
	}
	hs.zap[hs.nzap++] = (struct zap){ start, end, gpus, false };
	pthread_mutex_unlock(&hs.zap_lock);
}

static bool cpu_unmapped(uintptr_t start, uintptr_t end)
{
	unsigned char v;
	uintptr_t p;

	for (p = start & ~(uintptr_t)(SIM_PAGE - 1); p < end; p += SIM_PAGE)
		if (mincore((void *)p, SIM_PAGE, &v) == 0 || errno != ENOMEM)
			return false;
	return true;
}

/* After a drain on g: invalidate every remembered range of g once more and
 * forget g in it. Returns "unmapped"/"mapped" for the log, NULL if none. */
static const char *zap_drain(struct sim_gpu *g, bool invalidate)
{
	const char *word = NULL;
	uint64_t bit = UINT64_C(1) << g->index;
	unsigned i = 0;

	pthread_mutex_lock(&hs.zap_lock);
	while (i < hs.nzap) {
		struct zap *z = &hs.zap[i];

		if (!(z->gpus & bit)) {
			i++;
			continue;
		}
		if (invalidate) {
			/* First the pages the CPU unmap took leave their
			 * allocation, so that no fault maps them again even
			 * when a new mapping reuses the address; then this
			 * GPU forgets what was mapped since the set. Once the
			 * range is wholly gone that is known for every GPU
			 * of the drain; a range still (partly) mapped may be
			 * another unmapper's whose CPU unmap is yet to come,
			 * so the next GPU looks again. */
			if (!z->gone) {
				sim_map_release_unmapped(z->start, z->end);
				z->gone = cpu_unmapped(z->start, z->end);
			}
			sim_gpu_unmap_range(g, z->start, z->end);
			word = z->gone ? "unmapped" : "mapped";
		}
		z->gpus &= ~bit;
		if (!z->gpus) {
			memmove(z, z + 1, (hs.nzap - i - 1) * sizeof(*z));
			hs.nzap--;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&hs.zap_lock);
	return word;
}

static uint64_t valid_mask(void)
{
	return sim.ngpu >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << sim.ngpu) - 1;
}

static void do_set(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	uint64_t mask = c->gpus & valid_mask();
	uintptr_t start = (uintptr_t)c->addr, end = (uintptr_t)(c->addr + c->len);
	unsigned i;

	hipsvm_out_str(o, "ok set");
	for (i = 0; i < sim.ngpu; i++) {
		uint64_t ts = 0;

		if (!((mask >> i) & 1))
			continue;
		if (sim_gpu_set(sim.gpu[i], c->has_range, start, end, &ts) == 1) {
			hipsvm_out_str(o, " ");
			hipsvm_out_u64(o, i);
			hipsvm_out_str(o, "=");
			hipsvm_out_hex(o, ts);
		} else {
			hipsvm_out_gpu_word(o, i, "none");
		}
		log_event(HIPSVM_OP_SET, i, NULL);
	}
	if (c->has_range && mask)
		zap_add(start, end, mask);
}

static void do_drain(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	uint64_t ms = c->has_timeout ? c->timeout_ms : DEFAULT_DRAIN_MS;
	unsigned i;

	hipsvm_out_str(o, "ok drain");
	for (i = 0; i < HIPSVM_MAX_GPUS; i++) {
		struct sim_gpu *g = sim_gpu((int)i);
		const char *word, *extra;
		char buf[12];
		int r;

		if (!((c->gpus >> i) & 1) || (c->all && !g))
			continue;
		if (!g) {
			hipsvm_out_gpu_word(o, i, "nodev");
			continue;
		}
		r = hipsvm_cp_drain(&g->cp, &g->irq, ms * 1000000u);
		word = r == 0 ? "ok" : r == -ETIME ? "timeout" :
		       r == HIPSVM_DRAIN_SKIPPED ? "skipped" : "nodev";
		extra = zap_drain(g, true);
		__atomic_fetch_add(&hs.drains, 1, __ATOMIC_RELAXED);
		if (r == -ETIME)
			__atomic_fetch_add(&hs.drain_timeouts, 1, __ATOMIC_RELAXED);
		hipsvm_out_gpu_word(o, i, word);
		snprintf(buf, sizeof(buf), "%s", extra ? extra : "");
		log_event(HIPSVM_OP_DRAIN, i, extra ? buf : NULL);
	}
}

static void do_clear(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	uint64_t mask = c->gpus & valid_mask();
	unsigned i;

	hipsvm_out_str(o, "ok clear");
	for (i = 0; i < sim.ngpu; i++) {
		struct sim_gpu *g = sim.gpu[i];
		uint64_t expect;
		int r;

		if (!((mask >> i) & 1))
			continue;
		expect = ((c->has_value >> i) & 1) ? c->value[i] : HIPSVM_CP_ANY;
		r = hipsvm_cp_clear(&g->cp, expect);
		if (r)
			__atomic_fetch_add(&g->clears, 1, __ATOMIC_RELAXED);
		zap_drain(g, false);
		hipsvm_out_gpu_word(o, i, r ? "cleared" : "kept");
		log_event(HIPSVM_OP_CLEAR, i, NULL);
	}
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

static void do_stats(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	uint64_t want = c->gpus ? c->gpus : ~UINT64_C(0);
	unsigned listed = 0;
	struct hipsvm_sim_stats sum, s[HIPSVM_MAX_GPUS];
	char prefix[16];
	unsigned i;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < sim.ngpu; i++) {
		hipsvmSimGetStats((int)i, &s[i]);
		sum.sets += s[i].sets;
		sum.clears += s[i].clears;
		sum.faults_raised += s[i].faults_raised;
		sum.faults_handled += s[i].faults_handled;
		sum.faults_dropped += s[i].faults_dropped;
		sum.faults_real += s[i].faults_real;
	}
	sum.drains = __atomic_load_n(&hs.drains, __ATOMIC_RELAXED);
	sum.drain_timeouts = __atomic_load_n(&hs.drain_timeouts, __ATOMIC_RELAXED);
	hipsvm_out_str(o, "ok stats");
	gpu_stats(o, "", &sum);
	for (i = 0; i < sim.ngpu && listed < STATS_GPUS; i++) {
		if (!((want >> i) & 1))
			continue;
		snprintf(prefix, sizeof(prefix), "g%u.", i);
		gpu_stats(o, prefix, &s[i]);
		listed++;
	}
}

static void do_log(struct hipsvm_out *o)
{
	uint64_t first, k;

	hipsvm_out_str(o, "ok log");
	pthread_mutex_lock(&hs.log_lock);
	first = hs.seq > SIM_LOG_LEN ? hs.seq - SIM_LOG_LEN : 0;
	for (k = first; k < hs.seq; k++) {
		const struct log_ev *e = &hs.log[k % SIM_LOG_LEN];

		hipsvm_out_str(o, " ");
		hipsvm_out_u64(o, e->seq);
		hipsvm_out_str(o, ":");
		hipsvm_out_str(o, hipsvm_op_name(e->op));
		hipsvm_out_str(o, ":");
		hipsvm_out_u64(o, e->gpu);
		if (e->extra[0]) {
			hipsvm_out_str(o, ":");
			hipsvm_out_str(o, e->extra);
		}
	}
	pthread_mutex_unlock(&hs.log_lock);
}

static int do_inject(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	struct sim_gpu *g = sim_gpu((int)c->gpu);
	uint64_t ts = 0;
	int err;

	if (!g)
		return -ENODEV;
	err = sim_gpu_raise(g, (uintptr_t)c->addr, c->write, true, !c->ts_now, c->ts, 0, &ts);
	if (err)
		return err;
	hipsvm_out_str(o, "ok inject ");
	hipsvm_out_u64(o, c->gpu);
	hipsvm_out_str(o, "=");
	hipsvm_out_hex(o, ts);
	log_event(HIPSVM_OP_INJECT, c->gpu, NULL);
	return 0;
}

static int do_ring(const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	struct sim_gpu *g = sim_gpu((int)c->gpu);
	struct hipsvm_ring *r;

	if (!g)
		return -ENODEV;
	r = c->ring == HIPSVM_RING_IH0 ? g->irq.ih0 :
	    c->ring == HIPSVM_RING_IH1 ? g->irq.ih1 : g->irq.ih_soft;
	if (!r)
		return -ENODEV;		/* no ih1 on an APU */
	HIPSVM_STORE(&r->enabled, c->on ? 1u : 0u);
	sim_gpu_kick(g);
	hipsvm_out_str(o, "ok ring");
	log_event(HIPSVM_OP_RING, c->gpu, c->on ? "on" : "off");
	return 0;
}

/* One request line to one reply line in out; returns the reply length. */
int sim_hook_handle_line(const char *line, size_t len, char *out, size_t cap)
{
	struct hipsvm_cmd c;
	struct hipsvm_out o;
	int err = 0, n;

	if (hipsvm_proto_parse(line, len, &c) != 0)
		return hipsvm_proto_error(out, cap, -EINVAL, "malformed request");
	hipsvm_out_init(&o, out, cap);
	switch (c.op) {
	case HIPSVM_OP_VERSION:
		hipsvm_out_str(&o, "ok version ");
		hipsvm_out_u64(&o, HIPSVM_PROTO_VERSION);
		hipsvm_out_str(&o, " hipsvm-hook");
		break;
	case HIPSVM_OP_GPUS:
		hipsvm_out_str(&o, "ok gpus");
		hipsvm_out_kv(&o, "n", sim.ngpu);
		break;
	case HIPSVM_OP_SET: do_set(&c, &o); break;
	case HIPSVM_OP_DRAIN: do_drain(&c, &o); break;
	case HIPSVM_OP_CLEAR: do_clear(&c, &o); break;
	case HIPSVM_OP_STATS: do_stats(&c, &o); break;
	case HIPSVM_OP_LOG: do_log(&o); break;
	case HIPSVM_OP_INJECT: err = do_inject(&c, &o); break;
	case HIPSVM_OP_RING: err = do_ring(&c, &o); break;
	default: err = -EINVAL; break;
	}
	if (err)
		return hipsvm_proto_error(out, cap, err, hipsvm_op_name(c.op));
	n = hipsvm_out_end(&o);
	if (n < 0)
		return hipsvm_proto_error(out, cap, -ENOSPC, "reply too long");
	return n;
}

