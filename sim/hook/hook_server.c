/* SPDX-License-Identifier: MIT */
/*
 * hook_server.c - the simulator's kernel side of the checkpoint hook
 * (src/shared/proto.h) over a UNIX stream socket, HIPSVM_SIM_SOCKET (default
 * "@hipsvm-sim.%p": abstract namespace, %p = pid).
 *
 * One thread waits on the listening socket and the connections with one
 * epoll set, changed only when a connection comes or goes (a wake-up costs
 * the ready descriptors, not the 257 a rebuilt poll set did); each request
 * line is answered with one line by sim_hook_handle_line (hook_cmds.c).
 * SO_PEERCRED names the caller; only the same user (or root) is served.
 *
 * The thread takes only fine-grained locks (a GPU's pt_lock, the map's read
 * lock, the zap and log locks), none of which an API call holds while it
 * unmaps: the shim calls us from inside our own munmap.
 */
#include "hook/hook.h"
#include "runtime/state.h"
#include "runtime/thread.h"
#include "runtime/step.h"
#include "shim/outname.h"

#include <sys/epoll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* One connection per thread of the shim: a program with many threads that
 * unmap needs many. Polled by one thread; requests are served in turn. */
#define MAX_CONN 256

struct conn {
	int fd;
	size_t len;
	bool discard;		/* a line too long: skip to its end */
	char buf[HIPSVM_PROTO_MAX_REQ + 1];
	struct sim_hook_conn state;	/* what its requests left to finish */
};

static struct {
	int listen_fd;
	int ep;			/* epoll: data.u32 is the slot, MAX_CONN the listener */
	struct conn conn[MAX_CONN];
} hs;

static void hook_reset(void)
{
	static bool valid;
	unsigned i;

	/* In a fork child: the parent's sockets are not ours to serve. */
	if (valid) {
		if (hs.listen_fd >= 0)
			close(hs.listen_fd);
		if (hs.ep >= 0)
			close(hs.ep);
		for (i = 0; i < MAX_CONN; i++)
			if (hs.conn[i].fd >= 0)
				close(hs.conn[i].fd);
	}
	valid = true;
	hs.listen_fd = -1;
	hs.ep = -1;
	for (i = 0; i < MAX_CONN; i++)
		hs.conn[i].fd = -1;
}

static void reply(int fd, const char *buf, int n)
{
	while (n > 0) {
		ssize_t w = send(fd, buf, (size_t)n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (int)w;
	}
}

static void conn_close(struct conn *c)
{
	/* out of the set first: a fork child may still hold a copy of the
	 * descriptor, and then close alone would leave it there */
	epoll_ctl(hs.ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	/* A client killed between its set and its drain (or that closed
	 * there) would leave its checkpoints and its range behind for good:
	 * the server finishes its unmap. */
	sim_hook_conn_gone(&c->state);
}

/* Reads what is there and answers every complete line. */
static void conn_read(struct conn *c)
{
	char out[HIPSVM_PROTO_MAX_REPLY];
	char *nl;
	ssize_t r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(c);
		return;
	}
	if (r < 0)
		return;
	c->len += (size_t)r;
	while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
		size_t line = (size_t)(nl - c->buf) + 1;

		if (c->discard) {
			c->discard = false;
		} else {
			int n = sim_hook_handle_line(&c->state, c->buf, line, out, sizeof(out));

			if (n > 0)
				reply(c->fd, out, n);
		}
		memmove(c->buf, c->buf + line, c->len - line);
		c->len -= line;
	}
	if (c->len == sizeof(c->buf) - 1) {
		/* longer than any request: refuse it and skip to its end */
		int n = hipsvm_proto_error(out, sizeof(out), -EINVAL, "request too long");

		if (!c->discard && n > 0)
			reply(c->fd, out, n);
		c->discard = true;
		c->len = 0;
	}
}

static void conn_accept(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(hs.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	unsigned i;

	if (fd < 0)
		return;
	/* SO_PEERCRED names the caller: only our own user may drive the GPUs. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    (cred.uid != geteuid() && cred.uid != 0)) {
		char out[64];
		int n = hipsvm_proto_error(out, sizeof(out), -EPERM, "not the owner");

		if (n > 0)
			reply(fd, out, n);
		close(fd);
		return;
	}
	for (i = 0; i < MAX_CONN; i++) {
		if (hs.conn[i].fd < 0) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

			if (epoll_ctl(hs.ep, EPOLL_CTL_ADD, fd, &ev) != 0)
				break;
			hs.conn[i].fd = fd;
			hs.conn[i].len = 0;
			hs.conn[i].discard = false;
			hs.conn[i].state.pending = 0;
			hs.conn[i].state.cp_mask = 0;
			return;
		}
	}
	close(fd);	/* too many connections */
}

static void *server_main(void *arg)
{
	struct epoll_event ev[16];
	int i, n;

	(void)arg;
	for (;;) {
		n = epoll_wait(hs.ep, ev, 16, -1);
		for (i = 0; i < n; i++) {
			uint32_t k = ev[i].data.u32;

			if (k == MAX_CONN)
				conn_accept();
			else if (k < MAX_CONN && hs.conn[k].fd >= 0)
				conn_read(&hs.conn[k]);
		}
	}
	return NULL;
}

/* A file already at the socket's path is removed only when it is a stale
 * socket of ours: a socket (lstat: not what a link points at), owned by our
 * effective uid, that nobody listens on any more (connect: ECONNREFUSED).
 * Anything else stays, and the server is not started: a regular file named
 * by mistake is never deleted, a live server (ours or another) never
 * robbed of its name. */
static int clear_stale(const char *name, const struct sockaddr_un *sa, socklen_t salen)
{
	struct stat st;
	int fd, rc, err;

	if (lstat(name, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	if (st.st_uid != geteuid())
		return -EPERM;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, salen);
	err = errno;
	close(fd);
	if (rc == 0)
		return -EADDRINUSE;
	if (err != ECONNREFUSED)
		return -err;
	return unlink(name) == 0 || errno == ENOENT ? 0 : -errno;
}

static int listen_on(const char *name)
{
	struct sockaddr_un sa;
	socklen_t salen;
	size_t n = strlen(name);
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (n == 0 || n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, name, n);
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	if (n == 1 && name[0] == '@') {
		/* "@" alone: the kernel picks a free abstract name (autobind);
		 * the caller learns it from socket_name_of, so that the
		 * shim's auto hook finds the server there. */
		salen = (socklen_t)offsetof(struct sockaddr_un, sun_path);
	} else if (name[0] == '@') {
		sa.sun_path[0] = '\0';	/* abstract: the length says where it ends */
	} else {
		int err = clear_stale(name, &sa, salen);

		if (err)
			return err;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, salen) != 0 || listen(fd, MAX_CONN) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* "@" + the name the kernel bound fd to (an autobound abstract name is
 * five hex digits), into out. 0, or -errno. */
static int socket_name_of(int fd, char *out, size_t cap)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	size_t n;

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
		return -errno;
	n = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
	if (n < 2 || sa.sun_path[0] != '\0' || n >= cap || memchr(sa.sun_path + 1, '\0', n - 1))
		return -EINVAL;
	out[0] = '@';
	memcpy(out + 1, sa.sun_path + 1, n - 1);
	out[n] = '\0';
	return 0;
}

static void hook_start(void)
{
	const char *tmpl = sim.opt.str[HIPSVM_SIM_O_SOCKET];
	pthread_t t;
	unsigned i;
	int fd;

	if (hipsvm_expand_path(tmpl, (int)getpid(), sim.socket_name, sizeof(sim.socket_name))) {
		sim_warn("HIPSVM_SIM_SOCKET=%s is too long: no hook server", tmpl);
		sim.socket_name[0] = '\0';
		return;
	}
	fd = listen_on(sim.socket_name);
	if (fd < 0) {
		sim_warn("cannot listen on %s (%s): no hook server", sim.socket_name,
			 fd == -EEXIST ? "a file that is not a socket is there; left alone" :
			 fd == -EPERM ? "a socket of another user is there; left alone" :
			 strerror(-fd));
		sim.socket_name[0] = '\0';
		return;
	}
	if (!strcmp(sim.socket_name, "@")) {
		int err = socket_name_of(fd, sim.socket_name, sizeof(sim.socket_name));

		if (err) {
			sim_warn("HIPSVM_SIM_SOCKET=@: the name the kernel chose cannot be read (%s): "
				 "no hook server", strerror(-err));
			close(fd);
			sim.socket_name[0] = '\0';
			return;
		}
	}
	hs.listen_fd = fd;
	for (i = 0; i < MAX_CONN; i++)
		hs.conn[i].fd = -1;
	hs.ep = epoll_create1(EPOLL_CLOEXEC);
	if (hs.ep >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = MAX_CONN };

		if (epoll_ctl(hs.ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(hs.ep);
			hs.ep = -1;
		}
	}
	if (hs.ep >= 0 && sim_thread_start(&t, server_main, NULL, "hipsvm-hook") == 0) {
		pthread_detach(t);
	} else {
		sim_warn("cannot start the hook server thread");
		close(fd);
		if (hs.ep >= 0)
			close(hs.ep);
		hs.ep = -1;
		hs.listen_fd = -1;
		sim.socket_name[0] = '\0';
	}
}

static void hook_serve(void)
{
	if (sim.opt.num[HIPSVM_SIM_O_SERVE])
		hook_start();
}
SIM_STEP(hook, .reset = hook_reset, .start = hook_serve, .rank = SIM_START_HOOK);
