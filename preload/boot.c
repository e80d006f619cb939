/* SPDX-License-Identifier: MIT */
/*
 * boot.c - start-up, messages, fork and exit of the shim (boot.h).
 */
#include "boot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hip_abi.h"
#include "hipsvm_config.h"
#include "shim/options.h"
#include "shim/policy.h"
#include "table.h"
#include "shim/outname.h"
#include "shim/trace.h"

extern char **environ;

enum { ST_UNINIT, ST_BOOTING, ST_READY, ST_DISABLED };

struct hipsvm_shim *hipsvm_shim_ptr;
static uint64_t *const no_bits;
uint64_t *const *hipsvm_svm_bits = &no_bits;
static struct hipsvm_shim g;
static struct hipsvm_options opts;
static int state;
static unsigned warn_count[HIPSVM_EV_COUNT];
static bool atfork_done;

/* --- messages --- */

struct msg {
	char buf[1024];
	size_t len;
};

static void m_put(struct msg *m, const char *s, size_t n)
{
	if (n > sizeof(m->buf) - 1 - m->len)
		n = sizeof(m->buf) - 1 - m->len;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
}

static void m_num(struct msg *m, unsigned long long v, unsigned base, bool neg)
{
	char tmp[24];
	int i = 24;

	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[--i] = '-';
	m_put(m, tmp + i, (size_t)(24 - i));
}

/* Where warnings go: a copy of the stderr the program started with (above
 * 2, close-on-exec), or nowhere when it started with stderr closed. Never
 * fd 2 as such: a program that closed it may since have opened its trace, a
 * socket or a data file there. Taken once, at the shim's start. */
static int say_fd = -2;

static void say_fd_init(void)
{
	int fd = -1, none = -2;

	if (__atomic_load_n(&say_fd, __ATOMIC_ACQUIRE) != -2)
		return;
	if (fcntl(2, F_GETFD) != -1)
		fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (!__atomic_compare_exchange_n(&say_fd, &none, fd < 0 ? -1 : fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) && fd >= 0)
		close(fd);
}

void hipsvm_say(const char *fmt, ...)
{
	struct msg m;
	va_list ap;
	int saved = errno;

	m.len = 0;
	m_put(&m, "hipsvm: ", 8);
	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			m_put(&m, fmt, 1);
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			const char *s = va_arg(ap, const char *);

			s = s ? s : "(null)";
			m_put(&m, s, strlen(s));
		} else if (*fmt == 'd') {
			int v = va_arg(ap, int);

			m_num(&m, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 10,
			      v < 0);
		} else if (*fmt == 'u') {
			m_num(&m, va_arg(ap, unsigned), 10, false);
		} else if (*fmt == 'x') {
			m_num(&m, va_arg(ap, unsigned), 16, false);
		} else if (*fmt == 'l' && fmt[1] == 'u') {
			fmt++;
			m_num(&m, va_arg(ap, unsigned long), 10, false);
		} else if (*fmt == 'z' && fmt[1] == 'u') {
			fmt++;
			m_num(&m, va_arg(ap, size_t), 10, false);
		} else if (*fmt == '%') {
			m_put(&m, "%", 1);
		} else if (!*fmt) {
			break;
		}
	}
	va_end(ap);
	m_put(&m, "\n", 1);
	say_fd_init();
	if (say_fd >= 0 && write(say_fd, m.buf, m.len) < 0)
		(void)0;
	errno = saved;
}

static bool verbose(void)
{
	return opts.num[HIPSVM_O_VERBOSE] != 0;
}

static bool take_warning(enum hipsvm_shim_event ev, unsigned limit)
{
	return __atomic_fetch_add(&warn_count[ev], 1, __ATOMIC_RELAXED) < limit;
}

/* One line: why the named hook is not used (HIP wrappers only). */
static void say_refused(int err)
{
	const char *path = g.hook_path;

	switch (-err) {
	case EMEDIUMTYPE:
		hipsvm_say("HIPSVM_HOOK: %s is neither the hipsvm module's debugfs file nor a "
			   "socket: refused, not opened for writing; unmaps go uncoordinated", path);
		break;
	case EACCES:
		hipsvm_say("HIPSVM_HOOK: %s is served by uid %u (pid %d), not by this user: "
			   "refused, nothing sent; unmaps go uncoordinated", path, g.hook_peer_uid,
			   g.hook_peer_pid);
		break;
	case EPERM:
		hipsvm_say("HIPSVM_HOOK: %s should be this process's simulator but is served by "
			   "pid %d: refused, nothing sent; unmaps go uncoordinated", path,
			   g.hook_peer_pid);
		break;
	default:
		hipsvm_say("HIPSVM_HOOK: cannot use %s (%s); unmaps go uncoordinated", path,
			   hipsvm_errno_name(err));
		break;
	}
}

/* Called from the unmap path: write() only. */
static void notify(enum hipsvm_shim_event ev, int err)
{
	/* HIPSVM_VERBOSE: every warning, uncapped. */
	unsigned limit = verbose() ? UINT32_MAX : (unsigned)opts.num[HIPSVM_O_WARN_LIMIT];

	switch (ev) {
	case HIPSVM_EV_NO_HOOK:
		/* One warning, whatever the limit: it says it all. */
		if (take_warning(ev, 1))
			hipsvm_say("GPU-visible memory was unmapped without checkpoint "
				   "coordination: no checkpoint hook (HIPSVM_HOOK=%s). GPU faults "
				   "in flight may be handled against the old mapping; this and "
				   "later such unmaps are counted as unmaps.uncoordinated in the "
				   "report", opts.str[HIPSVM_O_HOOK]);
		break;
	case HIPSVM_EV_HOOK_ERROR:
		if (take_warning(ev, limit))
			hipsvm_say("checkpoint hook request failed (%s): the unmap went ahead "
				   "uncoordinated", hipsvm_errno_name(err));
		break;
	case HIPSVM_EV_DRAIN_TIMEOUT:
		if (take_warning(ev, limit))
			hipsvm_say("drain of GPU %d timed out after %lu ms; the unmap went ahead",
				   err, (unsigned long)opts.num[HIPSVM_O_DRAIN_TIMEOUT_MS]);
		break;
	case HIPSVM_EV_REENTRANT:
		if (verbose() && take_warning(ev, limit))
			hipsvm_say("an unmap re-entered the shim (signal handler?): not "
				   "coordinated, counted as reentrant_skipped");
		break;
	case HIPSVM_EV_REGISTRY:
		if (take_warning(ev, limit))
			hipsvm_say("allocation not tracked (%s)", hipsvm_errno_name(err));
		break;
	case HIPSVM_EV_HOOK_REFUSED:
		if (take_warning(ev, 1))
			say_refused(err);
		break;
	case HIPSVM_EV_COUNT:
		break;
	}
}

/* --- the real HIP calls the core may make --- */

static int op_get_device(int *dev)
{
	int (*f)(int *) = (int (*)(int *))hipsvm_real(HIPSVM_ROW_hipGetDevice);

	return f ? f(dev) : hipErrorNotInitialized;
}

static int op_get_device_count(int *n)
{
	int (*f)(int *) = (int (*)(int *))hipsvm_real(HIPSVM_ROW_hipGetDeviceCount);

	return f ? f(n) : hipErrorNotInitialized;
}

static int op_mem_advise(const void *p, size_t n, int advice, int dev)
{
	int (*f)(const void *, size_t, int, int) =
		(int (*)(const void *, size_t, int, int))hipsvm_real(HIPSVM_ROW_hipMemAdvise);

	return f ? f(p, n, advice, dev) : hipErrorNotInitialized;
}

static int op_get_last_error(void)
{
	int (*f)(void) = (int (*)(void))hipsvm_real(HIPSVM_ROW_hipGetLastError);

	return f ? f() : hipSuccess;
}

/* Only through the runtime's own exports (the seam): never by linking sim/. */
static const char *op_sim_socket(void)
{
	const char *(*f)(void) = (const char *(*)(void))hipsvm_real(HIPSVM_ROW_hipsvmSimSocketPath);

	return f ? f() : NULL;
}

/* --- LD_PRELOAD --- */

static bool is_ours(const char *tok, size_t n)
{
	const char *base = tok;
	size_t i;

	for (i = 0; i < n; i++)
		if (tok[i] == '/')
			base = tok + i + 1;
	n -= (size_t)(base - tok);
	return n >= 9 && !memcmp(base, "libhipsvm", 9);
}

int hipsvm_strip_preload(char **env)
{
	static const char key[] = "LD_PRELOAD=";
	int removed = 0;

	for (; env && *env; env++) {
		char *v, *r, *w;

		if (strncmp(*env, key, sizeof(key) - 1))
			continue;
		v = *env + sizeof(key) - 1;
		r = w = v;
		/* Entries are separated by ':' or spaces (ld.so(8)). */
		while (*r) {
			size_t n = 0;

			while (*r == ':' || *r == ' ')
				r++;
			while (r[n] && r[n] != ':' && r[n] != ' ')
				n++;
			if (!n)
				break;
			if (is_ours(r, n)) {
				removed++;
			} else {
				if (w != v)
					*w++ = ':';
				memmove(w, r, n);
				w += n;
			}
			r += n;
		}
		*w = '\0';
	}
	return removed;
}

/* --- start-up --- */

static void atfork_child(void);

/* The whole path (PATH_MAX); should the link ever be longer, the cut falls
 * before a UTF-8 character, never inside one. */
static void program_path(char *buf, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", buf, cap - 1);

	if (n < 0)
		n = 0;
	if ((size_t)n == cap - 1 && n > 0) {
		ssize_t j = n - 1;
		unsigned char c;

		while (j > 0 && ((unsigned char)buf[j] & 0xc0) == 0x80)
			j--;
		c = (unsigned char)buf[j];
		if (c >= 0xc0 && j + (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) > n)
			n = j;
	}
	buf[n] = '\0';
}

static int open_trace(void)
{
	char path[PATH_MAX];
	int fd;

	if (!opts.str[HIPSVM_O_TRACE][0])
		return -1;
	fd = hipsvm_outname(opts.str[HIPSVM_O_TRACE], getpid(), environ, path, sizeof(path));
	if (fd) {
		hipsvm_say("HIPSVM_TRACE: %s; no trace", fd == -EINVAL ?
			   "%e needs a variable name in braces, e.g. %e{SLURM_JOB_ID}" : "path too long");
		return -1;
	}
	fd = hipsvm_trace_open(path);
	if (fd == -ELOOP)
		hipsvm_say("HIPSVM_TRACE: %s is a symbolic link: not followed; no trace", path);
	else if (fd == -EPERM)
		hipsvm_say("HIPSVM_TRACE: %s belongs to another user: not appended to; no trace",
			   path);
	else if (fd == -EINVAL)
		hipsvm_say("HIPSVM_TRACE: %s is not a regular file; no trace", path);
	else if (fd < 0)
		hipsvm_say("HIPSVM_TRACE: cannot open %s (%s); no trace", path,
			   hipsvm_errno_name(fd));
	return fd < 0 ? -1 : fd;
}

static void do_boot(void)
{
	struct hipsvm_opt_error errs[8];
	struct hipsvm_policy pol;
	char bad[64];
	int nerr, i, err;

	say_fd_init();
	nerr = hipsvm_options_load(&opts, environ, errs, 8);
	for (i = 0; i < nerr && i < 8; i++) {
		const struct hipsvm_option_desc *d = hipsvm_option_desc(errs[i].id);

		if (errs[i].err == -EPERM)
			hipsvm_say("HIPSVM_%s and every other HIPSVM_ variable ignored: this program "
				   "runs in secure-execution mode (setuid, setgid or capabilities), "
				   "whose environment is not its owner's; the defaults are in force",
				   errs[i].value);
		else if (d && errs[i].err == -ERANGE)
			hipsvm_say("HIPSVM_%s=%s: out of range (%lu to %lu); using the default "
				   "value \"%s\"", d->name, errs[i].value, (unsigned long)d->min,
				   (unsigned long)d->max, d->def);
		else if (d)
			hipsvm_say("HIPSVM_%s=%s%s: %s; using the default value \"%s\"", d->name,
				   errs[i].value,
				   strlen(errs[i].value) + 1 >= sizeof(errs[i].value) ? "..." : "",
				   hipsvm_option_why(errs[i].id, errs[i].err), d->def);
		else
			hipsvm_say("%s: unknown HIPSVM_ variable, ignored", errs[i].value);
	}
	if (!opts.num[HIPSVM_O_INHERIT])
		hipsvm_strip_preload(environ);
	if (!atfork_done) {
		atfork_done = true;
		pthread_atfork(NULL, NULL, atfork_child);
	}
	if (!opts.num[HIPSVM_O_ENABLE]) {
		__atomic_store_n(&state, ST_DISABLED, __ATOMIC_RELEASE);
		return;
	}
	if (hipsvm_policy_parse(opts.str[HIPSVM_O_POLICY], &pol, bad, sizeof(bad))) {
		hipsvm_say("HIPSVM_POLICY=%s: \"%s\" is not a policy (see docs/routing.md); "
			   "using the default", opts.str[HIPSVM_O_POLICY], bad);
		hipsvm_policy_default(&pol);
	}
	err = hipsvm_shim_init(&g, &pol, opts.str[HIPSVM_O_HOOK],
			       (uint32_t)opts.num[HIPSVM_O_DRAIN_TIMEOUT_MS], open_trace(), getpid());
	if (err) {
		hipsvm_say("cannot start (%s); passing everything through",
			   hipsvm_errno_name(err));
		__atomic_store_n(&state, ST_DISABLED, __ATOMIC_RELEASE);
		return;
	}
	/* The unmap hooks' real functions now, not from inside an unmap
	 * (dlsym is not async-signal-safe). */
	hipsvm_real(HIPSVM_ROW_munmap);
	hipsvm_real(HIPSVM_ROW_mmap);
	hipsvm_real(HIPSVM_ROW_mremap);
	hipsvm_real(HIPSVM_ROW_madvise);
	g.notify = notify;
	g.ops.get_device = op_get_device;
	g.ops.get_device_count = op_get_device_count;
	g.ops.mem_advise = op_mem_advise;
	g.ops.get_last_error = op_get_last_error;
	g.ops.sim_socket = op_sim_socket;
	program_path(g.program, sizeof(g.program));
	if (verbose()) {
		static char table[8192];

		size_t n = hipsvm_options_format(&opts, table, sizeof(table));

		hipsvm_say("libhipsvm %s, policy %s; options:", HIPSVM_VERSION, g.policy_text);
		if (n >= sizeof(table))
			n = sizeof(table) - 1;
		if (say_fd >= 0 && write(say_fd, table, n) < 0)
			(void)0;
	}
	__atomic_store_n(&hipsvm_svm_bits, g.svm_bits, __ATOMIC_RELEASE);
	__atomic_store_n(&hipsvm_shim_ptr, &g, __ATOMIC_RELEASE);
	__atomic_store_n(&state, ST_READY, __ATOMIC_RELEASE);
}

struct hipsvm_shim *hipsvm_boot(void)
{
	int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (st == ST_READY)
		return &g;
	if (st == ST_DISABLED)
		return NULL;
	if (st == ST_UNINIT &&
	    __atomic_compare_exchange_n(&state, &st, ST_BOOTING, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		{
			HIPSVM_GUARDED();
			do_boot();
		}
		return hipsvm_ready();
	}
	/* Re-entered from the boot itself (the dynamic linker calling back in):
	 * go on without the shim. */
	if (hipsvm_tls.guard)
		return NULL;
	while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_BOOTING)
		syscall(SYS_sched_yield);
	return hipsvm_ready();
}

static void atfork_child(void)
{
	int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	/* The thread that was booting does not exist in the child. */
	if (st == ST_BOOTING) {
		__atomic_store_n(&state, ST_UNINIT, __ATOMIC_RELEASE);
		return;
	}
	if (st != ST_READY)
		return;
	hipsvm_shim_atfork_child(&g, getpid());
	__atomic_store_n(&hipsvm_svm_bits, g.svm_bits, __ATOMIC_RELEASE);
	memset(warn_count, 0, sizeof(warn_count));
	hipsvm_trace_lost_reset();	/* the child says what it lost, not its parent */
	hipsvm_table_reset_missing();
	if (g.trace_fd >= 0 && hipsvm_outname_per_process(opts.str[HIPSVM_O_TRACE])) {
		/* A per-process trace: the child gets its own file. */
		close(g.trace_fd);
		g.trace_fd = open_trace();
	}
}

int hipsvm_report_path(char *buf, size_t cap)
{
	if (!hipsvm_ready() || !opts.str[HIPSVM_O_REPORT][0])
		return -ENOENT;
	return hipsvm_outname(opts.str[HIPSVM_O_REPORT], getpid(), environ, buf, cap);
}

__attribute__((constructor)) static void hipsvm_ctor(void)
{
	hipsvm_boot();
}
