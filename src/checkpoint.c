/* SPDX-License-Identifier: MIT */
/* checkpoint.c - set / filter / clear / drain predicate; user space and kernel. */
#include "checkpoint.h"

uint64_t hipsvm_cp_get(const struct hipsvm_cp *cp)
{
	return HIPSVM_LOAD_ACQ(&cp->ts) & HIPSVM_TS_MASK;
}

bool hipsvm_cp_isset(const struct hipsvm_cp *cp)
{
	return HIPSVM_LOAD_ACQ(&cp->ts) != 0;
}

static struct hipsvm_ring *set_ring(const struct hipsvm_gpu_irq *g)
{
	if (g->ih1 && !HIPSVM_LOAD(&g->retry_cam) && !hipsvm_ring_empty(g->ih1))
		return g->ih1;
	if (g->ih_soft && !hipsvm_ring_empty(g->ih_soft))
		return g->ih_soft;
	return NULL;
}

int hipsvm_cp_set(struct hipsvm_cp *c, const struct hipsvm_gpu_irq *g, uint64_t *ts)
{
	struct hipsvm_ring *r = set_ring(g);
	uint64_t want, cur;

	if (!r) {
		HIPSVM_ADD(&c->stats.sets_empty, 1);
		return 0;
	}
	want = hipsvm_ring_decode_ts(r, hipsvm_ring_wptr(r), -1) | HIPSVM_CP_VALID;
	cur = HIPSVM_LOAD_ACQ(&c->ts);
	for (;;) {
		uint64_t seen;

		if (cur != 0 && hipsvm_ts_after_or_equal(want & HIPSVM_TS_MASK,
							 cur & HIPSVM_TS_MASK))
			break;	/* a later checkpoint is already in force */
		seen = hipsvm_cmpxchg64(&c->ts, cur, want);
		if (seen == cur) {
			cur = want;
			break;
		}
		cur = seen;
	}
	HIPSVM_ADD(&c->stats.sets, 1);
	if (ts)
		*ts = cur & HIPSVM_TS_MASK;
	return 1;
}

int hipsvm_cp_filter(struct hipsvm_cp *c, uint64_t ts)
{
	uint64_t cp = HIPSVM_LOAD_ACQ(&c->ts);

	if (cp != 0) {
		/* ts_after_or_equal(ts, cp): cp is at or after the fault, i.e. the
		 * fault is at or before the checkpoint. */
		if (hipsvm_ts_after_or_equal(ts, cp & HIPSVM_TS_MASK)) {
			HIPSVM_ADD(&c->stats.dropped, 1);
			return -EAGAIN;
		}
		/* Strictly newer: clear, so that an old value is never compared
		 * with a timestamp from after a wrap. Only from the value we saw. */
		if (hipsvm_cmpxchg64(&c->ts, cp, 0) == cp)
			HIPSVM_ADD(&c->stats.cleared_by_fault, 1);
	}
	HIPSVM_ADD(&c->stats.handled, 1);
	return 0;
}

int hipsvm_cp_clear(struct hipsvm_cp *c, uint64_t expect)
{
	uint64_t cur = HIPSVM_LOAD_ACQ(&c->ts);

	if (cur == 0)
		return 0;
	if (expect != HIPSVM_CP_ANY && (cur & HIPSVM_TS_MASK) != expect)
		return 0;
	if (hipsvm_cmpxchg64(&c->ts, cur, 0) != cur)
		return 0;
	HIPSVM_ADD(&c->stats.clears, 1);
	return 1;
}

static int drain_add(struct hipsvm_drain *d, struct hipsvm_ring *r)
{
	uint32_t wptr;

	if (!r || !HIPSVM_LOAD(&r->enabled))
		return -ENODEV;
	/* The acquire on wptr is the kernel's rmb(): the IV before wptr is
	 * complete when we read its timestamp. */
	wptr = hipsvm_ring_wptr(r);
	d->ring[d->n] = r;
	d->checkpoint[d->n] = hipsvm_ring_decode_ts(r, wptr, -1);
	d->n++;
	return 0;
}

int hipsvm_cp_drain_begin(const struct hipsvm_gpu_irq *g, struct hipsvm_drain *d)
{
	int err;

	d->n = 0;
	if (HIPSVM_LOAD(&g->shutdown))
		return -ENODEV;
	if (HIPSVM_LOAD(&g->in_reset))
		return HIPSVM_DRAIN_SKIPPED;
	if (HIPSVM_LOAD(&g->retry_cam)) {
		err = drain_add(d, g->ih0);
		if (!err)
			err = drain_add(d, g->ih_soft);
		return err;
	}
	return drain_add(d, g->ih1);
}

bool hipsvm_cp_drain_done(const struct hipsvm_drain *d)
{
	unsigned i;

	for (i = 0; i < d->n; i++) {
		const struct hipsvm_ring *r = d->ring[i];
		uint64_t processed = HIPSVM_LOAD_ACQ(&r->processed_ts);

		if (hipsvm_ts_after(d->checkpoint[i], processed))
			continue;
		if (hipsvm_ring_empty(r))
			continue;
		return false;
	}
	return true;
}

void hipsvm_cp_drain_account(struct hipsvm_cp *c, int result)
{
	if (!c)
		return;
	HIPSVM_ADD(&c->stats.drains, 1);
	if (result == -ETIME)
		HIPSVM_ADD(&c->stats.drain_timeouts, 1);
	else if (result == -ENODEV)
		HIPSVM_ADD(&c->stats.drain_nodev, 1);
	else if (result == HIPSVM_DRAIN_SKIPPED)
		HIPSVM_ADD(&c->stats.drain_skipped, 1);
}
