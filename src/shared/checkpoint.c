/* SPDX-License-Identifier: MIT */
/* checkpoint.c - set / filter / clear / drain predicate; user space and kernel. */
#include "shared/checkpoint.h"

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
	uint64_t want;

	if (!r) {
		HIPSVM_ADD(&c->stats.sets_empty, 1);
		return 0;
	}
	want = hipsvm_ring_decode_ts(r, hipsvm_ring_wptr(r), -1) | HIPSVM_CP_VALID;
	/* Overwritten, not compared: a value older than 2^47 ticks reads as
	 * newer than any fresh one. Sets are serialised by the caller, so a
	 * later set read the ring later; a filter that clears in between does
	 * so with a compare-and-swap from what it saw, which then fails. */
	HIPSVM_STORE_REL(&c->ts, want);
	HIPSVM_STORE_REL(&c->last_set, want);	/* after ts: see the filter */
	HIPSVM_ADD(&c->stats.sets, 1);
	if (ts)
		*ts = want & HIPSVM_TS_MASK;
	return 1;
}

int hipsvm_cp_filter(struct hipsvm_cp *c, uint64_t ts)
{
	/* last_set before ts: a filter that sees a set's last_set also sees
	 * its checkpoint, so a fault handled just before a set took effect is
	 * not counted as stale. */
	uint64_t last = HIPSVM_LOAD_ACQ(&c->last_set);
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
	if (last != 0 && hipsvm_ts_after_or_equal(ts, last & HIPSVM_TS_MASK))
		HIPSVM_ADD(&c->stats.stale, 1);
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

static bool ring_on(const struct hipsvm_ring *r)
{
	return r && HIPSVM_LOAD(&r->enabled);
}

/* The acquire on wptr is the kernel's rmb(): the IV before wptr is complete
 * when we read its timestamp. */
static uint64_t fresh_checkpoint(const struct hipsvm_ring *r)
{
	return hipsvm_ring_decode_ts(r, hipsvm_ring_wptr(r), -1);
}

int hipsvm_cp_drain_begin(const struct hipsvm_gpu_irq *g, struct hipsvm_drain *d)
{
	d->n = 0;
	d->cur = 0;
	d->err = 0;
	if (HIPSVM_LOAD(&g->shutdown))
		return -ENODEV;
	if (HIPSVM_LOAD(&g->in_reset))
		return HIPSVM_DRAIN_SKIPPED;
	if (HIPSVM_LOAD(&g->retry_cam)) {
		d->ring[d->n++] = g->ih0;
		d->ring[d->n++] = g->ih_soft;
	} else {
		d->ring[d->n++] = g->ih1;
	}
	if (!ring_on(d->ring[0]) || (d->n > 1 && !ring_on(d->ring[1])))
		return -ENODEV;
	d->checkpoint = fresh_checkpoint(d->ring[0]);
	d->first = d->checkpoint;
	return 0;
}

static bool ring_passed(const struct hipsvm_ring *r, uint64_t checkpoint)
{
	uint64_t processed = HIPSVM_LOAD_ACQ(&r->processed_ts);

	return hipsvm_ts_after(checkpoint, processed) || hipsvm_ring_empty(r);
}

bool hipsvm_cp_drain_poll(struct hipsvm_drain *d)
{
	while (d->cur < d->n) {
		struct hipsvm_ring *next;

		if (!ring_passed(d->ring[d->cur], d->checkpoint))
			return false;
		if (++d->cur == d->n)
			break;
		/* The ring before has been processed past its checkpoint:
		 * what it passed on is in this one now (the handler writes it
		 * before it publishes its own progress), so this checkpoint
		 * covers it. */
		next = d->ring[d->cur];
		if (!ring_on(next)) {
			d->err = -ENODEV;
			d->cur = d->n;
			break;
		}
		d->checkpoint = fresh_checkpoint(next);
	}
	return true;
}

unsigned hipsvm_cp_drain_left(const struct hipsvm_drain *d)
{
	unsigned i, left = 0;

	for (i = 1; i < d->n; i++) {
		const struct hipsvm_ring *r = d->ring[i];
		uint32_t p = HIPSVM_LOAD_ACQ(&r->rptr), w = hipsvm_ring_wptr(r);
		unsigned k;

		/* Bounded by the ring's size; a slot reused meanwhile holds a
		 * newer IV, which is not counted. */
		for (k = 0; p != w && k < r->size / HIPSVM_IV_BYTES; k++) {
			if (hipsvm_ts_after_or_equal(hipsvm_ring_decode_ts(r, p, 0), d->first))
				left++;
			p = (p + HIPSVM_IV_BYTES) & r->ptr_mask;
		}
	}
	return left;
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
