/* SPDX-License-Identifier: MIT */
/* hook.c - checkpoint hook client; see hook.h for the contract. */
#include "shim/hook.h"
#include "shim/testing.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shared/checkpoint.h"
#include "shared/hooksrv.h"
#include "shim/options.h"
#include "shim/outfile.h"
#include "shim/outname.h"

#define DEFAULT_REPLY_TIMEOUT_MS 5000
/* include/uapi/linux/magic.h */
#define HIPSVM_DEBUGFS_MAGIC 0x64626720
#define HIPSVM_TRACEFS_MAGIC 0x74726163

void hipsvm_hook_init(struct hipsvm_hook *h)
{
	h->fd = -1;
	h->is_file = false;
	h->reply_timeout_ms = 0;
	h->server_pid = 0;
	h->peer_pid = 0;
	h->peer_uid = 0;
	h->path[0] = '\0';
}

/* "@name", "unix:/path", or (for a socket found on disk) "/path". */
static int sock_addr(const char *path, struct sockaddr_un *sa, socklen_t *salen)
{
	size_t n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (path[0] == '@') {
		/* Abstract: a leading NUL, and the length says where it ends. */
		n = strlen(path + 1);
		if (n == 0 || n + 1 > sizeof(sa->sun_path))
			return -ENAMETOOLONG;
		memcpy(sa->sun_path + 1, path + 1, n);
		*salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
		return 0;
	}
	if (strncmp(path, "unix:", 5) == 0)
		path += 5;
	else if (path[0] != '/')
		return -EINVAL;
	n = strlen(path);
	if (n == 0 || n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, n);
	*salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

/* Who listens: our effective user or root, and the one process asked for.
 * The credentials are those the server had when it called listen(). */
static int peer_check(struct hipsvm_hook *h, int fd)
{
	struct ucred c;
	socklen_t n = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &n) != 0)
		return -errno;
	h->peer_pid = c.pid;
	h->peer_uid = c.uid;
	if (c.uid != geteuid() && c.uid != 0)
		return -EACCES;
	if (h->server_pid > 0 && c.pid != h->server_pid)
		return -EPERM;
	return 0;
}

static int sock_open(struct hipsvm_hook *h, const char *path)
{
	struct sockaddr_un sa;
	socklen_t salen;
	int fd, err;

	err = sock_addr(path, &sa, &salen);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	while (connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		if (errno == EINTR)
			continue;
		err = -errno;
		close(fd);
		return err;
	}
	/* Checked before a single byte is sent: a stranger learns nothing. */
	err = peer_check(h, fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* A path: the module's file, or a socket. It is looked at through an O_PATH
 * descriptor first, which reads and writes nothing (a FIFO does not block, a
 * device is not opened, a regular file is not touched); only a regular file
 * of debugfs or tracefs is then opened for writing, and only if it is still
 * the same file. */
static int file_open(struct hipsvm_hook *h, const char *path)
{
	struct statfs fs;
	struct stat a, b;
	int pfd, fd, err = 0;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &a) != 0 || fstatfs(pfd, &fs) != 0)
		err = -errno;
	close(pfd);
	if (err)
		return err;
	if (S_ISSOCK(a.st_mode))
		return sock_open(h, path);
	if (!S_ISREG(a.st_mode) ||
	    (fs.f_type != HIPSVM_DEBUGFS_MAGIC && fs.f_type != HIPSVM_TRACEFS_MAGIC))
		return -EMEDIUMTYPE;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &b) != 0 || b.st_dev != a.st_dev || b.st_ino != a.st_ino) {
		close(fd);
		return -EMEDIUMTYPE;	/* swapped under us: refuse what came instead */
	}
	h->is_file = true;
	return fd;
}

int hipsvm_hook_open(struct hipsvm_hook *h, const char *path)
{
	size_t n = strlen(path);
	int fd;

	if (n == 0 || n >= sizeof(h->path))
		return -EINVAL;
	h->is_file = false;
	fd = path[0] == '/' ? file_open(h, path) : sock_open(h, path);
	/* Never 0, 1 or 2: a program started with one of them closed would
	 * have its output (or the shim's warnings) sent to the hook. */
	fd = hipsvm_fd_above_stdio(fd);
	if (fd < 0)
		return fd;
	h->fd = fd;
	memcpy(h->path, path, n + 1);
	return 0;
}

void hipsvm_hook_close(struct hipsvm_hook *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

static int copy_out(const char *path, char *out, size_t cap)
{
	size_t n = strlen(path);

	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(out, path, n + 1);
	return 0;
}

/* The simulator's name ("@NAME" or a file path) as a hook path. */
static int sim_hook_path(const char *sim_name, int pid, char *out, size_t cap)
{
	size_t n;

	if (!sim_name || !sim_name[0])
		return hipsvm_expand_path(HIPSVM_HOOK_SIM_FMT, pid, out, cap);
	if (sim_name[0] == '@')
		return copy_out(sim_name, out, cap);
	n = strlen(sim_name);
	if (n + 6 > cap)
		return -ENAMETOOLONG;
	memcpy(out, "unix:", 5);
	memcpy(out + 5, sim_name, n + 1);
	return 0;
}

/* Whether path names the simulator of this process: its default name, or
 * the name it told us (which "unix:", or nothing, may precede). */
static bool is_sim_path(const char *path, const char *sim_name, int pid)
{
	char def[HIPSVM_HOOK_PATH_MAX];

	if (hipsvm_expand_path(HIPSVM_HOOK_SIM_FMT, pid, def, sizeof(def)) == 0 &&
	    strcmp(path, def) == 0)
		return true;
	if (!sim_name || !sim_name[0])
		return false;
	if (strncmp(path, "unix:", 5) == 0 && sim_name[0] != '@')
		path += 5;
	return strcmp(path, sim_name) == 0;
}

int hipsvm_hook_resolve(const char *opt, int pid, const char *sim_name, char *out, size_t cap,
			int *server_pid)
{
	struct hipsvm_hook probe;
	char path[HIPSVM_HOOK_PATH_MAX];
	int err;

	if (!opt || !*opt || strcmp(opt, "none") == 0)
		return -ENOENT;
	if (strcmp(opt, "auto") != 0) {
		err = hipsvm_expand_path(opt, pid, path, sizeof(path));
		if (err)
			return err;
		*server_pid = is_sim_path(path, sim_name, pid) ? pid : 0;
		return copy_out(path, out, cap);
	}
	if (access(HIPSVM_HOOK_DEBUGFS, R_OK | W_OK) == 0) {
		*server_pid = 0;
		return copy_out(HIPSVM_HOOK_DEBUGFS, out, cap);
	}
	if (access(HIPSVM_HOOK_KFD, R_OK | W_OK) == 0) {
		*server_pid = 0;
		return copy_out(HIPSVM_HOOK_KFD, out, cap);
	}
	err = sim_hook_path(sim_name, pid, path, sizeof(path));
	if (err)
		return err;
	hipsvm_hook_init(&probe);
	probe.server_pid = pid;
	err = hipsvm_hook_open(&probe, path);
	hipsvm_hook_close(&probe);
	/* Someone else answers there: name it, so that the open refuses it
	 * loudly rather than "no hook" quietly. */
	if (err && err != -EACCES && err != -EPERM)
		return -ENOENT;
	*server_pid = pid;
	return copy_out(path, out, cap);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);	/* async-signal-safe */
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Waits for ev on fd until the deadline: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		uint64_t now = now_ns();
		int pr;

		if (now >= deadline)
			return -ETIMEDOUT;
		/* rounded up: a poll of 0 ms would spin */
		pr = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (pr > 0)
			return 0;
		if (pr < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
	while (len) {
		/* MSG_NOSIGNAL: a server that went away must not kill the
		 * program with SIGPIPE. MSG_DONTWAIT: one that stops reading
		 * must not hold us past the deadline. */
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			if (err != EAGAIN && err != EWOULDBLOCK)
				return -err;
			err = wait_fd(fd, POLLOUT, deadline);
			if (err)
				return err;
			continue;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One line, whole, by the deadline: a server that drips its reply a byte at
 * a time gets no more time than one that sends nothing. Bytes after the
 * newline are a server out of step with us (-EPROTO). */
static int read_line(int fd, char *buf, size_t cap, uint64_t deadline)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;
		char *nl;
		int err = wait_fd(fd, POLLIN, deadline);

		if (err)
			return err;
		n = recv(fd, buf + len, cap - 1 - len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		len += (size_t)n;
		buf[len] = '\0';
		nl = memchr(buf, '\n', len);
		if (nl)
			return nl + 1 == buf + len ? (int)len : -EPROTO;
		if (len == cap - 1)
			return -E2BIG;
	}
}

/* How long the whole reply to cmd may take. */
static uint64_t reply_budget_ms(const struct hipsvm_hook *h, const struct hipsvm_cmd *cmd)
{
	uint64_t ms = h->reply_timeout_ms ? h->reply_timeout_ms : DEFAULT_REPLY_TIMEOUT_MS;
	uint64_t drain;

	if (cmd->op == HIPSVM_OP_DRAIN || cmd->op == HIPSVM_OP_DRAINCLEAR) {
		drain = (cmd->has_timeout ? cmd->timeout_ms : HIPSVM_DRAIN_DEFAULT_MS) +
			(uint64_t)HIPSVM_HOOK_MARGIN_MS;
		if (drain > ms)
			ms = drain;
	}
	return ms;
}

/* One request, its reply line in rep (NUL-terminated): its length, or
 * -errno (the connection is then closed). A kernel that refuses the write
 * answers with that errno: *refused, and 0. */
static int call_line(struct hipsvm_hook *h, const struct hipsvm_cmd *cmd, char *rep, size_t cap,
		     int *refused)
{
	char req[HIPSVM_PROTO_MAX_REQ + 1];
	uint64_t deadline;
	int len, err;

	*refused = 0;
	if (h->fd < 0)
		return -ENOTCONN;
	len = hipsvm_proto_format(cmd, req, sizeof(req));
	if (len < 0)
		return len;
	deadline = now_ns() + reply_budget_ms(h, cmd) * 1000000u;
	if (h->is_file) {
		ssize_t n;

		if (write(h->fd, req, (size_t)len) < 0) {
			err = errno;
			if (err == EINTR || err == EBADF || err == EIO)
				goto broken;
			/* The kernel refused the request: that is its answer. */
			*refused = -err;
			return 0;
		}
		do
			n = pread(h->fd, rep, cap - 1, 0);
		while (n < 0 && errno == EINTR);
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			goto broken;
		}
		rep[n] = '\0';
		return (int)n;
	}
	err = -send_all(h->fd, req, (size_t)len, deadline);
	if (err)
		goto broken;
	len = read_line(h->fd, rep, cap, deadline);
	if (len >= 0)
		return len;
	err = -len;
broken:
	hipsvm_hook_close(h);
	return -err;
}

int hipsvm_hook_call(struct hipsvm_hook *h, const struct hipsvm_cmd *cmd, struct hipsvm_reply *r)
{
	char rep[HIPSVM_PROTO_MAX_REPLY + 1];
	int len, err, refused;

	len = call_line(h, cmd, rep, sizeof(rep), &refused);
	if (len < 0)
		return len;
	if (refused) {
		memset(r, 0, sizeof(*r));
		r->status = refused;
		return 0;
	}
	err = hipsvm_proto_parse_reply(rep, (size_t)len, r);
	if (err)
		hipsvm_hook_close(h);	/* out of step with the server */
	return err;
}

/* The unmap hook's calls: the reply read in place (hipsvm_reply_open).
 * 0 with *it at the first token, the server's -errno, or -errno of the
 * call. */
static int call_open(struct hipsvm_hook *h, const struct hipsvm_cmd *cmd, char *rep, size_t cap,
		     struct hipsvm_reply_it *it)
{
	struct hipsvm_span w;
	int len, refused, status, rc;

	len = call_line(h, cmd, rep, cap, &refused);
	if (len < 0)
		return len;
	if (refused)
		return refused;
	rc = hipsvm_reply_open(rep, (size_t)len, it, &w, &status);
	if (rc < 0) {
		hipsvm_hook_close(h);	/* out of step with the server */
		return rc;
	}
	return status;
}

static int simple(struct hipsvm_hook *h, enum hipsvm_op op, struct hipsvm_reply *r)
{
	struct hipsvm_cmd c;
	int err;

	memset(&c, 0, sizeof(c));
	c.op = op;
	err = hipsvm_hook_call(h, &c, r);
	if (err)
		return err;
	return r->status;
}

int hipsvm_hook_version(struct hipsvm_hook *h)
{
	struct hipsvm_reply r;
	uint64_t v;
	int err = simple(h, HIPSVM_OP_VERSION, &r);

	if (err)
		return err;
	/* "ok version 1 hipsvm-hook": the first token is the number. */
	if (r.ntok < 1 || hipsvm_proto_u64(r.tok[0].key, strlen(r.tok[0].key), &v) || v > 1000)
		return -EPROTO;
	return (int)v;
}

int hipsvm_hook_gpus(struct hipsvm_hook *h)
{
	struct hipsvm_reply r;
	const char *n;
	uint64_t v;
	int err = simple(h, HIPSVM_OP_GPUS, &r);

	if (err)
		return err;
	n = hipsvm_reply_get(&r, "n");
	if (!n || hipsvm_proto_u64(n, strlen(n), &v) || v > HIPSVM_MAX_GPUS)
		return -EPROTO;
	return (int)v;
}

/* Token "N=..." to a GPU index, or -1. */
static int tok_gpu(struct hipsvm_span key)
{
	uint64_t g;

	/* "N" and "NN", the only keys a reply of up to 64 GPUs has */
	if (key.n == 1 && key.p[0] >= '0' && key.p[0] <= '9')
		return key.p[0] - '0';
	if (key.n == 2 && key.p[0] >= '1' && key.p[0] <= '9' && key.p[1] >= '0' && key.p[1] <= '9' &&
	    (key.p[0] - '0') * 10 + (key.p[1] - '0') < HIPSVM_MAX_GPUS)
		return (key.p[0] - '0') * 10 + (key.p[1] - '0');

	if (hipsvm_proto_u64(key.p, key.n, &g) || g >= HIPSVM_MAX_GPUS)
		return -1;
	return (int)g;
}

/* Everything of c but the values, which only the bits of has_value make
 * read (put_values writes each it sets): the unmap's requests clear 600
 * bytes less. */
static void cmd_zero(struct hipsvm_cmd *c)
{
	memset(c, 0, offsetof(struct hipsvm_cmd, value));
	memset((char *)c + offsetof(struct hipsvm_cmd, value) + sizeof(c->value), 0,
	       sizeof(*c) - offsetof(struct hipsvm_cmd, value) - sizeof(c->value));
}

/* The next token of a set or drain reply as its GPU and value: "N=value"
 * and "NN=value" read in one pass; any other token as hipsvm_reply_next and
 * tok_gpu read it (g -1 for a key that names no GPU). false at the end.
 * The line is NUL-terminated after its end (call_line), and what ends it,
 * '\n' or NUL, is below '!': the scans stop there without a bound check. */
static inline __attribute__((always_inline)) bool next_gpu_tok(struct hipsvm_reply_it *it, int *g,
								 struct hipsvm_span *val)
{
	const char *b = it->buf, *p = b + it->i, *e = b + it->end, *v;
	struct hipsvm_span key;
	unsigned n;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	it->i = (size_t)(p - b);
	if ((unsigned)(p[0] - '0') < 10) {
		n = (unsigned)(p[0] - '0');
		v = p + 1;
		if (n && (unsigned)(v[0] - '0') < 10)
			n = n * 10 + (unsigned)(*v++ - '0');
		if (*v == '=' && v < e && n < HIPSVM_MAX_GPUS) {
			p = ++v;
			/* printable letters run to the separator: eight at a
			 * time where the line has them (the lowest byte below
			 * '!' of a word is exact), else one compare each; a
			 * control character other than the separators belongs
			 * to the token (hipsvm_reply_next) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			if (p + 8 <= e) {
				uint64_t w, lo;

				memcpy(&w, p, 8);
				lo = (w - UINT64_C(0x2121212121212121)) & ~w & UINT64_C(0x8080808080808080);
				p += lo ? (unsigned)__builtin_ctzll(lo) / 8 : 8;
			}
#endif
			while ((unsigned char)*p > ' ')
				p++;
			while (p < e && *p != ' ' && *p != '\t')
				p++;
			if (p > e)
				p = e;
			val->p = v;
			val->n = (size_t)(p - v);
			it->i = (size_t)(p - b);
			*g = (int)n;
			return true;
		}
	}
	if (!hipsvm_reply_next(it, &key, val))
		return false;
	*g = tok_gpu(key);
	return true;
}

int hipsvm_hook_set(struct hipsvm_hook *h, uint64_t gpus, uint64_t addr, uint64_t len,
		    uint64_t cp_out[HIPSVM_MAX_GPUS], uint64_t *set_mask)
{
	char rep[HIPSVM_PROTO_MAX_REPLY + 1];
	struct hipsvm_reply_it it;
	struct hipsvm_span val;
	int g;
	struct hipsvm_cmd c;
	uint64_t mask = 0;
	int err;

	if (!gpus)
		return -EINVAL;
	cmd_zero(&c);
	c.op = HIPSVM_OP_SET;
	c.gpus = gpus;
	if (len) {
		c.has_range = true;
		c.addr = addr;
		c.len = len;
	}
	err = call_open(h, &c, rep, sizeof(rep), &it);
	if (err)
		return err;
	while (next_gpu_tok(&it, &g, &val)) {
		uint64_t v;

		if (g < 0 || !(gpus >> g & 1))
			continue;
		/* "none": empty rings (0x0 is a real timestamp); a number
		 * starts with a digit */
		if (!val.n || (unsigned)(val.p[0] - '0') >= 10 || hipsvm_proto_u64(val.p, val.n, &v))
			continue;
		cp_out[g] = v;
		mask |= UINT64_C(1) << g;
	}
	*set_mask = mask;
	return 0;
}

/* N=TS for each GPU of gpus that cp_mask gives a value (clear, drainclear). */
static void put_values(struct hipsvm_cmd *c, uint64_t gpus, const uint64_t cp[HIPSVM_MAX_GPUS],
		       uint64_t cp_mask)
{
	unsigned g;

	uint64_t left = cp_mask & gpus;

	for (; left; left &= left - 1) {
		g = (unsigned)__builtin_ctzll(left);
		c->has_value |= UINT64_C(1) << g;
		c->value[g] = cp[g];
	}
}

/* The n bytes at v are the reply word w. */
static bool word_is(const char *v, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] != v[i] || !w[i])
			return false;
	return !w[n];
}

/* drain and drainclear: one request, then each GPU's drain word (and,
 * after drainclear's separator, whether its checkpoint was cleared). A
 * timeout above what a server accepts is capped rather than refused. */
static int drain_call(struct hipsvm_hook *h, enum hipsvm_op op, uint64_t gpus,
		      uint32_t timeout_ms, const uint64_t *cp, uint64_t cp_mask,
		      int result[HIPSVM_MAX_GPUS], uint64_t *cleared)
{
	char rep[HIPSVM_PROTO_MAX_REPLY + 1];
	struct hipsvm_reply_it it;
	struct hipsvm_span val;
	struct hipsvm_cmd c;
	uint64_t left;
	int err, g;

	if (!gpus)
		return -EINVAL;
	cmd_zero(&c);
	c.op = op;
	c.gpus = gpus;
	c.has_timeout = true;
	c.timeout_ms = timeout_ms < HIPSVM_DRAIN_MAX_MS ? timeout_ms : HIPSVM_DRAIN_MAX_MS;
	if (cp)
		put_values(&c, gpus, cp, cp_mask);
	err = call_open(h, &c, rep, sizeof(rep), &it);
	if (err)
		return err;
	if (cleared)
		*cleared = 0;
	for (left = gpus; left; left &= left - 1)
		result[__builtin_ctzll(left)] = -EPROTO;	/* unless the reply says */
	while (next_gpu_tok(&it, &g, &val)) {
		size_t n = 0;

		if (g < 0 || !(gpus >> g & 1))
			continue;
		while (n < val.n && val.p[n] != HIPSVM_W_SEP)
			n++;
		if (n == 2 && val.p[0] == 'o' && val.p[1] == 'k')	/* HIPSVM_W_OK, the usual */
			result[g] = 0;
		else if (word_is(val.p, n, HIPSVM_W_OK))
			result[g] = 0;
		else if (word_is(val.p, n, HIPSVM_W_TIMEOUT))
			result[g] = -ETIME;
		else if (word_is(val.p, n, HIPSVM_W_NODEV))
			result[g] = -ENODEV;
		else if (word_is(val.p, n, HIPSVM_W_SKIPPED))
			result[g] = HIPSVM_DRAIN_SKIPPED;
		if (cleared && n < val.n && word_is(val.p + n + 1, val.n - n - 1, HIPSVM_W_CLEARED))
			*cleared |= UINT64_C(1) << g;
	}
	return 0;
}

int hipsvm_hook_drain(struct hipsvm_hook *h, uint64_t gpus, uint32_t timeout_ms,
		      int result[HIPSVM_MAX_GPUS])
{
	return drain_call(h, HIPSVM_OP_DRAIN, gpus, timeout_ms, NULL, 0, result, NULL);
}

int hipsvm_hook_clear(struct hipsvm_hook *h, uint64_t gpus, const uint64_t cp[HIPSVM_MAX_GPUS],
		      uint64_t cp_mask)
{
	struct hipsvm_cmd c;
	struct hipsvm_reply r;
	int err;

	if (!gpus)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_CLEAR;
	c.gpus = gpus;
	put_values(&c, gpus, cp, cp_mask);
	err = hipsvm_hook_call(h, &c, &r);
	if (err)
		return err;
	return r.status;
}

int hipsvm_hook_drainclear(struct hipsvm_hook *h, uint64_t gpus, uint32_t timeout_ms,
			   const uint64_t cp[HIPSVM_MAX_GPUS], uint64_t cp_mask,
			   int result[HIPSVM_MAX_GPUS], uint64_t *cleared)
{
	return drain_call(h, HIPSVM_OP_DRAINCLEAR, gpus, timeout_ms, cp, cp_mask, result,
			  cleared);
}

int hipsvm_hook_stats(struct hipsvm_hook *h, uint64_t gpus, struct hipsvm_reply *r)
{
	struct hipsvm_cmd c;
	int err;

	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_STATS;
	c.gpus = gpus;
	err = hipsvm_hook_call(h, &c, r);
	if (err)
		return err;
	return r->status;
}
