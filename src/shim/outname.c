/* SPDX-License-Identifier: MIT */
/*
 * outname.c - output file names from templates (outname.h).
 */
#include "outname.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/utsname.h>

#include "fmt.h"

const char *const hipsvm_rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL,
};

#define VAR_NAME_MAX 128

struct sink {
	char *buf;
	size_t cap, len;
};

static void put(struct sink *s, const char *p, size_t n, bool no_slash)
{
	size_t i;

	for (i = 0; i < n; i++, s->len++)
		if (s->len + 1 < s->cap)
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

int hipsvm_outname(const char *tmpl, int pid, char *const *envp, char *buf, size_t cap)
{
	struct sink s = { buf, cap, 0 };
	char num[HIPSVM_FMT_U64_MAX + 1];
	struct utsname u;
	bool have_host = false;
	const char *p, *v;

	if (!tmpl || !buf || !cap)
		return -EINVAL;
	for (p = tmpl; *p; p++) {
		if (p[0] != '%' || !p[1]) {
			put(&s, p, 1, false);
			continue;
		}
		switch (p[1]) {
		case 'p':
			if (pid < 0) {
				put(&s, "-", 1, false);
				v = hipsvm_fmt_u64(num, (uint64_t)-(int64_t)pid);
			} else {
				v = hipsvm_fmt_u64(num, (uint64_t)pid);
			}
			put(&s, v, strlen(v), false);
			break;
		case 'h':
			if (!have_host) {
				if (uname(&u) != 0)
					strcpy(u.nodename, "localhost");
				u.nodename[strcspn(u.nodename, ".")] = '\0';
				have_host = true;
			}
			put(&s, u.nodename, strlen(u.nodename), true);
			break;
		case 'r':
			v = rank_of(envp);
			put(&s, v, strlen(v), true);
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
				put(&s, v, strlen(v), false);
			p = end - 1;	/* the loop's p++ and the one below pass the '}' */
			break;
		}
		case '%':
			put(&s, "%", 1, false);
			break;
		default:
			put(&s, p, 2, false);	/* another '%' is copied as it is */
			break;
		}
		p++;
	}
	if (s.len >= cap) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	buf[s.len] = '\0';
	return 0;
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
