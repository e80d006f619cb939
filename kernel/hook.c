// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hook.c - /sys/kernel/debug/hipsvm/hook: the checkpoint hook protocol.
 *
 * One write() is one request line (src/shared/proto.h parses it: the same code as
 * the shim's client and the simulator's server). The reply is kept in the
 * open file and read back with read() or pread() from offset 0; a write
 * rewinds the file so that plain read() works too. A request that does not
 * parse changes nothing: write() returns -EINVAL and the stored reply is
 * "err EINVAL ...". Other failures answer "err <ERRNO> ..." the same way.
 *
 * The file belongs to the process that opened it (its mm): a descriptor
 * inherited across fork() answers EPERM in the child, whose faults carry its
 * own PASID. What a request does is src/shared/hooksrv.c, shared with the
 * simulator; this file is the module's backend for it.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/uaccess.h>
#include <linux/jiffies.h>

#include "hipsvm_kmod.h"

struct hipsvm_file {
	struct hipsvm_proc *proc;
	struct mutex lock;		/* one request at a time on this file */
	struct hipsvm_cmd cmd;		/* here rather than on the stack */
	char req[HIPSVM_PROTO_MAX_REQ + 1];
	size_t reply_len;
	char reply[HIPSVM_PROTO_MAX_REPLY];
};

/* Is any part of [addr, addr + len) still mapped in the caller's mm? */
static bool range_mapped(u64 addr, u64 len)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool mapped;

	if (!mm)
		return false;
	mmap_read_lock(mm);
	vma = find_vma(mm, (unsigned long)addr);
	mapped = vma && vma->vm_start < addr + len;
	mmap_read_unlock(mm);
	return mapped;
}

/* ---- the backend of src/shared/hooksrv.c: be is the caller's hipsvm_proc ---- */

static unsigned int be_ngpus(void *be)
{
	return hipsvm_ngpus;
}

static const struct hipsvm_gpu_irq *be_irq(void *be, unsigned int g)
{
	return &hipsvm_vgpus[g].irq;
}

static struct hipsvm_cp *be_cp(void *be, unsigned int g)
{
	return &((struct hipsvm_proc *)be)->cp[g];
}

/* The process's set lock plays the SVM lock: sets of one checkpoint are
 * serialised, so the later one read the ring later (checkpoint.h). */
static int be_set(void *be, unsigned int g, const struct hipsvm_cmd *c, u64 *ts)
{
	struct hipsvm_proc *p = be;
	int r;

	mutex_lock(&p->set_lock);
	r = hipsvm_cp_set(&p->cp[g], &hipsvm_vgpus[g].irq, ts);
	mutex_unlock(&p->set_lock);
	return r;
}

/* wait_on_checkpoint_process_ts(): the handler wakes g->wq after every pass. */
static int be_wait(void *be, unsigned int g, struct hipsvm_drain *d, u32 ms)
{
	long left = wait_event_interruptible_timeout(hipsvm_vgpus[g].wq, hipsvm_cp_drain_poll(d),
						     msecs_to_jiffies(ms));

	if (left < 0)
		return -EINTR;
	return left == 0 ? -ETIME : 0;
}

static void be_range(void *be, const struct hipsvm_cmd *c, u64 gpus)
{
	struct hipsvm_proc *p = be;

	/* A set without a range forgets the last one. */
	spin_lock(&p->lock);
	p->has_range = c->has_range;
	p->range_addr = c->addr;
	p->range_len = c->len;
	spin_unlock(&p->lock);
}

/* The shim drains after the CPU unmap: record what the drain saw, so that a
 * test can prove the order from the log. */
static const char *be_drained(void *be, unsigned int g, int res)
{
	struct hipsvm_proc *p = be;
	bool has_range;
	u64 addr, len;

	spin_lock(&p->lock);
	has_range = p->has_range;
	addr = p->range_addr;
	len = p->range_len;
	spin_unlock(&p->lock);
	if (!has_range || res != 0)
		return NULL;
	return range_mapped(addr, len) ? "mapped" : "unmapped";
}

/* The unmap this range belonged to is over. */
static void be_cleared(void *be, unsigned int g, bool reset)
{
	struct hipsvm_proc *p = be;

	spin_lock(&p->lock);
	p->has_range = false;
	spin_unlock(&p->lock);
}

static void be_log(void *be, enum hipsvm_srv_ev ev, unsigned int g, bool has_x, u64 x,
		   const char *word)
{
	static const u8 map[] = {
		[HIPSVM_SRV_EV_SET] = HIPSVM_EV_SET, [HIPSVM_SRV_EV_DRAIN] = HIPSVM_EV_DRAIN,
		[HIPSVM_SRV_EV_CLEAR] = HIPSVM_EV_CLEAR, [HIPSVM_SRV_EV_RANGE] = HIPSVM_EV_RANGE,
	};

	hipsvm_proc_log(be, map[ev], g, has_x, x, word);
}

/* Without a GPU list: the sums and every GPU's checkpoint. With one: the
 * listed GPUs' checkpoints and their filter counters too, as
 * g<N>.faults_handled and g<N>.faults_dropped (the names the simulator
 * uses; the shim asks a few GPUs at a time). */
static void be_stats(void *be, const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	struct hipsvm_proc *p = be;
	struct hipsvm_cp_stats s;
	u64 want = c->gpus ? c->gpus : ~0ULL;
	unsigned int g;

	hipsvm_srv_cp_sum(&hipsvm_srv_ops_kmod, p, hipsvm_ngpus, &s);
	hipsvm_out_kv(o, "pasid", p->pasid);
	/* The caller is the opener (hook_write checks): its pid as it sees it. */
	hipsvm_out_kv(o, "tgid", (u64)task_tgid_vnr(current));
	hipsvm_out_kv(o, "gpus", hipsvm_ngpus);
	hipsvm_out_kv(o, "sets", s.sets);
	hipsvm_out_kv(o, "sets_empty", s.sets_empty);
	hipsvm_out_kv(o, "handled", s.handled);
	hipsvm_out_kv(o, "dropped", s.dropped);
	hipsvm_out_kv(o, "cleared_by_fault", s.cleared_by_fault);
	hipsvm_out_kv(o, "clears", s.clears);
	hipsvm_out_kv(o, "drains", s.drains);
	hipsvm_out_kv(o, "drain_timeouts", s.drain_timeouts);
	hipsvm_out_kv(o, "drain_nodev", s.drain_nodev);
	hipsvm_out_kv(o, "drain_skipped", s.drain_skipped);
	hipsvm_out_kv(o, "stale", s.stale);
	hipsvm_out_kv(o, "drains_early", s.drains_early);
	hipsvm_out_kv(o, "drain_left", s.drain_left);
	hipsvm_out_kv(o, "injected", (u64)atomic64_read(&p->injected));
	hipsvm_out_kv(o, "lost", (u64)atomic64_read(&p->lost));
	for (g = 0; g < hipsvm_ngpus; g++) {
		if (!(want >> g & 1))
			continue;
		hipsvm_out_str(o, " cp");
		hipsvm_out_u64(o, g);
		hipsvm_out_str(o, "=");
		hipsvm_out_hex(o, hipsvm_cp_get(&p->cp[g]));
		if (!c->gpus)
			continue;
		hipsvm_out_str(o, " g");
		hipsvm_out_u64(o, g);
		hipsvm_out_str(o, ".faults_handled=");
		hipsvm_out_u64(o, HIPSVM_LOAD(&p->cp[g].stats.handled));
		hipsvm_out_str(o, " g");
		hipsvm_out_u64(o, g);
		hipsvm_out_str(o, ".faults_dropped=");
		hipsvm_out_u64(o, HIPSVM_LOAD(&p->cp[g].stats.dropped));
	}
}

static void be_log_format(void *be, struct hipsvm_out *o)
{
	hipsvm_proc_log_format(be, o);
}

static int be_inject(void *be, const struct hipsvm_cmd *c, u64 *ts, const char **detail)
{
	struct hipsvm_proc *p = be;
	int err = hipsvm_vgpu_inject(c->gpu, c->ts_now, c->ts, c->addr, c->write,
				     (u16)p->pasid, ts);

	if (err) {
		*detail = err == -ENOSPC ? "ring full" : "ring disabled";
		return err;
	}
	atomic64_inc(&p->injected);
	return 0;
}

static int be_ring(void *be, const struct hipsvm_cmd *c, const char **detail)
{
	return hipsvm_vgpu_ring_enable(c->gpu, c->ring, c->on);
}

const struct hipsvm_srv_ops hipsvm_srv_ops_kmod = {
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
};

/* Parses and runs one request; the reply (ok or err) is always written. */
static int hook_request(struct hipsvm_file *f, size_t len)
{
	int err;

	atomic64_inc(&hipsvm_stat_requests);
	err = hipsvm_srv_request(&hipsvm_srv_ops_kmod, f->proc, &f->cmd, f->req, len, f->reply,
				 sizeof(f->reply), &f->reply_len);
	if (err == -EINVAL)
		atomic64_inc(&hipsvm_stat_bad_requests);
	return err;
}

static int hook_open(struct inode *inode, struct file *file)
{
	struct hipsvm_file *f;
	struct hipsvm_proc *p;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	p = hipsvm_proc_open_current();
	if (IS_ERR(p)) {
		kfree(f);
		return PTR_ERR(p);
	}
	f->proc = p;
	mutex_init(&f->lock);
	/* No f_pos lock: read() and write() would otherwise wait for each
	 * other uninterruptibly in the VFS while a drain runs. Every request
	 * rewinds the position anyway; f->lock (interruptible) orders them. */
	file->f_mode &= ~FMODE_ATOMIC_POS;
	file->private_data = f;
	atomic64_inc(&hipsvm_stat_opens);
	return 0;
}

static int hook_release(struct inode *inode, struct file *file)
{
	struct hipsvm_file *f = file->private_data;

	/* The last file of the process drains its faults (bounded) before
	 * its PASID can be handed out again: proc.c. */
	hipsvm_proc_close(f->proc);
	kfree(f);
	return 0;
}

static ssize_t hook_write(struct file *file, const char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct hipsvm_file *f = file->private_data;
	ssize_t ret;
	int n;

	/* A drain holds the lock for up to its timeout per GPU: a signal
	 * must be able to end the wait of another thread's request. */
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (current->mm != f->proc->mm) {
		ret = -EPERM;
		n = hipsvm_proto_error(f->reply, sizeof(f->reply), -EPERM, "not the opener");
		f->reply_len = n > 0 ? (size_t)n : 0;
	} else if (count == 0 || count > HIPSVM_PROTO_MAX_REQ) {
		atomic64_inc(&hipsvm_stat_requests);
		atomic64_inc(&hipsvm_stat_bad_requests);
		ret = -EINVAL;
		n = hipsvm_proto_error(f->reply, sizeof(f->reply), -EINVAL,
				       count ? "request too long" : "empty request");
		f->reply_len = n > 0 ? (size_t)n : 0;
	} else if (copy_from_user(f->req, ubuf, count)) {
		ret = -EFAULT;
	} else {
		f->req[count] = '\0';
		ret = hook_request(f, count);
		if (!ret)
			ret = (ssize_t)count;
	}
	/* Rewind, so that read() after write() returns the new reply (the VFS
	 * stores *ppos back into f_pos for write(), not for pwrite()). */
	*ppos = 0;
	mutex_unlock(&f->lock);
	return ret;
}

static ssize_t hook_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct hipsvm_file *f = file->private_data;
	ssize_t ret;

	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	ret = simple_read_from_buffer(ubuf, count, ppos, f->reply, f->reply_len);
	mutex_unlock(&f->lock);
	return ret;
}

const struct file_operations hipsvm_hook_fops = {
	.owner = THIS_MODULE,
	.open = hook_open,
	.release = hook_release,
	.read = hook_read,
	.write = hook_write,
	.llseek = default_llseek,
};
