/* SPDX-License-Identifier: MIT */
/*
 * test_amdgpu_hook.c - the amdkfd checkpoint hook file of kernel/amdgpu/
 * (kfd_hipsvm_hook.c, extracted unchanged from the series at build time)
 * against the shim's unchanged hook client, src/shim/hook.c.
 *
 * No machine here has an AMD GPU, and Debian's kernels are built without
 * CONFIG_HSA_AMD_SVM, so the file cannot be loaded anywhere. Instead it runs
 * in user space over amdgpu_fake/kfake.h: fakes of the few driver calls it
 * makes (checkpoint, ring choice, IH wait, reset lock, process lookup) that
 * record how they were called. The client opens a plain file; this program's
 * write() and pread() hand the client's requests on that descriptor to the
 * hook's file operations, as the VFS would.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "amdgpu_fake/kfake.h"
#include "shared/checkpoint.h"
#include "shim/hook.h"
#include "shim/testing.h"
#include "shared/proto.h"

#define NGPU 5

/* ---- the fakes kfake.h declares ---- */

unsigned long jiffies;
static struct pid opener_pid = { .nr = 4242 };
static struct pid child_pid = { .nr = 4243 };
static struct mm_struct the_mm;
static struct task_struct task = { .tgid = &opener_pid, .mm = &the_mm };
struct task_struct *current = &task;

static struct {
	const struct file_operations *fops;
	char name[32];
	unsigned short mode;
	struct kfd_process proc;
	bool has_proc;
	int lookups;
	int set_calls;
	int wait_without_lock;
	struct amdgpu_device adev[NGPU];
	struct amdgpu_reset_domain reset[NGPU];
	struct kfd_node node[NGPU];
	struct kfd_process_device pdd[NGPU];
} fk;

void mutex_init(struct mutex *m) { m->locked = 0; }
void mutex_lock(struct mutex *m) { cr_assert_eq(m->locked, 0); m->locked = 1; }
void mutex_unlock(struct mutex *m) { cr_assert_eq(m->locked, 1); m->locked = 0; }
void mutex_destroy(struct mutex *m) { cr_assert_eq(m->locked, 0); }

bool down_read_trylock(struct rw_semaphore *s)
{
	if (s->writer)
		return false;
	s->readers++;
	return true;
}

void up_read(struct rw_semaphore *s)
{
	cr_assert_gt(s->readers, 0);
	s->readers--;
}

struct pid *get_task_pid(struct task_struct *t, enum pid_type type)
{
	(void)type;
	t->tgid->refs++;
	return t->tgid;
}

void put_pid(struct pid *pid)
{
	cr_assert_gt(pid->refs, 0);
	pid->refs--;
}

loff_t default_llseek(struct file *f, loff_t off, int whence)
{
	(void)whence;
	f->f_pos = off;
	return off;
}

ssize_t simple_read_from_buffer(void *to, size_t count, loff_t *ppos, const void *from,
				size_t available)
{
	loff_t pos = *ppos;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	if (count > available - (size_t)pos)
		count = available - (size_t)pos;
	memcpy(to, (const char *)from + pos, count);
	*ppos = pos + (loff_t)count;
	return (ssize_t)count;
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops)
{
	(void)parent;
	(void)data;
	snprintf(fk.name, sizeof(fk.name), "%s", name);
	fk.mode = mode;
	fk.fops = fops;
	return NULL;
}

struct kfd_process *kfd_lookup_process_by_mm(const struct mm_struct *mm)
{
	fk.lookups++;
	if (!fk.has_proc || mm != fk.proc.mm)
		return NULL;
	fk.proc.refs++;
	return &fk.proc;
}

void kfd_unref_process(struct kfd_process *p)
{
	cr_assert_gt(p->refs, 0);
	p->refs--;
}

bool svm_range_set_checkpoint(struct kfd_process *p, uint32_t gpuidx, uint64_t *ts)
{
	struct amdgpu_device *a = p->pdds[gpuidx]->dev->adev;

	fk.set_calls++;
	if (!a->ring_nonempty)
		return false;
	*ts = a->last_ts;
	WRITE_ONCE(p->svms.checkpoint_ts[gpuidx], *ts);
	return true;
}

unsigned int svm_range_retry_fault_rings(struct amdgpu_device *adev, struct amdgpu_ih_ring *ih[2])
{
	if (adev->retry_cam) {
		ih[0] = &adev->ih;
		ih[1] = &adev->ih_soft;
		return 2;
	}
	ih[0] = &adev->ih1;
	return 1;
}

/* A ring that is not done never gets there: the wait times out, and the
 * clock moves on by the time waited. */
long amdgpu_ih_wait_on_checkpoint_process_ts_timeout(struct amdgpu_device *adev,
						     struct amdgpu_ih_ring *ih, long timeout)
{
	if (adev->reset_domain->sem.readers <= 0)
		fk.wait_without_lock++;
	if (ih->waits < 16)
		ih->timeouts[ih->waits] = timeout;
	ih->waits++;
	if (!ih->enabled)
		return -ENODEV;
	if (ih->signal)
		return -ERESTARTSYS;
	if (ih->done)
		return timeout ? timeout : 1;
	jiffies += (unsigned long)timeout;
	return 0;
}

/* ---- the VFS: the client's descriptor to the hook's file operations ---- */

static struct {
	int fd;
	struct file file;
	struct inode inode;
} vfs = { .fd = -1 };

ssize_t write(int fd, const void *buf, size_t n)
{
	loff_t pos;
	ssize_t r;

	if (fd != vfs.fd || fd < 0)
		return syscall(SYS_write, fd, buf, n);
	pos = vfs.file.f_pos;
	r = fk.fops->write(&vfs.file, buf, n, &pos);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	vfs.file.f_pos = pos;
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	loff_t pos = off;
	ssize_t r;

	if (fd != vfs.fd || fd < 0)
		return syscall(SYS_pread64, fd, buf, n, off);
	r = fk.fops->read(&vfs.file, buf, n, &pos);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static char path[64];

static void setup(void)
{
	unsigned int g;
	int fd;

	memset(&fk, 0, sizeof(fk));
	jiffies = 1000;
	opener_pid.refs = 0;
	task.tgid = &opener_pid;
	kfd_hipsvm_hook_init(NULL);
	cr_assert_not_null(fk.fops);
	fk.has_proc = true;
	fk.proc.mm = &the_mm;
	fk.proc.n_pdds = NGPU;
	fk.proc.pasid = 0x8001;
	fk.proc.xnack_enabled = true;
	for (g = 0; g < NGPU; g++) {
		struct amdgpu_device *a = &fk.adev[g];

		a->reset_domain = &fk.reset[g];
		a->ih.enabled = a->ih1.enabled = a->ih_soft.enabled = true;
		a->ih.done = a->ih1.done = a->ih_soft.done = true;
		a->ring_nonempty = true;
		a->last_ts = 0x1f00 + g;
		fk.node[g].adev = a;
		fk.pdd[g].dev = &fk.node[g];
		fk.pdd[g].user_gpu_id = 1000 + g;
		fk.proc.pdds[g] = &fk.pdd[g];
		/* GPU 4 has no SVM (no XNACK-capable page faults) */
		if (g != 4)
			fk.proc.svms.bitmap_supported[0] |= 1UL << g;
	}
	snprintf(path, sizeof(path), "/tmp/hipsvm-amdgpu-hook.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

/* The client's open, then the hook's: the descriptor now talks to the hook.
 * hipsvm_hook_open takes only a file on debugfs (or a socket), which a test
 * in user space cannot make: the scratch file is opened as the client would
 * open the module's file, and every request goes through the client
 * unchanged from there. */
static void client_open(struct hipsvm_hook *h)
{
	hipsvm_hook_init(h);
	h->fd = open(path, O_RDWR | O_CLOEXEC);
	cr_assert_geq(h->fd, 0);
	h->is_file = true;
	snprintf(h->path, sizeof(h->path), "%s", path);
	memset(&vfs, 0, sizeof(vfs));
	vfs.fd = h->fd;
	cr_assert_eq(fk.fops->open(&vfs.inode, &vfs.file), 0);
}

static void client_close(struct hipsvm_hook *h)
{
	cr_assert_eq(fk.fops->release(&vfs.inode, &vfs.file), 0);
	vfs.fd = -1;
	hipsvm_hook_close(h);
	cr_assert_eq(opener_pid.refs, 0, "the opener's pid is put at release");
	cr_assert_eq(fk.proc.refs, 0, "every lookup of the process is unreferenced");
	cr_assert_eq(fk.wait_without_lock, 0, "IH waits run under the reset lock");
}

/* The hook's stored reply, as the client would read it. */
static const char *reply(void)
{
	static char buf[HIPSVM_PROTO_MAX_REPLY + 1];
	ssize_t n = pread(vfs.fd, buf, sizeof(buf) - 1, 0);

	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static int raw(const char *line)
{
	return write(vfs.fd, line, strlen(line)) < 0 ? -errno : 0;
}

TestSuite(amdgpu_hook, .init = setup, .fini = teardown);

Test(amdgpu_hook, file_and_handshake)
{
	struct hipsvm_hook h;

	cr_assert_str_eq(fk.name, "hipsvm_hook");
	cr_assert_eq(fk.mode, 0600);
	client_open(&h);
	cr_assert_eq(hipsvm_hook_version(&h), HIPSVM_PROTO_VERSION);
	cr_assert_str_eq(reply(), "ok version 2 hipsvm-hook\n");
	cr_assert_eq(hipsvm_hook_gpus(&h), NGPU);
	/* Before the program opened /dev/kfd: the same hook, no GPUs. */
	fk.has_proc = false;
	cr_assert_eq(hipsvm_hook_version(&h), HIPSVM_PROTO_VERSION);
	cr_assert_eq(hipsvm_hook_gpus(&h), 0);
	cr_assert_eq(fk.set_calls, 0);
	client_close(&h);
}

Test(amdgpu_hook, set_takes_the_driver_checkpoint)
{
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 }, mask = 0;
	struct hipsvm_hook h;

	client_open(&h);
	fk.adev[1].ring_nonempty = false;
	fk.proc.svms.checkpoint_ts[1] = 0x77;	/* an empty ring leaves it */
	cr_assert_eq(hipsvm_hook_set(&h, 0x3f, 0x7f0000000000, 1 << 20, cp, &mask), 0);
	cr_assert_str_eq(reply(), "ok set 0=0x1f00 1=none 2=0x1f02 3=0x1f03 4=nodev 5=nodev\n");
	cr_assert_eq(mask, 0xd, "GPUs with a checkpoint: 0, 2, 3");
	cr_assert_eq(cp[0], 0x1f00);
	cr_assert_eq(cp[2], 0x1f02);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[0], 0x1f00);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[1], 0x77);
	cr_assert_eq(fk.set_calls, 4, "the driver is asked for SVM GPUs of the process only");
	cr_assert_eq(fk.proc.svms.hook.sets.counter, 3);
	cr_assert_eq(fk.proc.svms.hook.sets_empty.counter, 1);
	cr_assert_eq(raw("set all\n"), 0);
	cr_assert_str_eq(reply(), "ok set 0=0x1f00 1=none 2=0x1f02 3=0x1f03 4=nodev\n");
	client_close(&h);
}

Test(amdgpu_hook, drain_outcomes)
{
	int res[HIPSVM_MAX_GPUS];
	struct hipsvm_hook h;

	client_open(&h);
	fk.adev[1].ih1.done = false;		/* never processed: timeout */
	fk.adev[2].retry_cam = true;		/* ih, then ih_soft */
	fk.adev[3].reset_domain->sem.writer = true;	/* in reset */
	cr_assert_eq(hipsvm_hook_drain(&h, 0x3f, 250, res), 0);
	cr_assert_str_eq(reply(), "ok drain 0=ok 1=timeout 2=ok 3=skipped 4=nodev 5=nodev\n");
	cr_assert_eq(res[0], 0);
	cr_assert_eq(res[1], -ETIME);
	cr_assert_eq(res[2], 0);
	cr_assert_eq(res[3], HIPSVM_DRAIN_SKIPPED);
	cr_assert_eq(res[4], -ENODEV);
	cr_assert_eq(fk.adev[0].ih1.waits, 1);
	cr_assert_eq(fk.adev[0].ih1.timeouts[0], 250);
	cr_assert_eq(fk.adev[0].ih.waits + fk.adev[0].ih_soft.waits, 0, "no CAM: ih1 only");
	cr_assert_eq(fk.adev[2].ih.waits, 1);
	cr_assert_eq(fk.adev[2].ih_soft.waits, 1);
	cr_assert_eq(fk.adev[2].ih1.waits, 0, "CAM: ih and ih_soft");
	cr_assert_eq(fk.adev[3].ih1.waits, 0, "no wait while the GPU resets");
	cr_assert_eq(fk.proc.svms.hook.drains.counter, 4);
	cr_assert_eq(fk.proc.svms.hook.drain_timeouts.counter, 1);
	cr_assert_eq(fk.proc.svms.hook.drain_skipped.counter, 1);
	client_close(&h);
}

Test(amdgpu_hook, long_drain_in_steps_of_a_second)
{
	int res[HIPSVM_MAX_GPUS];
	struct hipsvm_hook h;
	unsigned long t0;

	client_open(&h);
	fk.adev[0].ih1.done = false;
	t0 = jiffies;
	cr_assert_eq(hipsvm_hook_drain(&h, 0x1, 2500, res), 0);
	cr_assert_eq(res[0], -ETIME);
	cr_assert_eq(fk.adev[0].ih1.waits, 3);
	cr_assert_eq(fk.adev[0].ih1.timeouts[0], 1000);
	cr_assert_eq(fk.adev[0].ih1.timeouts[1], 1000);
	cr_assert_eq(fk.adev[0].ih1.timeouts[2], 500);
	cr_assert_eq(jiffies - t0, 2500);
	/* Past the protocol's bound: 60 s. */
	memset(&fk.adev[0].ih1.timeouts, 0, sizeof(fk.adev[0].ih1.timeouts));
	fk.adev[0].ih1.waits = 0;
	t0 = jiffies;
	cr_assert_eq(hipsvm_hook_drain(&h, 0x1, 600000, res), 0);
	cr_assert_eq(jiffies - t0, 60000);
	/* 0 ms polls once. */
	fk.adev[0].ih1.done = true;
	fk.adev[0].ih1.waits = 0;
	cr_assert_eq(hipsvm_hook_drain(&h, 0x1, 0, res), 0);
	cr_assert_eq(res[0], 0);
	cr_assert_eq(fk.adev[0].ih1.waits, 1);
	cr_assert_eq(fk.adev[0].ih1.timeouts[0], 0);
	client_close(&h);
}

Test(amdgpu_hook, drain_nodev_and_signal)
{
	int res[HIPSVM_MAX_GPUS];
	struct hipsvm_hook h;

	client_open(&h);
	fk.adev[0].ih1.enabled = false;		/* an APU without the CAM has no ih1 */
	cr_assert_eq(hipsvm_hook_drain(&h, 0x1, 100, res), 0);
	cr_assert_eq(res[0], -ENODEV);
	cr_assert_eq(fk.proc.svms.hook.drain_nodev.counter, 1);
	/* A signal ends the request: EINTR, which the client takes as a broken
	 * transport (it closes and reopens), as with hipsvm.ko. */
	fk.adev[1].ih1.signal = true;
	cr_assert_eq(hipsvm_hook_drain(&h, 0x2, 100, res), -EINTR);
	cr_assert_str_eq(reply(), "err EINTR interrupted\n");
	vfs.fd = h.fd;	/* closed by the client; the hook's file is still open */
	cr_assert_eq(fk.fops->release(&vfs.inode, &vfs.file), 0);
	cr_assert_eq(fk.proc.refs, 0);
}

Test(amdgpu_hook, clear_only_what_is_still_ours)
{
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 };
	struct hipsvm_hook h;

	client_open(&h);
	fk.proc.svms.checkpoint_ts[0] = 0x1f00;
	fk.proc.svms.checkpoint_ts[1] = 0x2000;	/* raised since by the unmap */
	fk.proc.svms.checkpoint_ts[2] = 0;	/* reset by a later fault */
	fk.proc.svms.checkpoint_ts[3] = 0x3000;
	cp[0] = 0x1f00;
	cp[1] = 0x1f01;
	cp[2] = 0x1f02;
	cr_assert_eq(hipsvm_hook_clear(&h, 0x1f, cp, 0x7), 0);
	cr_assert_str_eq(reply(), "ok clear 0=cleared 1=kept 2=kept 3=cleared 4=nodev\n");
	cr_assert_eq(fk.proc.svms.checkpoint_ts[0], 0);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[1], 0x2000);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[3], 0, "a plain N clears whatever is there");
	cr_assert_eq(fk.proc.svms.hook.clears.counter, 2);
	client_close(&h);
}

/* drainclear (protocol 2): the clear of a GPU given a value follows its
 * drain only when the drain passed, and only if the checkpoint is still the
 * value; one request, as the shim sends it for each coordinated unmap. */
Test(amdgpu_hook, drainclear_clears_what_drained)
{
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 }, cleared = 0;
	int res[HIPSVM_MAX_GPUS];
	struct hipsvm_hook h;

	client_open(&h);
	cr_assert_eq(hipsvm_hook_version(&h), HIPSVM_PROTO_VERSION_DRAINCLEAR);
	fk.adev[1].ih1.done = false;			/* timeout: kept */
	fk.adev[3].reset_domain->sem.writer = true;	/* skipped: cleared */
	fk.proc.svms.checkpoint_ts[0] = 0x1f00;
	fk.proc.svms.checkpoint_ts[1] = 0x1f01;
	fk.proc.svms.checkpoint_ts[2] = 0x2000;		/* raised since: kept */
	fk.proc.svms.checkpoint_ts[3] = 0x1f03;
	cp[0] = 0x1f00;
	cp[1] = 0x1f01;
	cp[2] = 0x1f02;
	cp[3] = 0x1f03;
	cr_assert_eq(hipsvm_hook_drainclear(&h, 0x1f, 250, cp, 0xf, res, &cleared), 0);
	cr_assert_str_eq(reply(),
			 "ok drainclear 0=ok/cleared 1=timeout 2=ok/kept 3=skipped/cleared 4=nodev\n");
	cr_assert_eq(cleared, 0x9, "GPUs 0 and 3");
	cr_assert_eq(res[1], -ETIME);
	cr_assert_eq(res[3], HIPSVM_DRAIN_SKIPPED);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[0], 0);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[1], 0x1f01, "a timed-out drain keeps it");
	cr_assert_eq(fk.proc.svms.checkpoint_ts[2], 0x2000);
	cr_assert_eq(fk.proc.svms.checkpoint_ts[3], 0);
	cr_assert_eq(fk.proc.svms.hook.clears.counter, 2);
	client_close(&h);
}

Test(amdgpu_hook, stats_for_the_report)
{
	struct hipsvm_reply r;
	struct hipsvm_hook h;

	client_open(&h);
	fk.proc.svms.faults_handled[0] = 7;
	fk.proc.svms.faults_dropped[0] = 3;
	fk.proc.svms.faults_handled[2] = 5;
	fk.proc.svms.checkpoint_resets[2] = 2;
	fk.proc.svms.checkpoint_ts[2] = 0xabc;
	cr_assert_eq(hipsvm_hook_stats(&h, 0x7, &r), 0);
	cr_assert_str_eq(hipsvm_reply_get(&r, "pasid"), "32769");
	cr_assert_str_eq(hipsvm_reply_get(&r, "tgid"), "4242");
	cr_assert_str_eq(hipsvm_reply_get(&r, "gpus"), "5");
	cr_assert_str_eq(hipsvm_reply_get(&r, "svm_gpus"), "4");
	cr_assert_str_eq(hipsvm_reply_get(&r, "handled"), "12");
	cr_assert_str_eq(hipsvm_reply_get(&r, "dropped"), "3");
	cr_assert_str_eq(hipsvm_reply_get(&r, "cleared_by_fault"), "2");
	cr_assert_str_eq(hipsvm_reply_get(&r, "unsupported"), "inject,ring,log");
	cr_assert_str_eq(hipsvm_reply_get(&r, "g0.faults_handled"), "7");
	cr_assert_str_eq(hipsvm_reply_get(&r, "g0.faults_dropped"), "3");
	cr_assert_str_eq(hipsvm_reply_get(&r, "g2.faults_handled"), "5");
	cr_assert_str_eq(hipsvm_reply_get(&r, "g2.gpu_id"), "1002");
	cr_assert_str_eq(hipsvm_reply_get(&r, "cp2"), "0xabc");
	cr_assert_null(hipsvm_reply_get(&r, "cp3"), "only the GPUs asked for");
	cr_assert_null(hipsvm_reply_get(&r, "g4.faults_handled"));
	/* Without a list: every SVM GPU's checkpoint, no per-GPU counters. */
	cr_assert_eq(hipsvm_hook_stats(&h, 0, &r), 0);
	cr_assert_str_eq(hipsvm_reply_get(&r, "cp3"), "0x0");
	cr_assert_null(hipsvm_reply_get(&r, "cp4"));
	cr_assert_null(hipsvm_reply_get(&r, "g0.faults_handled"));
	client_close(&h);
}

Test(amdgpu_hook, test_server_requests_are_unsupported)
{
	static const char *const reqs[] = { "inject 0 now 0x1000\n", "ring 0 ih1 off\n", "log\n" };
	struct hipsvm_hook h;
	unsigned int i;

	client_open(&h);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(raw(reqs[i]), -EOPNOTSUPP, "%s", reqs[i]);
		cr_assert_str_eq(reply(), "err EOPNOTSUPP not on real hardware\n");
	}
	cr_assert_eq(fk.proc.svms.hook.sets.counter + fk.proc.svms.hook.drains.counter, 0);
	client_close(&h);
}

Test(amdgpu_hook, bad_requests_change_nothing)
{
	char big[HIPSVM_PROTO_MAX_REQ + 8];
	struct hipsvm_hook h;

	client_open(&h);
	cr_assert_eq(raw("set 0 1\n"), -EINVAL);	/* a range needs addr and len */
	cr_assert_str_eq(reply(), "err EINVAL bad request\n");
	cr_assert_eq(raw("frobnicate\n"), -EINVAL);
	memset(big, 'x', sizeof(big));
	cr_assert_eq(write(vfs.fd, big, sizeof(big)), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_str_eq(reply(), "err EINVAL request too long\n");
	cr_assert_eq(fk.set_calls, 0);
	cr_assert_eq(fk.lookups, 0, "nothing is looked up for a request that does not parse");
	client_close(&h);
}

Test(amdgpu_hook, only_the_opener)
{
	uint64_t cp[HIPSVM_MAX_GPUS], mask;
	struct hipsvm_hook h;

	client_open(&h);
	/* A fork child with the inherited descriptor. */
	task.tgid = &child_pid;
	cr_assert_eq(hipsvm_hook_set(&h, 0x1, 0, 0, cp, &mask), -EPERM);
	cr_assert_str_eq(reply(), "err EPERM not the opener\n");
	cr_assert_eq(fk.set_calls, 0);
	task.tgid = &opener_pid;
	client_close(&h);
}
