// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * main.c - hipsvm.ko: the SVM checkpoint hook over debugfs, on virtual GPUs.
 *
 * /sys/kernel/debug/hipsvm/
 *   hook    the protocol of src/shared/proto.h, per opening process (hook.c)
 *   stats   read-only: module-wide and per-GPU counters, "key=value" lines
 *   inject  write "<pasid> <gpu> <ts|now> <addr> [r|w]": push a retry fault
 *           IV for any PASID (the hook's "inject" uses the caller's own)
 *   pause   debug: read/write a mask of GPUs whose handler is paused, so
 *           that IVs stay in the rings (a drain then times out); "<mask> ih0"
 *           holds back ih0's interrupt handler too
 * See docs/kernel.md.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/slab.h>

#include "hipsvm_kmod.h"

unsigned int hipsvm_ngpus = 4;
module_param_named(ngpus, hipsvm_ngpus, uint, 0444);
MODULE_PARM_DESC(ngpus, "number of virtual GPUs (1-16, default 4)");

unsigned long hipsvm_clock_start = 1;
module_param_named(clock_start, hipsvm_clock_start, ulong, 0444);
MODULE_PARM_DESC(clock_start, "first timestamp of every GPU clock (48 bits; near 2^48 to test the wrap)");

unsigned int hipsvm_ring_bytes = 8192;
module_param_named(ring_bytes, hipsvm_ring_bytes, uint, 0444);
MODULE_PARM_DESC(ring_bytes, "bytes per IH ring, a power of two, 64-1048576 (default 8192: 255 IVs)");

bool hipsvm_retry_cam;
module_param_named(retry_cam, hipsvm_retry_cam, bool, 0444);
MODULE_PARM_DESC(retry_cam, "retry faults on ih0, passed on to ih_soft by its interrupt handler (the retry CAM; default off: ih1)");

bool hipsvm_apu;
module_param_named(apu, hipsvm_apu, bool, 0444);
MODULE_PARM_DESC(apu, "GPUs without ih1 (an APU): retry faults on ih0, passed on to ih_soft");

atomic64_t hipsvm_stat_requests = ATOMIC64_INIT(0);
atomic64_t hipsvm_stat_bad_requests = ATOMIC64_INIT(0);
atomic64_t hipsvm_stat_opens = ATOMIC64_INIT(0);

static struct dentry *hipsvm_dir;
static DEFINE_MUTEX(hipsvm_pause_lock);
static u64 hipsvm_pause_mask;

static const char *const ring_names[HIPSVM_NRINGS] = { "ih0", "ih1", "soft" };

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int g;
	int i;

	seq_printf(m, "gpus=%u\nprocesses=%u\ndying_processes=%u\nopens=%lld\nrequests=%lld\n"
		   "bad_requests=%lld\n", hipsvm_ngpus, hipsvm_proc_count(),
		   hipsvm_proc_dying_count(), atomic64_read(&hipsvm_stat_opens),
		   atomic64_read(&hipsvm_stat_requests),
		   atomic64_read(&hipsvm_stat_bad_requests));
	for (g = 0; g < hipsvm_ngpus; g++) {
		struct hipsvm_vgpu *vg = &hipsvm_vgpus[g];

		spin_lock(&vg->prod_lock);
		seq_printf(m, "gpu%u.clock=0x%llx\n", g, vg->clock);
		spin_unlock(&vg->prod_lock);
		seq_printf(m, "gpu%u.paused=%d\ngpu%u.faults=%llu\ngpu%u.unknown_pasid=%llu\n"
			   "gpu%u.not_fault=%llu\ngpu%u.soft_lost=%llu\ngpu%u.retry_cam=%u\n"
			   "gpu%u.ih1=%d\n", g, READ_ONCE(vg->paused), g,
			   (u64)atomic64_read(&vg->faults), g,
			   (u64)atomic64_read(&vg->unknown_pasid), g,
			   (u64)atomic64_read(&vg->not_fault), g,
			   (u64)atomic64_read(&vg->soft_lost), g,
			   READ_ONCE(vg->irq.retry_cam), g, vg->irq.ih1 != NULL);
		for (i = 0; i < HIPSVM_NRINGS; i++) {
			struct hipsvm_ring *r = &vg->ring[i];
			const char *n = ring_names[i];

			seq_printf(m, "gpu%u.%s.enabled=%u\ngpu%u.%s.pending=%u\n"
				   "gpu%u.%s.written=%llu\ngpu%u.%s.overflows=%llu\n"
				   "gpu%u.%s.passes=%llu\ngpu%u.%s.processed_ts=0x%llx\n",
				   g, n, READ_ONCE(r->enabled), g, n, hipsvm_ring_pending(r),
				   g, n, READ_ONCE(r->written), g, n, READ_ONCE(r->overflows),
				   g, n, READ_ONCE(r->passes), g, n,
				   (unsigned long long)READ_ONCE(r->processed_ts));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* Reads a short line written by the user into buf (NUL-terminated, without
 * the trailing newline). */
static int get_line(char *buf, size_t cap, const char __user *ubuf, size_t count)
{
	if (count == 0 || count >= cap)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[--count] = '\0';
	return (int)count;
}

static ssize_t inject_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	/* "inject " + the user's line, reusing the protocol's parser for
	 * everything after the PASID. */
	char line[HIPSVM_PROTO_MAX_REQ + 8];
	struct hipsvm_cmd *cmd;
	size_t i = 7;
	u64 pasid, used;
	int n, err;

	memcpy(line, "inject ", 7);
	n = get_line(line + 7, sizeof(line) - 7, ubuf, count);
	if (n < 0)
		return n;
	while (line[i] == ' ')
		i++;
	n = 0;
	while (line[i + n] && line[i + n] != ' ')
		n++;
	if (hipsvm_proto_u64(line + i, n, &pasid) || pasid > 0xffff)
		return -EINVAL;
	memset(line + i, ' ', n);
	cmd = kmalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	err = hipsvm_proto_parse(line, strlen(line), cmd);
	if (!err && cmd->op != HIPSVM_OP_INJECT)
		err = -EINVAL;
	if (!err)
		err = hipsvm_vgpu_inject(cmd->gpu, cmd->ts_now, cmd->ts, cmd->addr,
					 cmd->write, (u16)pasid, &used);
	kfree(cmd);
	return err ? err : (ssize_t)count;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
	.llseek = noop_llseek,
};

static ssize_t pause_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[24];
	int n;

	mutex_lock(&hipsvm_pause_lock);
	n = scnprintf(buf, sizeof(buf), "0x%llx\n", hipsvm_pause_mask);
	mutex_unlock(&hipsvm_pause_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static ssize_t pause_write(struct file *file, const char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[32];
	unsigned int g;
	bool ih0 = false;
	u64 mask;
	int n;

	n = get_line(buf, sizeof(buf), ubuf, count);
	if (n < 0)
		return n;
	if (n > 4 && !strcmp(buf + n - 4, " ih0")) {
		ih0 = true;
		n -= 4;
	}
	if (hipsvm_proto_u64(buf, n, &mask))
		return -EINVAL;
	mutex_lock(&hipsvm_pause_lock);
	hipsvm_pause_mask = mask & (hipsvm_ngpus >= 64 ? ~0ULL : (1ULL << hipsvm_ngpus) - 1);
	for (g = 0; g < hipsvm_ngpus; g++)
		hipsvm_vgpu_set_paused(g, hipsvm_pause_mask >> g & 1, ih0);
	mutex_unlock(&hipsvm_pause_lock);
	return (ssize_t)count;
}

static const struct file_operations pause_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = pause_read,
	.write = pause_write,
	.llseek = default_llseek,
};

static int __init hipsvm_init(void)
{
	int err;

	if (hipsvm_ngpus < 1 || hipsvm_ngpus > HIPSVM_KMOD_MAX_GPUS) {
		pr_err("hipsvm: ngpus=%u out of range 1-%d\n", hipsvm_ngpus,
		       HIPSVM_KMOD_MAX_GPUS);
		return -EINVAL;
	}
	if (hipsvm_ring_bytes < HIPSVM_RING_MIN_BYTES || hipsvm_ring_bytes > (1u << 20) ||
	    (hipsvm_ring_bytes & (hipsvm_ring_bytes - 1))) {
		pr_err("hipsvm: ring_bytes=%u is not a power of two in 64-1048576\n",
		       hipsvm_ring_bytes);
		return -EINVAL;
	}
	err = hipsvm_vgpu_init_all();
	if (err)
		return err;
	hipsvm_dir = debugfs_create_dir("hipsvm", NULL);
	if (IS_ERR(hipsvm_dir)) {
		hipsvm_vgpu_fini_all();
		return PTR_ERR(hipsvm_dir);
	}
	debugfs_create_file("hook", 0600, hipsvm_dir, NULL, &hipsvm_hook_fops);
	debugfs_create_file("stats", 0400, hipsvm_dir, NULL, &stats_fops);
	debugfs_create_file("inject", 0200, hipsvm_dir, NULL, &inject_fops);
	debugfs_create_file("pause", 0600, hipsvm_dir, NULL, &pause_fops);
	pr_info("hipsvm: %u virtual GPUs, clock from 0x%llx, %u-byte rings\n", hipsvm_ngpus,
		(unsigned long long)(hipsvm_clock_start & HIPSVM_TS_MASK), hipsvm_ring_bytes);
	return 0;
}

static void __exit hipsvm_exit(void)
{
	/* Open files pin the module (fops.owner): only processes still
	 * draining after their last close are left. */
	debugfs_remove_recursive(hipsvm_dir);
	hipsvm_proc_stop();
	hipsvm_vgpu_fini_all();
	hipsvm_proc_fini();
	pr_info("hipsvm: unloaded\n");
}

module_init(hipsvm_init);
module_exit(hipsvm_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("libhipsvm SVM checkpoint hook on virtual GPUs (debugfs)");
