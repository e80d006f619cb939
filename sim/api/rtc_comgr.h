/* SPDX-License-Identifier: MIT */
/*
 * rtc_comgr.h - hiprtc (hiprtc.c) and its compiler (rtc_comgr.c).
 */
#ifndef HIPSVM_SIM_RTC_COMGR_H
#define HIPSVM_SIM_RTC_COMGR_H

#include <stdbool.h>
#include <stddef.h>

/* A growing byte buffer; add returns 0 or -ENOMEM. */
struct sim_rtc_buf {
	char *p;
	size_t len, cap;
};

/* Appends n bytes and keeps a NUL after them: 0 or -ENOMEM. */
int sim_rtc_buf_add(struct sim_rtc_buf *b, const void *p, size_t n);

struct sim_rtc_job {
	const char *src;		/* the source, name expressions appended */
	const char *name;		/* its file name */
	int nheaders;
	const char *const *headers, *const *header_names;
	const char *const *opts;	/* the program's options, transformed */
	size_t nopts;
	const char *isa;		/* "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+" */
};

struct sim_rtc_result {
	struct sim_rtc_buf log;		/* the compiler's messages */
	struct sim_rtc_buf code;	/* the code object */
	/* its symbols, each its name and its demangled name, both
	 * NUL-terminated: hiprtc.c finds the lowered names there */
	struct sim_rtc_buf syms;
};

/* 0: code holds the code object and syms its symbols; -EINVAL:
 * compilation failed (see log); -ENOTSUP: no compiler; -ENOMEM. */
int sim_rtc_compile(const struct sim_rtc_job *job, struct sim_rtc_result *res);

#endif
