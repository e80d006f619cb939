// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hook.c - /sys/kernel/debug/hipsvm/hook: the checkpoint hook protocol.
 *
 * One write() is one request line (src/proto.h parses it: the same code as
 * the shim's client and the simulator's server). The reply is kept in the
 * open file and read back with read() or pread() from offset 0; a write
 * rewinds the file so that plain read() works too. A request that does not
 * parse changes nothing: write() returns -EINVAL and the stored reply is
 * "err EINVAL ...". Other failures answer "err <ERRNO> ..." the same way.
 *
 * The file belongs to the process that opened it: a descriptor inherited
 * across fork() answers EPERM in the child, whose faults carry its own PASID.
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

static u64 gpu_mask_all(void)
{
	return hipsvm_ngpus >= 64 ? ~0ULL : (1ULL << hipsvm_ngpus) - 1;
}

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

static void do_set(struct hipsvm_proc *p, const struct hipsvm_cmd *c, u64 mask,
		   struct hipsvm_out *o)
{
	unsigned int g;

	spin_lock(&p->lock);
	p->has_range = c->has_range;
	p->range_addr = c->addr;
	p->range_len = c->len;
	spin_unlock(&p->lock);
	/* One event names the range, ahead of the per-GPU set events, so that
	 * the log shows which unmap a set / drain / clear sequence was for. */
	if (c->has_range)
		hipsvm_proc_log(p, HIPSVM_EV_RANGE, (unsigned int)__ffs64(mask), true,
				c->addr, NULL);
	for (g = 0; g < HIPSVM_MAX_GPUS; g++) {
		u64 ts;

		if (!(mask >> g & 1))
			continue;
		if (g >= hipsvm_ngpus) {
			hipsvm_out_gpu_word(o, g, "nodev");
			continue;
		}
		hipsvm_out_str(o, " ");
		hipsvm_out_u64(o, g);
		hipsvm_out_str(o, "=");
		if (hipsvm_cp_set(&p->cp[g], &hipsvm_vgpus[g].irq, &ts) == 1) {
			hipsvm_out_hex(o, ts);
			hipsvm_proc_log(p, HIPSVM_EV_SET, g, true, ts, NULL);
		} else {
			hipsvm_out_str(o, "none");
			hipsvm_proc_log(p, HIPSVM_EV_SET, g, false, 0, "none");
		}
	}
}

/* wait_on_checkpoint_process_ts() for one GPU: 0, -ETIME, -ENODEV,
 * HIPSVM_DRAIN_SKIPPED, or -EINTR when a signal arrived. */
static int drain_one(struct hipsvm_vgpu *g, unsigned int ms)
{
	struct hipsvm_drain d;
	long left;
	int res;

	res = hipsvm_cp_drain_begin(&g->irq, &d);
	if (res)
		return res;
	left = wait_event_interruptible_timeout(g->wq, hipsvm_cp_drain_done(&d),
						msecs_to_jiffies(ms));
	if (left < 0)
		return -EINTR;
	return left == 0 ? -ETIME : 0;
}

static const char *drain_word(int res)
{
	switch (res) {
	case 0:
		return "ok";
	case -ETIME:
		return "timeout";
	case -ENODEV:
		return "nodev";
	case HIPSVM_DRAIN_SKIPPED:
		return "skipped";
	default:
		return "error";
	}
}

static int do_drain(struct hipsvm_proc *p, const struct hipsvm_cmd *c, u64 mask,
		    struct hipsvm_out *o)
{
	unsigned int ms = c->has_timeout ? c->timeout_ms : HIPSVM_DRAIN_DEFAULT_MS;
	const char *range_word = NULL;
	bool has_range;
	u64 addr, len;
	unsigned int g;

	if (ms > HIPSVM_DRAIN_MAX_MS)
		ms = HIPSVM_DRAIN_MAX_MS;
	spin_lock(&p->lock);
	has_range = p->has_range;
	addr = p->range_addr;
	len = p->range_len;
	spin_unlock(&p->lock);
	/* The shim drains after the CPU unmap: record what the drain saw, so
	 * that a test can prove the order from the log. */
	if (has_range)
		range_word = range_mapped(addr, len) ? "mapped" : "unmapped";
	for (g = 0; g < HIPSVM_MAX_GPUS; g++) {
		const char *w;
		int res;

		if (!(mask >> g & 1))
			continue;
		if (g >= hipsvm_ngpus) {
			hipsvm_out_gpu_word(o, g, "nodev");
			continue;
		}
		res = drain_one(&hipsvm_vgpus[g], ms);
		if (res == -EINTR)
			return -EINTR;
		hipsvm_cp_drain_account(&p->cp[g], res);
		w = drain_word(res);
		hipsvm_out_gpu_word(o, g, w);
		hipsvm_proc_log(p, HIPSVM_EV_DRAIN, g, false, 0,
				res == 0 && range_word ? range_word : w);
	}
	return 0;
}

static void do_clear(struct hipsvm_proc *p, const struct hipsvm_cmd *c, u64 mask,
		     struct hipsvm_out *o)
{
	unsigned int g;

	/* The unmap this range belonged to is over. */
	spin_lock(&p->lock);
	p->has_range = false;
	spin_unlock(&p->lock);
	for (g = 0; g < HIPSVM_MAX_GPUS; g++) {
		u64 expect;
		const char *w;

		if (!(mask >> g & 1))
			continue;
		if (g >= hipsvm_ngpus) {
			hipsvm_out_gpu_word(o, g, "nodev");
			continue;
		}
		expect = (c->has_value >> g & 1) ? c->value[g] : HIPSVM_CP_ANY;
		w = hipsvm_cp_clear(&p->cp[g], expect) ? "cleared" : "kept";
		hipsvm_out_gpu_word(o, g, w);
		hipsvm_proc_log(p, HIPSVM_EV_CLEAR, g, false, 0, w);
	}
}

/* Without a GPU list: the sums and every GPU's checkpoint. With one: the
 * listed GPUs' checkpoints and their filter counters too, as
 * g<N>.faults_handled and g<N>.faults_dropped (the names the simulator
 * uses; the shim asks a few GPUs at a time). */
static void do_stats(struct hipsvm_proc *p, const struct hipsvm_cmd *c, struct hipsvm_out *o)
{
	struct hipsvm_cp_stats s = { 0 };
	u64 want = c->gpus ? c->gpus : ~0ULL;
	unsigned int g;

	for (g = 0; g < hipsvm_ngpus; g++) {
		const struct hipsvm_cp_stats *c = &p->cp[g].stats;

		s.sets += READ_ONCE(c->sets);
		s.sets_empty += READ_ONCE(c->sets_empty);
		s.handled += READ_ONCE(c->handled);
		s.dropped += READ_ONCE(c->dropped);
		s.cleared_by_fault += READ_ONCE(c->cleared_by_fault);
		s.clears += READ_ONCE(c->clears);
		s.drains += READ_ONCE(c->drains);
		s.drain_timeouts += READ_ONCE(c->drain_timeouts);
		s.drain_nodev += READ_ONCE(c->drain_nodev);
		s.drain_skipped += READ_ONCE(c->drain_skipped);
	}
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
	hipsvm_out_kv(o, "injected", (u64)atomic64_read(&p->injected));
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
		hipsvm_out_u64(o, READ_ONCE(p->cp[g].stats.handled));
		hipsvm_out_str(o, " g");
		hipsvm_out_u64(o, g);
		hipsvm_out_str(o, ".faults_dropped=");
		hipsvm_out_u64(o, READ_ONCE(p->cp[g].stats.dropped));
	}
}

/* Runs one parsed command; the reply body goes to o after "ok <op>". */
static int run(struct hipsvm_proc *p, const struct hipsvm_cmd *c, struct hipsvm_out *o,
	       const char **detail)
{
	/* A GPU that does not exist is not a malformed request: set, drain
	 * and clear answer "N=nodev" for it (as the simulator's server does),
	 * inject and ring fail with ENODEV. */
	u64 mask = c->all ? gpu_mask_all() : c->gpus;
	u64 used;
	int err;

	if ((c->op == HIPSVM_OP_INJECT || c->op == HIPSVM_OP_RING) && c->gpu >= hipsvm_ngpus) {
		*detail = "no such gpu";
		return -ENODEV;
	}

	switch (c->op) {
	case HIPSVM_OP_VERSION:
		hipsvm_out_str(o, " ");
		hipsvm_out_u64(o, HIPSVM_PROTO_VERSION);
		hipsvm_out_str(o, " hipsvm-hook");
		return 0;
	case HIPSVM_OP_GPUS:
		hipsvm_out_kv(o, "n", hipsvm_ngpus);
		return 0;
	case HIPSVM_OP_SET:
		do_set(p, c, mask, o);
		return 0;
	case HIPSVM_OP_DRAIN:
		err = do_drain(p, c, mask, o);
		if (err)
			*detail = "interrupted";
		return err;
	case HIPSVM_OP_CLEAR:
		do_clear(p, c, mask, o);
		return 0;
	case HIPSVM_OP_STATS:
		do_stats(p, c, o);
		return 0;
	case HIPSVM_OP_LOG:
		hipsvm_proc_log_format(p, o);
		return 0;
	case HIPSVM_OP_INJECT:
		err = hipsvm_vgpu_inject(c->gpu, c->ts_now, c->ts, c->addr, c->write,
					 (u16)p->pasid, &used);
		if (err) {
			*detail = err == -ENOSPC ? "ring full" : "ring disabled";
			return err;
		}
		atomic64_inc(&p->injected);
		hipsvm_out_str(o, " ");
		hipsvm_out_u64(o, c->gpu);
		hipsvm_out_str(o, "=");
		hipsvm_out_hex(o, used);
		return 0;
	case HIPSVM_OP_RING:
		return hipsvm_vgpu_ring_enable(c->gpu, c->ring, c->on);
	default:
		*detail = "unknown command";
		return -EINVAL;
	}
}

/* Parses and runs one request; the reply (ok or err) is always written. */
static int hook_request(struct hipsvm_file *f, size_t len)
{
	struct hipsvm_proc *p = f->proc;
	const char *detail = "";
	struct hipsvm_out o;
	int err, n;

	atomic64_inc(&hipsvm_stat_requests);
	if (hipsvm_proto_parse(f->req, len, &f->cmd)) {
		err = -EINVAL;
		detail = "bad request";
		goto fail;
	}
	hipsvm_out_init(&o, f->reply, sizeof(f->reply));
	hipsvm_out_str(&o, "ok ");
	hipsvm_out_str(&o, hipsvm_op_name(f->cmd.op));
	err = run(p, &f->cmd, &o, &detail);
	if (err)
		goto fail;
	n = hipsvm_out_end(&o);
	if (n < 0) {
		err = n;
		detail = "reply too long";
		goto fail;
	}
	f->reply_len = (size_t)n;
	return 0;
fail:
	if (err == -EINVAL)
		atomic64_inc(&hipsvm_stat_bad_requests);
	n = hipsvm_proto_error(f->reply, sizeof(f->reply), err, detail);
	f->reply_len = n > 0 ? (size_t)n : 0;
	return err;
}

static int hook_open(struct inode *inode, struct file *file)
{
	struct hipsvm_file *f;
	struct hipsvm_proc *p;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	p = hipsvm_proc_get_current();
	if (IS_ERR(p)) {
		kfree(f);
		return PTR_ERR(p);
	}
	f->proc = p;
	mutex_init(&f->lock);
	file->private_data = f;
	atomic64_inc(&hipsvm_stat_opens);
	return 0;
}

static int hook_release(struct inode *inode, struct file *file)
{
	struct hipsvm_file *f = file->private_data;

	hipsvm_proc_put(f->proc);
	kfree(f);
	return 0;
}

static ssize_t hook_write(struct file *file, const char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct hipsvm_file *f = file->private_data;
	ssize_t ret;
	int n;

	mutex_lock(&f->lock);
	if (current->tgid != f->proc->tgid) {
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
	/* Rewind, so that read() after write() returns the new reply. */
	*ppos = 0;
	file->f_pos = 0;
	mutex_unlock(&f->lock);
	return ret;
}

static ssize_t hook_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct hipsvm_file *f = file->private_data;
	ssize_t ret;

	mutex_lock(&f->lock);
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
