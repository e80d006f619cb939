/* SPDX-License-Identifier: MIT */
/*
 * sim_test_util.h - a bare client of the simulator's hook socket for the
 * tests: one request line out, one reply line back, checked with Criterion.
 */
#ifndef HIPSVM_SIM_TEST_UTIL_H
#define HIPSVM_SIM_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hipsvm_sim.h"
#include "shared/proto.h"

static inline int hook_connect(void)
{
	const char *name = hipsvmSimSocketPath();
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert(n > 1 && n < sizeof(sa.sun_path), "socket name \"%s\"", name);
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)), 0);
	return fd;
}

/* Sends one request (as given) and returns the reply line in a static buffer. */
static inline const char *req(int fd, const char *line)
{
	static char buf[HIPSVM_PROTO_MAX_REPLY + 1];
	size_t len = 0;

	cr_assert_eq(send(fd, line, strlen(line), 0), (ssize_t)strlen(line));
	while (len == 0 || buf[len - 1] != '\n') {
		ssize_t r = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);

		cr_assert_gt(r, 0, "the server answered \"%s\"", line);
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

static inline struct hipsvm_reply parse(const char *line)
{
	struct hipsvm_reply r;

	cr_assert_eq(hipsvm_proto_parse_reply(line, strlen(line), &r), 0, "reply \"%s\"", line);
	return r;
}

static inline uint64_t num(const struct hipsvm_reply *r, const char *key)
{
	const char *v = hipsvm_reply_get(r, key);
	uint64_t x = 0;

	cr_assert(v != NULL, "key %s in the reply", key);
	cr_assert_eq(hipsvm_proto_u64(v, strlen(v), &x), 0);
	return x;
}

#endif
