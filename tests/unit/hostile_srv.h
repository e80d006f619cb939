/* SPDX-License-Identifier: MIT */
/*
 * hostile_srv.h - a hook server in another process, as another user if asked
 * (the tests run as root here and in CI; nobody is uid 65534), for the tests
 * that a stranger cannot serve the shim's hook (tests/unit/test_hook_hostile.c,
 * tests/preload/test_security.c). It answers every line as a real server
 * would, so that a client that talked to it would believe it coordinated, and
 * counts every byte it receives: the client must send none.
 */
#ifndef HIPSVM_TEST_HOSTILE_SRV_H
#define HIPSVM_TEST_HOSTILE_SRV_H

#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOSTILE_NOBODY 65534

struct hostile {
	pid_t pid;
	int ctl;	/* closing it tells the server to stop */
	int result;	/* it writes the byte count here */
};

static void hostile_serve(int lfd, int ctl, int result)
{
	struct pollfd p[18];
	unsigned n = 2, i;
	long bytes = 0;

	p[0] = (struct pollfd){ .fd = ctl, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (;;) {
		if (poll(p, n, 10000) <= 0 || p[0].revents)
			break;
		if ((p[1].revents & POLLIN) && n < 18) {
			int fd = accept(lfd, NULL, NULL);

			if (fd >= 0)
				p[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		}
		for (i = 2; i < n; i++) {
			char buf[512];
			ssize_t k;

			if (!p[i].revents)
				continue;
			k = read(p[i].fd, buf, sizeof(buf));
			if (k <= 0) {
				close(p[i].fd);
				p[i--] = p[--n];
				continue;
			}
			bytes += k;
			if (!strncmp(buf, "version", 7))
				(void)!write(p[i].fd, "ok version 1 hipsvm-hook\n", 25);
			else if (!strncmp(buf, "set", 3))
				(void)!write(p[i].fd, "ok set 0=0x10\n", 14);
			else if (!strncmp(buf, "drain", 5))
				(void)!write(p[i].fd, "ok drain 0=ok\n", 14);
			else if (!strncmp(buf, "clear", 5))
				(void)!write(p[i].fd, "ok clear 0=cleared\n", 19);
			else
				(void)!write(p[i].fd, "ok stats\n", 9);
		}
	}
	(void)!write(result, &bytes, sizeof(bytes));
}

/* Forks a server listening on the abstract name (without its '@'), as uid
 * (-1: ours). 0 once it listens, -1 if it could not (errno-ish in *why). */
static int hostile_start(struct hostile *h, const char *name, int uid, char *why, size_t cap)
{
	int ctl[2], res[2], ready[2];
	char c = 0;

	if (pipe(ctl) || pipe(res) || pipe(ready))
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		size_t len = strlen(name);
		int lfd;

		close(ctl[1]);
		close(res[0]);
		close(ready[0]);
		if (uid >= 0 && (setgroups(0, NULL) || setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) ||
				 setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid))) {
			c = 'u';
			(void)!write(ready[1], &c, 1);
			_exit(1);
		}
		memcpy(sa.sun_path + 1, name, len);
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa,
				    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) ||
		    listen(lfd, 16)) {
			c = 'b';
			(void)!write(ready[1], &c, 1);
			_exit(1);
		}
		c = 'r';
		(void)!write(ready[1], &c, 1);
		hostile_serve(lfd, ctl[0], res[1]);
		_exit(0);
	}
	close(ctl[0]);
	close(res[1]);
	close(ready[1]);
	h->ctl = ctl[1];
	h->result = res[0];
	if (read(ready[0], &c, 1) != 1 || c != 'r') {
		snprintf(why, cap, "%s", c == 'u' ? "cannot become the other user (not root?)" :
					 "cannot bind the name");
		close(ready[0]);
		close(h->ctl);
		close(h->result);
		waitpid(h->pid, NULL, 0);
		return -1;
	}
	close(ready[0]);
	return 0;
}

/* Stops the server: the bytes it received, or -1. */
static long hostile_stop(struct hostile *h)
{
	long bytes = -1;

	close(h->ctl);
	if (read(h->result, &bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes))
		bytes = -1;
	close(h->result);
	waitpid(h->pid, NULL, 0);
	return bytes;
}

#endif
