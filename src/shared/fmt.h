/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - decimal formatting without snprintf, for code that runs inside the
 * unmap hook (snprintf is not async-signal-safe) and in the kernel module.
 */
#ifndef HIPSVM_FMT_H
#define HIPSVM_FMT_H

#include "shared/compat.h"

#define HIPSVM_FMT_U64_MAX 21	/* 20 digits and a NUL */

/* Writes v in decimal at the end of buf; returns where the digits start. */
static inline char *hipsvm_fmt_u64(char buf[HIPSVM_FMT_U64_MAX], uint64_t v)
{
	char *p = buf + HIPSVM_FMT_U64_MAX - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

#endif
