// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * proc.c - per-process state of the hook.
 *
 * A process is its address space: every open of the hook file by any thread
 * sharing one mm shares one struct hipsvm_proc, created on the first open.
 * Each one gets a PASID, as KFD gives one to every process that opens
 * /dev/kfd; the virtual GPUs stamp it into the fault IVs and the fault path
 * finds the process by it. PASIDs are allocated (1..65535, lowest free
 * first) rather than taken from the tgid, so that two live processes can
 * never share one.
 *
 * The last close drains every GPU, as upstream's svm_range_list_fini() does
 * before the PASID goes: a fault still queued for the process must not be
 * filtered against, and counted for, the next process that gets the same
 * PASID. The drain is bounded (HIPSVM_CLOSE_DRAIN_MS in all); a process
 * whose faults are still queued then (a paused handler, a ring switched
 * off) is "dying": it keeps its PASID, its faults count as unknown_pasid,
 * and a worker looks again every 20 ms until they are gone.
 *
 * Locking: hipsvm_procs_lock (a mutex) guards both lists, the file counts
 * and the worker's drains; the xarray's own spinlock guards PASID lookups,
 * which take a reference with kref_get_unless_zero(). A process leaves the
 * xarray before its last reference is dropped.
 */
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/xarray.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>

#include "hipsvm_kmod.h"

static LIST_HEAD(hipsvm_procs);
static LIST_HEAD(hipsvm_dying);
static DEFINE_MUTEX(hipsvm_procs_lock);
static DEFINE_XARRAY_ALLOC1(hipsvm_pasids);
static atomic64_t hipsvm_log_seq = ATOMIC64_INIT(0);
static unsigned int hipsvm_nprocs, hipsvm_ndying;
static bool hipsvm_stopping;
static void reap(struct work_struct *w);
static DECLARE_DELAYED_WORK(hipsvm_reaper, reap);

static void proc_release(struct kref *ref)
{
	struct hipsvm_proc *p = container_of(ref, struct hipsvm_proc, ref);

	mmdrop(p->mm);
	kfree(p);
}

void hipsvm_proc_put(struct hipsvm_proc *p)
{
	kref_put(&p->ref, proc_release);
}

/* No fault of p is queued any more: its PASID may be given out again. */
static void retire(struct hipsvm_proc *p)
{
	xa_erase(&hipsvm_pasids, p->pasid);
	hipsvm_proc_put(p);
}

struct hipsvm_proc *hipsvm_proc_open_current(void)
{
	struct mm_struct *mm = current->mm;
	struct hipsvm_proc *p;
	int err;

	if (!mm)
		return ERR_PTR(-EPERM);
	mutex_lock(&hipsvm_procs_lock);
	list_for_each_entry(p, &hipsvm_procs, node) {
		if (p->mm == mm) {
			p->files++;
			mutex_unlock(&hipsvm_procs_lock);
			return p;
		}
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		mutex_unlock(&hipsvm_procs_lock);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&p->ref);
	mmgrab(mm);
	p->mm = mm;
	p->tgid = current->tgid;
	p->files = 1;
	spin_lock_init(&p->lock);
	mutex_init(&p->set_lock);
	err = xa_alloc(&hipsvm_pasids, &p->pasid, p, XA_LIMIT(1, 0xffff), GFP_KERNEL);
	if (err) {
		mutex_unlock(&hipsvm_procs_lock);
		mmdrop(mm);
		kfree(p);
		return ERR_PTR(err == -EBUSY ? -ENOSPC : err);
	}
	list_add(&p->node, &hipsvm_procs);
	hipsvm_nprocs++;
	mutex_unlock(&hipsvm_procs_lock);
	return p;
}

/* One step of the drain of GPU g at close, without sleeping: true when g
 * needs nothing more. Run by the closer, then by the worker, never both. */
static bool close_step(struct hipsvm_proc *p, unsigned int g)
{
	struct hipsvm_vgpu *vg = &hipsvm_vgpus[g];
	struct hipsvm_drain *d = &p->close_drain[g];
	u64 bit = 1ULL << g;
	int r;

	if (!(p->closing & bit))
		return true;
	if (!(p->begun & bit)) {
		r = hipsvm_cp_drain_begin(&vg->irq, d);
		/* A ring switched off keeps its IVs: look again later. */
		if (r == -ENODEV && !READ_ONCE(vg->irq.shutdown))
			return false;
		if (r) {		/* shutting down, or a reset emptied it */
			p->closing &= ~bit;
			return true;
		}
		p->begun |= bit;
	}
	if (!hipsvm_cp_drain_poll(d))
		return false;
	if (d->err) {			/* a ring went off midway: again later */
		p->begun &= ~bit;
		return false;
	}
	p->closing &= ~bit;
	return true;
}

void hipsvm_proc_close(struct hipsvm_proc *p)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(HIPSVM_CLOSE_DRAIN_MS);
	unsigned int g;

	mutex_lock(&hipsvm_procs_lock);
	if (--p->files > 0) {
		mutex_unlock(&hipsvm_procs_lock);
		return;
	}
	/* From here a new open of the same mm makes a new state. */
	list_del(&p->node);
	hipsvm_nprocs--;
	p->closing = hipsvm_ngpus >= 64 ? ~0ULL : (1ULL << hipsvm_ngpus) - 1;
	p->begun = 0;
	mutex_unlock(&hipsvm_procs_lock);

	for (g = 0; g < hipsvm_ngpus; g++) {
		long left = (long)(deadline - jiffies);

		if (close_step(p, g) || left <= 0)
			continue;
		wait_event_timeout(hipsvm_vgpus[g].wq, close_step(p, g), left);
	}
	if (!p->closing) {
		retire(p);
		return;
	}
	WRITE_ONCE(p->dying, true);
	mutex_lock(&hipsvm_procs_lock);
	list_add_tail(&p->node, &hipsvm_dying);
	hipsvm_ndying++;
	if (!hipsvm_stopping)
		schedule_delayed_work(&hipsvm_reaper, msecs_to_jiffies(20));
	mutex_unlock(&hipsvm_procs_lock);
}

static void reap(struct work_struct *w)
{
	struct hipsvm_proc *p, *n;
	LIST_HEAD(done);
	unsigned int g;
	bool again;

	mutex_lock(&hipsvm_procs_lock);
	list_for_each_entry_safe(p, n, &hipsvm_dying, node) {
		for (g = 0; g < hipsvm_ngpus; g++)
			close_step(p, g);
		if (!p->closing) {
			list_move(&p->node, &done);
			hipsvm_ndying--;
		}
	}
	again = !list_empty(&hipsvm_dying) && !hipsvm_stopping;
	if (again)
		schedule_delayed_work(&hipsvm_reaper, msecs_to_jiffies(20));
	mutex_unlock(&hipsvm_procs_lock);
	list_for_each_entry_safe(p, n, &done, node)
		retire(p);
}

void hipsvm_proc_stop(void)
{
	mutex_lock(&hipsvm_procs_lock);
	hipsvm_stopping = true;
	mutex_unlock(&hipsvm_procs_lock);
	cancel_delayed_work_sync(&hipsvm_reaper);
}

void hipsvm_proc_fini(void)
{
	struct hipsvm_proc *p, *n;

	/* Open files pin the module: only dying processes are left, and no
	 * handler runs any more to look them up. */
	list_for_each_entry_safe(p, n, &hipsvm_dying, node) {
		list_del(&p->node);
		retire(p);
	}
	hipsvm_ndying = 0;
}

struct hipsvm_proc *hipsvm_proc_get_by_pasid(u32 pasid)
{
	struct hipsvm_proc *p;

	xa_lock(&hipsvm_pasids);
	p = xa_load(&hipsvm_pasids, pasid);
	if (p && (READ_ONCE(p->dying) || !kref_get_unless_zero(&p->ref)))
		p = NULL;
	xa_unlock(&hipsvm_pasids);
	return p;
}

unsigned int hipsvm_proc_count(void)
{
	unsigned int n;

	mutex_lock(&hipsvm_procs_lock);
	n = hipsvm_nprocs;
	mutex_unlock(&hipsvm_procs_lock);
	return n;
}

unsigned int hipsvm_proc_dying_count(void)
{
	unsigned int n;

	mutex_lock(&hipsvm_procs_lock);
	n = hipsvm_ndying;
	mutex_unlock(&hipsvm_procs_lock);
	return n;
}

void hipsvm_proc_log(struct hipsvm_proc *p, enum hipsvm_ev op, unsigned int gpu,
		     bool has_x, u64 x, const char *word)
{
	struct hipsvm_event *e;

	spin_lock(&p->lock);
	e = &p->log[p->log_head];
	/* The sequence number is taken under the lock so that the log of one
	 * process is in sequence order. */
	e->seq = atomic64_inc_return(&hipsvm_log_seq);
	e->op = op;
	e->gpu = gpu;
	e->has_x = has_x;
	e->x = x;
	e->word = word;
	p->log_head = (p->log_head + 1) % HIPSVM_LOG_LEN;
	if (p->log_count < HIPSVM_LOG_LEN)
		p->log_count++;
	spin_unlock(&p->lock);
}

static const char *const ev_names[] = {
	[HIPSVM_EV_SET] = "set",
	[HIPSVM_EV_DRAIN] = "drain",
	[HIPSVM_EV_CLEAR] = "clear",
	[HIPSVM_EV_HANDLED] = "handled",
	[HIPSVM_EV_DROPPED] = "dropped",
	[HIPSVM_EV_RANGE] = "range",
};

/* " seq:op:gpu[:x]" for each event, oldest first. Formatted under the lock:
 * it only copies bytes, and a snapshot of 64 events would not fit the stack. */
void hipsvm_proc_log_format(struct hipsvm_proc *p, struct hipsvm_out *o)
{
	unsigned int i, n, start;

	spin_lock(&p->lock);
	n = p->log_count;
	start = (p->log_head + HIPSVM_LOG_LEN - n) % HIPSVM_LOG_LEN;
	for (i = 0; i < n; i++) {
		const struct hipsvm_event *e = &p->log[(start + i) % HIPSVM_LOG_LEN];

		hipsvm_out_str(o, " ");
		hipsvm_out_u64(o, e->seq);
		hipsvm_out_str(o, ":");
		hipsvm_out_str(o, ev_names[e->op]);
		hipsvm_out_str(o, ":");
		hipsvm_out_u64(o, e->gpu);
		if (e->word) {
			hipsvm_out_str(o, ":");
			hipsvm_out_str(o, e->word);
		} else if (e->has_x) {
			hipsvm_out_str(o, ":");
			hipsvm_out_hex(o, e->x);
		}
	}
	spin_unlock(&p->lock);
}
