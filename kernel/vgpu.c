// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vgpu.c - virtual GPUs standing in for amdgpu.
 *
 * Each virtual GPU has the three interrupt rings of a dGPU (ih0, ih1 for retry
 * faults, ih_soft), a 48-bit clock, and an ordered workqueue that plays the
 * interrupt handler: hipsvm_ring_process() from src/shared/ring.c dispatches each IV
 * to the fault path, which looks the process up by PASID and asks
 * hipsvm_cp_filter() whether the fault was raised on a mapping being torn down.
 * An ordered workqueue runs one work item at a time, which is what the ring's
 * single-consumer contract needs.
 *
 * The clock does not tick on its own: "now" is the next value of a counter,
 * so that tests can predict timestamps; an injection with a chosen timestamp
 * later than the clock moves the clock past it, keeping "now" monotonic as
 * the hardware's is.
 */
#include <linux/slab.h>
#include <linux/sched.h>

#include "hipsvm_kmod.h"

struct hipsvm_vgpu *hipsvm_vgpus;

static void vgpu_wake(void *arg)
{
	struct hipsvm_vgpu *g = arg;

	wake_up_all(&g->wq);
}

/* The fault path: amdgpu's gmc_v9_0_process_interrupt() ends up in
 * svm_range_restore_pages(), which filters on the checkpoint first. */
static void vgpu_dispatch(void *arg, const u32 *dw, u64 ts)
{
	struct hipsvm_vgpu *g = arg;
	struct hipsvm_proc *p;
	struct hipsvm_iv iv;
	int r;

	hipsvm_iv_decode(dw, &iv);
	if ((iv.client_id != HIPSVM_IH_CLIENT_VMC &&
	     iv.client_id != HIPSVM_IH_CLIENT_UTCL2) || !hipsvm_iv_fault_retry(&iv)) {
		atomic64_inc(&g->not_fault);
		return;
	}
	atomic64_inc(&g->faults);
	p = hipsvm_proc_get_by_pasid(iv.pasid);
	if (!p) {
		/* The process closed its last hook file: nothing to restore. */
		atomic64_inc(&g->unknown_pasid);
		return;
	}
	r = hipsvm_cp_filter(&p->cp[g->idx], ts);
	/* A handled fault would restore the page here; this GPU has no page
	 * tables, so the decision is only recorded. */
	hipsvm_proc_log(p, r ? HIPSVM_EV_DROPPED : HIPSVM_EV_HANDLED, g->idx, true, ts, NULL);
	hipsvm_proc_put(p);
}

/* With the retry CAM, or on an APU (no ih1), retry faults arrive on ih0,
 * whose interrupt handler passes them on to ih_soft with their timestamps
 * (amdgpu_irq_delegate); a full soft ring loses the new IV and the GPU
 * would retry it. */
static bool delegates(const struct hipsvm_vgpu *g)
{
	return READ_ONCE(g->irq.retry_cam) || !g->irq.ih1;
}

static void vgpu_delegate(void *arg, const u32 *dw, u64 ts)
{
	struct hipsvm_vgpu *g = arg;
	struct hipsvm_iv iv;
	int err = -ENODEV;

	hipsvm_iv_decode(dw, &iv);
	if ((iv.client_id != HIPSVM_IH_CLIENT_VMC && iv.client_id != HIPSVM_IH_CLIENT_UTCL2) ||
	    !hipsvm_iv_fault_retry(&iv)) {
		vgpu_dispatch(arg, dw, ts);
		return;
	}
	spin_lock(&g->prod_lock);
	if (READ_ONCE(g->irq.ih_soft->enabled))
		err = hipsvm_ring_write(g->irq.ih_soft, dw);
	spin_unlock(&g->prod_lock);
	if (err) {
		struct hipsvm_proc *p = hipsvm_proc_get_by_pasid(iv.pasid);

		atomic64_inc(&g->soft_lost);
		if (p) {
			atomic64_inc(&p->lost);
			hipsvm_proc_put(p);
		}
	}
}

/* ih0 is the interrupt handler (top half): it runs even while the GPU is
 * paused, which holds back only the work that filters faults (ih1, and
 * ih_soft, or ih0 itself when it does not delegate). */
static void vgpu_work(struct work_struct *w)
{
	struct hipsvm_vgpu *g = container_of(w, struct hipsvm_vgpu, work);
	bool delegate = delegates(g);
	int i;

	if (delegate && READ_ONCE(g->ring[HIPSVM_RING_IH0].enabled) &&
	    !(READ_ONCE(g->paused) && READ_ONCE(g->hold_ih0)))
		hipsvm_ring_process(&g->ring[HIPSVM_RING_IH0], vgpu_delegate, g, vgpu_wake, g);
	if (READ_ONCE(g->paused)) {
		wake_up_all(&g->wq);
		return;
	}
	for (i = 0; i < HIPSVM_NRINGS; i++) {
		if (!READ_ONCE(g->ring[i].enabled) || (delegate && i == HIPSVM_RING_IH0) ||
		    (i == HIPSVM_RING_IH1 && !g->irq.ih1))
			continue;
		hipsvm_ring_process(&g->ring[i], vgpu_dispatch, g, vgpu_wake, g);
	}
	/* Drainers of an empty ring or of a ring that was switched off
	 * re-check their condition. */
	wake_up_all(&g->wq);
}

void hipsvm_vgpu_kick(unsigned int gpu)
{
	queue_work(hipsvm_vgpus[gpu].wqueue, &hipsvm_vgpus[gpu].work);
}

static struct hipsvm_ring *fault_ring(struct hipsvm_vgpu *g)
{
	/* Retry faults go to ih1 unless the retry CAM is on (then ih0). */
	if (g->irq.ih1 && !READ_ONCE(g->irq.retry_cam))
		return g->irq.ih1;
	return g->irq.ih0;
}

int hipsvm_vgpu_inject(unsigned int gpu, bool now, u64 ts, u64 addr, bool write,
		       u16 pasid, u64 *used)
{
	struct hipsvm_vgpu *g;
	struct hipsvm_ring *r;
	struct hipsvm_iv iv;
	u32 dw[HIPSVM_IV_DWORDS];
	int err;

	if (gpu >= hipsvm_ngpus)
		return -ENODEV;
	g = &hipsvm_vgpus[gpu];
	r = fault_ring(g);
	spin_lock(&g->prod_lock);
	if (!READ_ONCE(r->enabled)) {
		spin_unlock(&g->prod_lock);
		return -ENODEV;
	}
	if (now)
		ts = g->clock;
	ts &= HIPSVM_TS_MASK;
	hipsvm_iv_make_fault(&iv, addr, write, ts, pasid, (u8)gpu);
	hipsvm_iv_encode(&iv, dw);
	err = hipsvm_ring_write(r, dw);
	if (!err && hipsvm_ts_after_or_equal(g->clock, ts))
		g->clock = hipsvm_ts_add(ts, 1);
	spin_unlock(&g->prod_lock);
	if (err)
		return err;
	*used = ts;
	hipsvm_vgpu_kick(gpu);
	return 0;
}

int hipsvm_vgpu_ring_enable(unsigned int gpu, enum hipsvm_ring_id id, bool on)
{
	struct hipsvm_vgpu *g;

	if (gpu >= hipsvm_ngpus)
		return -ENODEV;
	if ((unsigned int)id >= HIPSVM_NRINGS)
		return -EINVAL;
	g = &hipsvm_vgpus[gpu];
	if (id == HIPSVM_RING_IH1 && !g->irq.ih1)
		return -ENODEV;		/* an APU has none */
	spin_lock(&g->prod_lock);
	WRITE_ONCE(g->ring[id].enabled, on ? 1 : 0);
	spin_unlock(&g->prod_lock);
	hipsvm_vgpu_kick(gpu);
	return 0;
}

void hipsvm_vgpu_set_paused(unsigned int gpu, bool paused, bool ih0)
{
	struct hipsvm_vgpu *g = &hipsvm_vgpus[gpu];

	WRITE_ONCE(g->hold_ih0, paused && ih0);
	WRITE_ONCE(g->paused, paused);
	if (paused)
		/* A pass already running would go on until the rings are
		 * empty, taking IVs injected after the pause: wait for it, so
		 * that once the write returns nothing is processed. */
		flush_work(&g->work);
	else
		hipsvm_vgpu_kick(gpu);
}

static int vgpu_init(struct hipsvm_vgpu *g, unsigned int idx)
{
	int i, err;

	g->idx = idx;
	init_waitqueue_head(&g->wq);
	spin_lock_init(&g->prod_lock);
	INIT_WORK(&g->work, vgpu_work);
	g->clock = hipsvm_clock_start & HIPSVM_TS_MASK;
	for (i = 0; i < HIPSVM_NRINGS; i++) {
		g->buf[i] = kzalloc(hipsvm_ring_bytes, GFP_KERNEL);
		if (!g->buf[i])
			return -ENOMEM;
		err = hipsvm_ring_init(&g->ring[i], g->buf[i], hipsvm_ring_bytes,
				       i == HIPSVM_RING_SOFT);
		if (err)
			return err;
		hipsvm_ring_set_clock_start(&g->ring[i], g->clock);
	}
	g->irq.ih0 = &g->ring[HIPSVM_RING_IH0];
	g->irq.ih1 = hipsvm_apu ? NULL : &g->ring[HIPSVM_RING_IH1];
	g->irq.ih_soft = &g->ring[HIPSVM_RING_SOFT];
	g->irq.retry_cam = hipsvm_retry_cam;
	g->wqueue = alloc_ordered_workqueue("hipsvm_gpu%u", 0, idx);
	if (!g->wqueue)
		return -ENOMEM;
	return 0;
}

static void vgpu_fini(struct hipsvm_vgpu *g)
{
	int i;

	WRITE_ONCE(g->irq.shutdown, 1);
	if (g->wqueue) {
		cancel_work_sync(&g->work);
		destroy_workqueue(g->wqueue);
	}
	for (i = 0; i < HIPSVM_NRINGS; i++)
		kfree(g->buf[i]);
}

int hipsvm_vgpu_init_all(void)
{
	unsigned int i;
	int err;

	hipsvm_vgpus = kcalloc(hipsvm_ngpus, sizeof(*hipsvm_vgpus), GFP_KERNEL);
	if (!hipsvm_vgpus)
		return -ENOMEM;
	for (i = 0; i < hipsvm_ngpus; i++) {
		err = vgpu_init(&hipsvm_vgpus[i], i);
		if (err) {
			hipsvm_ngpus = i + 1;	/* fini the partial one too */
			hipsvm_vgpu_fini_all();
			return err;
		}
	}
	return 0;
}

void hipsvm_vgpu_fini_all(void)
{
	unsigned int i;

	if (!hipsvm_vgpus)
		return;
	for (i = 0; i < hipsvm_ngpus; i++)
		vgpu_fini(&hipsvm_vgpus[i]);
	kfree(hipsvm_vgpus);
	hipsvm_vgpus = NULL;
}
