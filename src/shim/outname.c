/* SPDX-License-Identifier: MIT */
/*
 * outname.c - output file names from templates (outname.h).
 */
#include "shim/outname.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/utsname.h>

#include "shared/fmt.h"

const char *const hipsvm_rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL,
};

#define VAR_NAME_MAX 128
/* a host name as %h gives it (utsname allows 65 bytes with the NUL) */
#define HIPSVM_HOST_MAX 65

struct sink {
	char *buf;		/* NULL: the counting pass */
	size_t len;
};

static void put(struct sink *s, const char *p, size_t n, bool no_slash)
{
	size_t i;

	for (i = 0; i < n; i++, s->len++)
		if (s->buf)
			s->buf[s->len] = no_slash && p[i] == '/' ? '_' : p[i];
}

static const char *env_get(char *const *envp, const char *name, size_t nlen)
{
	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, nlen) == 0 && (*envp)[nlen] == '=')
			return *envp + nlen + 1;
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *rank_of(char *const *envp)
{
	const char *v;
	int i;

	for (i = 0; hipsvm_rank_vars[i]; i++) {
		v = env_get(envp, hipsvm_rank_vars[i], strlen(hipsvm_rank_vars[i]));
		if (v && *v)
			return v;
	}
	return "norank";
}

/* One pass over tmpl into s; names: %h %r %e{VAR} too (else only %p and %%).
 * host is filled on first use and kept for the second pass. */
static int pass(struct sink *s, const char *tmpl, int pid, char *const *envp, bool names,
		char host[HIPSVM_HOST_MAX])
{
	char num[HIPSVM_FMT_U64_MAX + 1];
	const char *p, *v;

	for (p = tmpl; *p; p++) {
		if (p[0] != '%' || !p[1] || (!names && p[1] != 'p' && p[1] != '%')) {
			put(s, p, 1, false);
			continue;
		}
		switch (p[1]) {
		case 'p':
			if (pid < 0) {
				put(s, "-", 1, false);
				v = hipsvm_fmt_u64(num, (uint64_t)-(int64_t)pid);
			} else {
				v = hipsvm_fmt_u64(num, (uint64_t)pid);
			}
			put(s, v, strlen(v), false);
			break;
		case 'h':
			if (!host[0]) {
				struct utsname u;

				if (uname(&u) != 0)
					strcpy(u.nodename, "localhost");
				u.nodename[strcspn(u.nodename, ".")] = '\0';
				u.nodename[HIPSVM_HOST_MAX - 1] = '\0';
				strcpy(host, u.nodename[0] ? u.nodename : "localhost");
			}
			put(s, host, strlen(host), true);
			break;
		case 'r':
			v = rank_of(envp);
			put(s, v, strlen(v), true);
			break;
		case 'e': {
			const char *name = p + 3, *end = name;

			if (p[2] != '{')
				return -EINVAL;
			while (name_char(*end))
				end++;
			if (*end != '}' || end == name || end - name > VAR_NAME_MAX)
				return -EINVAL;
			v = env_get(envp, name, (size_t)(end - name));
			if (v)
				put(s, v, strlen(v), false);
			p = end - 1;	/* the loop's p++ and the one below pass the '}' */
			break;
		}
		case '%':
			put(s, "%", 1, false);
			break;
		default:
			put(s, p, 2, false);	/* another '%' is copied as it is */
			break;
		}
		p++;
	}
	return 0;
}

/* Two passes, so that buf is untouched when the result does not fit or the
 * template is malformed. */
static int expand(const char *tmpl, int pid, char *const *envp, bool names, char *buf,
		  size_t cap)
{
	struct sink s = { NULL, 0 };
	char host[HIPSVM_HOST_MAX] = "";
	int err;

	if (!tmpl || !buf)
		return -EINVAL;
	err = pass(&s, tmpl, pid, envp, names, host);
	if (err)
		return err;
	if (s.len >= cap)
		return -ENAMETOOLONG;
	s.buf = buf;
	s.len = 0;
	pass(&s, tmpl, pid, envp, names, host);
	buf[s.len] = '\0';
	return 0;
}

int hipsvm_outname(const char *tmpl, int pid, char *const *envp, char *buf, size_t cap)
{
	if (!cap)
		return -EINVAL;	/* no buffer at all: a caller's mistake, not a long name */
	return expand(tmpl, pid, envp, true, buf, cap);
}

int hipsvm_expand_path(const char *tmpl, int pid, char *buf, size_t cap)
{
	return expand(tmpl, pid, NULL, false, buf, cap);
}

int hipsvm_outname_per_process(const char *tmpl)
{
	const char *p;

	for (p = tmpl; p && *p; p++) {
		if (p[0] == '%' && p[1] == 'p')
			return 1;
		if (p[0] == '%' && p[1] == '%')
			p++;
	}
	return 0;
}
