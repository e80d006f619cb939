/* SPDX-License-Identifier: MIT */
/*
 * test_outfile.c - the one safe writer (src/shim/outfile.h), the errno names
 * its messages use, descriptors above 2, secure-execution mode in the option
 * loader, and valid UTF-8 out of the JSON writer whatever the input bytes.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/options.h"
#include "shim/outfile.h"
#include "shared/proto.h"
#include "shim/trace.h"
#include "shim/utf8.h"

static char dir[] = "/tmp/hipsvm-outfile.XXXXXX";

static void setup(void)
{
	cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static unsigned entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.');
	closedir(d);
	return n;
}

static int save(const char *path, const char *text)
{
	struct hipsvm_outfile o;
	int rc = hipsvm_outfile_begin(&o, path, NULL, 0);

	if (rc)
		return rc;
	rc = hipsvm_outfile_write(&o, text, strlen(text));
	if (rc) {
		hipsvm_outfile_abort(&o);
		return rc;
	}
	return hipsvm_outfile_commit(&o);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

TestSuite(outfile, .init = setup, .fini = teardown);

Test(outfile, a_new_file_is_0600_and_nothing_else_is_left)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/r.json", dir);
	cr_assert_eq(save(p, "{}"), 0);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600);
	cr_expect_str_eq(get(p), "{}");
	cr_expect_eq(entries(), 1);
}

Test(outfile, a_link_is_replaced_never_followed)
{
	char p[256], victim[256];
	struct stat st;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(p, sizeof(p), "%s/link", dir);
	put(victim, "precious");
	cr_assert_eq(symlink(victim, p), 0);
	cr_assert_eq(save(p, "new"), 0);
	cr_expect_str_eq(get(victim), "precious");
	cr_assert_eq(lstat(p, &st), 0);
	cr_expect(S_ISREG(st.st_mode));
}

Test(outfile, what_is_not_a_regular_file_of_ours_is_left_alone)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_expect_eq(save(p, "x"), -EEXIST);
	cr_assert_eq(lstat(p, &st), 0);
	cr_expect(S_ISFIFO(st.st_mode));
	snprintf(p, sizeof(p), "%s/sub", dir);
	cr_assert_eq(mkdir(p, 0700), 0);
	cr_expect_eq(save(p, "x"), -EISDIR);
	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/theirs", dir);
		put(p, "theirs");
		cr_assert_eq(chown(p, 65534, 65534), 0);
		cr_expect_eq(save(p, "x"), -EPERM);
		cr_expect_str_eq(get(p), "theirs");
		snprintf(p, sizeof(p), "%s/null", dir);
		cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
		cr_expect_eq(save(p, "x"), -EEXIST);
		cr_assert_eq(lstat(p, &st), 0);
		cr_expect(S_ISCHR(st.st_mode));
	}
	cr_expect_eq(entries(), geteuid() == 0 ? 4 : 2, "no temporary file left");
}

Test(outfile, an_input_is_never_the_output)
{
	struct hipsvm_outfile_input in;
	struct hipsvm_outfile o;
	char p[256], l[256];

	snprintf(p, sizeof(p), "%s/ev.jsonl", dir);
	snprintf(l, sizeof(l), "%s/alias", dir);
	put(p, "events");
	cr_assert_eq(symlink(p, l), 0);
	cr_assert_eq(hipsvm_outfile_input(p, &in), 0);
	cr_expect_eq(hipsvm_outfile_begin(&o, p, &in, 1), -EBUSY);
	cr_expect_eq(hipsvm_outfile_begin(&o, l, &in, 1), -EBUSY, "also through a link");
	cr_expect_str_eq(get(p), "events");
}

Test(outfile, a_name_at_name_max_gets_a_short_temporary_name)
{
	char p[512];
	size_t n = (size_t)snprintf(p, sizeof(p), "%s/", dir);

	memset(p + n, 'r', 250);
	memcpy(p + n + 250, ".json", 6);	/* 255 bytes: NAME_MAX */
	cr_expect_eq(save(p, "{}"), 0);
	cr_expect_str_eq(get(p), "{}");
}

Test(outfile, a_failed_write_keeps_the_old_file_and_names_the_errno)
{
	struct hipsvm_outfile o;
	struct rlimit old, lim = { 0, 0 };
	char p[256];
	int rc, fds[64], i, n = 0;

	snprintf(p, sizeof(p), "%s/r.json", dir);
	put(p, "old");
	/* EMFILE: no descriptor left for the temporary file */
	getrlimit(RLIMIT_NOFILE, &old);
	lim.rlim_cur = 16;
	lim.rlim_max = old.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	for (i = 0; i < 64; i++) {
		fds[n] = open("/dev/null", O_RDONLY);
		if (fds[n] >= 0)
			n++;
	}
	rc = save(p, "new");
	for (i = 0; i < n; i++)
		close(fds[i]);
	setrlimit(RLIMIT_NOFILE, &old);
	cr_expect_eq(rc, -EMFILE);
	cr_expect_str_eq(hipsvm_errno_name(rc), "EMFILE");
	cr_expect_str_eq(get(p), "old");
	/* a write that fails (here EBADF on an aborted file) leaves no temporary */
	cr_assert_eq(hipsvm_outfile_begin(&o, p, NULL, 0), 0);
	hipsvm_outfile_abort(&o);
	cr_expect_eq(hipsvm_outfile_write(&o, "x", 1), -EBADF);
	cr_expect_eq(entries(), 1);
	cr_expect_str_eq(get(p), "old");
}

Test(outfile, errno_names_are_the_real_ones)
{
	cr_expect_str_eq(hipsvm_errno_name(-ENOSPC), "ENOSPC");
	cr_expect_str_eq(hipsvm_errno_name(EMFILE), "EMFILE");
	cr_expect_str_eq(hipsvm_errno_name(-ENAMETOOLONG), "ENAMETOOLONG");
	cr_expect_str_eq(hipsvm_errno_name(-EDQUOT), "EDQUOT");
	cr_expect_str_neq(hipsvm_errno_name(-4000), "EIO", "an unknown errno is not passed for EIO");
	for (int e = 1; e < 134; e++)
		cr_expect(strcmp(hipsvm_errno_name(e), "EIO") != 0 || e == EIO, "errno %d named EIO", e);
}

Test(outfile, descriptors_land_above_stdio)
{
	int saved = dup(0), fd;

	cr_assert(saved > 2);
	close(0);
	fd = open("/dev/null", O_RDONLY);
	cr_assert_eq(fd, 0);
	fd = hipsvm_fd_above_stdio(fd);
	cr_expect(fd > 2);
	cr_expect_eq(fcntl(0, F_GETFD), -1, "0 closed again");
	close(fd);
	dup2(saved, 0);
	close(saved);
}

Test(outfile, the_trace_file_never_takes_descriptor_2)
{
	char p[256];
	int saved = dup(2), fd;

	snprintf(p, sizeof(p), "%s/t.jsonl", dir);
	close(2);
	fd = hipsvm_trace_open(p);
	dup2(saved, 2);
	close(saved);
	cr_expect(fd > 2, "got %d", fd);
	close(fd);
}

Test(outfile, secure_execution_takes_no_variable)
{
	char *env[] = { "HIPSVM_REPORT=/etc/shadow", "HIPSVM_HOOK=none", NULL };
	struct hipsvm_opt_error errs[4];
	struct hipsvm_options o;
	int n;

	hipsvm_opt_secure_override(1);
	n = hipsvm_options_load(&o, env, errs, 4);
	hipsvm_opt_secure_override(-1);
	cr_expect_eq(n, 1, "one line says it");
	cr_expect_eq(errs[0].err, -EPERM);
	cr_expect_str_eq(o.str[HIPSVM_O_REPORT], "");
	cr_expect_str_eq(o.str[HIPSVM_O_HOOK], "auto");
	n = hipsvm_options_load(&o, env, errs, 4);
	cr_expect_eq(n, 0);
	cr_expect_str_eq(o.str[HIPSVM_O_REPORT], "/etc/shadow", "not secure: taken");
}

/* Every byte string, written by the JSON writer, is valid UTF-8 (checked
 * by the validator itself and by hand on known cases). Seeded. */
Test(outfile, json_strings_are_valid_utf8_whatever_the_bytes)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "bad\xff\xfe/prog", "\"bad\\ufffd\\ufffd/prog\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "cut\xe2\x82", "\"cut\\ufffd\\ufffd\"" },
		{ "sur\xed\xa0\x80", "\"sur\\ufffd\\ufffd\\ufffd\"" },
		{ "over\xc0\xaf", "\"over\\ufffd\\ufffd\"" },
		{ "\x1b]0;t\x07", "\"\\u001b]0;t\\u0007\"" },
	};
	unsigned seed = 22, i, k;
	char in[64], out[512];
	struct hipsvm_jw w;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hipsvm_jw_init(&w, out, sizeof(out));
		hipsvm_jw_str(&w, cases[i].in);
		cr_assert(hipsvm_jw_end(&w) > 0);
		cr_expect_str_eq(out, cases[i].out, "case %u", i);
	}
	for (i = 0; i < 20000; i++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 40), j, len;

		for (j = 0; j < n; j++) {
			in[j] = (char)(rand_r(&seed) % 255 + 1);
		}
		in[n] = '\0';
		hipsvm_jw_init(&w, out, sizeof(out));
		hipsvm_jw_str(&w, in);
		cr_assert(hipsvm_jw_end(&w) > 0);
		len = strlen(out);
		for (j = 0; j < len; j += k) {
			k = hipsvm_utf8_len((const unsigned char *)out + j, len - j);
			if (!k)
				cr_assert_fail("seed 22, round %u: invalid UTF-8 at %zu of \"%s\"", i, j, out);
		}
	}
}
