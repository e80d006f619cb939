/* SPDX-License-Identifier: MIT */
/*
 * kfake.h - just enough of the kernel and of amdkfd for the checkpoint hook
 * file of kernel/amdgpu/ (kfd_hipsvm_hook.c, taken unchanged from the
 * series) to run in user space, against fakes of the driver pieces it calls:
 * the checkpoint of one GPU, the rings of its retry faults, the IH wait, the
 * reset domain's lock and the process lookup. The fakes record how they
 * were called, so that test_amdgpu_hook.c can check what the file did with
 * the driver, and drive it through the shim's unchanged hook client.
 *
 * Not thread-safe: one test thread at a time.
 */
#ifndef KFAKE_H
#define KFAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;

#define __user
#define THIS_MODULE NULL
#define HZ 1000			/* one jiffy is a millisecond here */
#define GFP_KERNEL 0
#define ERESTARTSYS 512
#define MAX_GPU_INSTANCE 64
#define BITS_PER_LONG 64

#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define cmpxchg64(p, o, n) __sync_val_compare_and_swap(p, o, n)

/* time */
extern unsigned long jiffies;
#define time_before(a, b) ((long)((a) - (b)) < 0)
static inline unsigned long msecs_to_jiffies(unsigned int ms) { return ms; }

/* atomics, locks */
typedef struct { long long counter; } atomic64_t;
static inline void atomic64_inc(atomic64_t *a) { a->counter++; }
static inline long long atomic64_read(const atomic64_t *a) { return a->counter; }
struct mutex { int locked; };
void mutex_init(struct mutex *m);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
void mutex_destroy(struct mutex *m);
struct rw_semaphore { int readers; bool writer; };
bool down_read_trylock(struct rw_semaphore *s);
void up_read(struct rw_semaphore *s);

static inline bool test_bit(unsigned int nr, const unsigned long *addr)
{
	return addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG) & 1;
}

/* memory, user copies */
static inline void *kzalloc(size_t n, int flags) { (void)flags; return calloc(1, n); }
static inline void kfree(void *p) { free(p); }
static inline unsigned long copy_from_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

/* tasks */
struct pid { int nr; int refs; };
struct mm_struct { int unused; };
struct task_struct { struct pid *tgid; struct mm_struct *mm; };
extern struct task_struct *current;
enum pid_type { PIDTYPE_TGID };
struct pid *get_task_pid(struct task_struct *t, enum pid_type type);
void put_pid(struct pid *pid);
static inline struct pid *task_tgid(struct task_struct *t) { return t->tgid; }
static inline int task_tgid_vnr(struct task_struct *t) { return t->tgid->nr; }

/* files */
#define loff_t kfake_loff_t
typedef long long kfake_loff_t;
struct inode { int unused; };
struct file { void *private_data; loff_t f_pos; };
struct dentry { int unused; };
struct module;
struct file_operations {
	struct module *owner;
	int (*open)(struct inode *, struct file *);
	int (*release)(struct inode *, struct file *);
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	loff_t (*llseek)(struct file *, loff_t, int);
};
loff_t default_llseek(struct file *f, loff_t off, int whence);
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);
struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops);

/* amdgpu */
struct amdgpu_ih_ring {
	bool enabled;
	bool done;		/* processed past any checkpoint taken now */
	bool signal;		/* a signal arrives while waiting */
	unsigned int waits;
	long timeouts[16];	/* the timeouts it was waited on with */
};
struct amdgpu_reset_domain { struct rw_semaphore sem; };
struct amdgpu_device {
	struct amdgpu_reset_domain *reset_domain;
	bool retry_cam;
	struct amdgpu_ih_ring ih, ih1, ih_soft;
	bool ring_nonempty;	/* the ring a set reads from */
	u64 last_ts;		/* the timestamp of its last IV */
};
long amdgpu_ih_wait_on_checkpoint_process_ts_timeout(struct amdgpu_device *adev,
						     struct amdgpu_ih_ring *ih, long timeout);

/* amdkfd */
struct kfd_node { struct amdgpu_device *adev; };
struct kfd_process_device { struct kfd_node *dev; u32 user_gpu_id; };
struct svm_range_list {
	unsigned long bitmap_supported[1];
	uint64_t checkpoint_ts[MAX_GPU_INSTANCE];
	uint64_t faults_handled[MAX_GPU_INSTANCE];
	uint64_t faults_dropped[MAX_GPU_INSTANCE];
	uint64_t checkpoint_resets[MAX_GPU_INSTANCE];
	struct {
		atomic64_t sets, sets_empty, clears, drains, drain_timeouts,
			drain_nodev, drain_skipped;
	} hook;
};
struct kfd_process {
	struct kfd_process_device *pdds[MAX_GPU_INSTANCE];
	uint32_t n_pdds;
	struct svm_range_list svms;
	u32 pasid;
	bool xnack_enabled;
	int refs;
	struct mm_struct *mm;
};
struct kfd_process *kfd_lookup_process_by_mm(const struct mm_struct *mm);
void kfd_unref_process(struct kfd_process *p);
bool svm_range_set_checkpoint(struct kfd_process *p, uint32_t gpuidx, uint64_t *ts);
unsigned int svm_range_retry_fault_rings(struct amdgpu_device *adev,
					 struct amdgpu_ih_ring *ih[2]);
void kfd_hipsvm_hook_init(struct dentry *root);

#endif
