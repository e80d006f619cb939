/* SPDX-License-Identifier: MIT */
/* test_trace.c - trace lines and the bounded JSON writer (src/shim/trace.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/trace.h"

Test(trace, format_every_type)
{
	char buf[512];
	struct hipsvm_tfield f[] = {
		HIPSVM_TF_S("api", "hipMalloc"),
		HIPSVM_TF_X("ptr", 0x7f00deadb000),
		HIPSVM_TF_U("size", 4096),
		HIPSVM_TF_I("dev", -1),
		HIPSVM_TF_B("coordinated", 1),
		HIPSVM_TF_B("no", 0),
	};
	int n = hipsvm_trace_format(buf, sizeof(buf), 123, "alloc", f, 6);

	cr_assert_gt(n, 0);
	cr_expect_str_eq(buf, "{\"ts_ns\":123,\"ev\":\"alloc\",\"api\":\"hipMalloc\","
			      "\"ptr\":\"0x7f00deadb000\",\"size\":4096,\"dev\":-1,"
			      "\"coordinated\":true,\"no\":false}\n");
	cr_expect_eq(n, (int)strlen(buf));
}

Test(trace, escaping)
{
	char buf[256];
	struct hipsvm_tfield f[] = { HIPSVM_TF_S("s", "a\"b\\c\nd\x01" "e\xc3\xa9") };

	cr_assert_gt(hipsvm_trace_format(buf, sizeof(buf), 0, "x", f, 1), 0);
	cr_expect_str_eq(buf, "{\"ts_ns\":0,\"ev\":\"x\",\"s\":\"a\\\"b\\\\c\\nd\\u0001e\xc3\xa9\"}\n");
}

Test(trace, overflow_is_enospc)
{
	char buf[16];
	struct hipsvm_tfield f[] = { HIPSVM_TF_U("size", 1) };
	size_t cap;

	for (cap = 0; cap < 16; cap++)
		cr_expect_eq(hipsvm_trace_format(buf, cap, 1, "alloc", f, 1), -ENOSPC);
}

Test(trace, emit_one_write_per_line_and_errno_kept)
{
	int fds[2];
	char buf[1024];
	ssize_t n;
	struct hipsvm_tfield f[] = { HIPSVM_TF_U("dev", 3) };

	cr_assert_eq(pipe(fds), 0);
	errno = 4242;
	cr_expect_eq(hipsvm_trace_emit(fds[1], "cp_clear", f, 1), 0);
	cr_expect_eq(hipsvm_trace_emit(fds[1], "cp_clear", f, 1), 0);
	cr_expect_eq(errno, 4242);
	cr_expect_eq(hipsvm_trace_emit(-1, "cp_clear", f, 1), 0);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	cr_expect(strstr(buf, "\"ev\":\"cp_clear\",\"dev\":3}\n{\"ts_ns\":"), "%s", buf);
	close(fds[0]);
	/* a closed descriptor: -EBADF, errno still kept */
	errno = 77;
	cr_expect_eq(hipsvm_trace_emit(fds[1], "x", f, 1), -EBADF);
	cr_expect_eq(errno, 77);
}

Test(trace, json_writer_separators)
{
	char buf[128];
	struct hipsvm_jw w;

	hipsvm_jw_init(&w, buf, sizeof(buf));
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_ku64(&w, "a", 1);
	hipsvm_jw_key(&w, "b");
	hipsvm_jw_raw(&w, "[");
	hipsvm_jw_sep(&w);
	hipsvm_jw_u64(&w, 0);
	hipsvm_jw_sep(&w);
	hipsvm_jw_u64(&w, UINT64_MAX);
	hipsvm_jw_raw(&w, "]");
	hipsvm_jw_kstr(&w, "c", "");
	hipsvm_jw_raw(&w, "}");
	cr_assert_gt(hipsvm_jw_end(&w), 0);
	cr_expect_str_eq(buf, "{\"a\":1,\"b\":[0,18446744073709551615],\"c\":\"\"}");
}

/* ---- hipsvm_trace_open: a regular file of ours, never through a link ---- */

Test(trace, open_refuses_links_and_what_is_not_a_regular_file_of_ours)
{
	char dir[] = "/tmp/hipsvm-traceopen-XXXXXX", target[64], link[64], fifo[64], mine[64];
	char buf[32] = { 0 };
	struct stat st;
	int fd;

	cr_assert(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(mine, sizeof(mine), "%s/trace.jsonl", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	cr_assert_eq(write(fd, "precious\n", 9), 9);
	close(fd);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(hipsvm_trace_open(link), -ELOOP);
	fd = hipsvm_trace_open(fifo);
	/* not waited on: no reader gives ENXIO, a reader EINVAL (not regular) */
	cr_expect(fd == -ENXIO || fd == -EINVAL, "a FIFO: %d", fd);
	cr_expect_eq(hipsvm_trace_open(dir), -EISDIR);
	fd = open(target, O_RDONLY);
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 9);
	close(fd);
	cr_expect_str_eq(buf, "precious\n");
	if (geteuid() == 0) {
		/* another user's file: chown it to nobody */
		cr_assert_eq(chown(target, 65534, 65534), 0);
		cr_expect_eq(hipsvm_trace_open(target), -EPERM);
	}
	fd = hipsvm_trace_open(mine);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_expect(fcntl(fd, F_GETFL) & O_APPEND);
	close(fd);
	unlink(mine);
	unlink(fifo);
	unlink(link);
	unlink(target);
	rmdir(dir);
}
