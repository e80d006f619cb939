// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * proc.c - per-process state of the hook.
 *
 * A process is its thread group: every open of the hook file by any thread of
 * one tgid shares one struct hipsvm_proc, created on the first open and freed
 * when the last file is closed (and no fault of that process is being
 * filtered). Each one gets a PASID, as KFD gives one to every process that
 * opens /dev/kfd; the virtual GPUs stamp it into the fault IVs and the fault
 * path finds the process by it. PASIDs are allocated (1..65535) rather than
 * taken from the tgid, so that two live processes can never share one.
 *
 * Locking: hipsvm_procs_lock (a mutex) guards the list used to find a process
 * by tgid at open; the xarray's own spinlock guards PASID lookups, which take
 * a reference with kref_get_unless_zero() so a process on its way out is
 * never returned.
 */
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/xarray.h>
#include <linux/atomic.h>

#include "hipsvm_kmod.h"

static LIST_HEAD(hipsvm_procs);
static DEFINE_MUTEX(hipsvm_procs_lock);
static DEFINE_XARRAY_ALLOC1(hipsvm_pasids);
static atomic64_t hipsvm_log_seq = ATOMIC64_INIT(0);
static unsigned int hipsvm_nprocs;

static void proc_release(struct kref *ref)
{
	struct hipsvm_proc *p = container_of(ref, struct hipsvm_proc, ref);

	mutex_lock(&hipsvm_procs_lock);
	list_del(&p->node);
	hipsvm_nprocs--;
	mutex_unlock(&hipsvm_procs_lock);
	xa_erase(&hipsvm_pasids, p->pasid);
	kfree(p);
}

void hipsvm_proc_put(struct hipsvm_proc *p)
{
	kref_put(&p->ref, proc_release);
}

struct hipsvm_proc *hipsvm_proc_get_current(void)
{
	struct hipsvm_proc *p;
	pid_t tgid = current->tgid;
	int err;

	mutex_lock(&hipsvm_procs_lock);
	list_for_each_entry(p, &hipsvm_procs, node) {
		if (p->tgid == tgid && kref_get_unless_zero(&p->ref)) {
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
	p->tgid = tgid;
	spin_lock_init(&p->lock);
	err = xa_alloc(&hipsvm_pasids, &p->pasid, p, XA_LIMIT(1, 0xffff), GFP_KERNEL);
	if (err) {
		mutex_unlock(&hipsvm_procs_lock);
		kfree(p);
		return ERR_PTR(err == -EBUSY ? -ENOSPC : err);
	}
	list_add(&p->node, &hipsvm_procs);
	hipsvm_nprocs++;
	mutex_unlock(&hipsvm_procs_lock);
	return p;
}

struct hipsvm_proc *hipsvm_proc_get_by_pasid(u32 pasid)
{
	struct hipsvm_proc *p;

	xa_lock(&hipsvm_pasids);
	p = xa_load(&hipsvm_pasids, pasid);
	if (p && !kref_get_unless_zero(&p->ref))
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
