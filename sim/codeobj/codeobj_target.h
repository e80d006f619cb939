/* SPDX-License-Identifier: MIT */
/*
 * codeobj_target.h - which code object of a fat binary a device runs:
 * target-ID compatibility, as ROCm 5.2 chooses (hipamd's code object
 * extraction).
 *
 * A target ID is a processor followed by optional features in a fixed order,
 * "gfx90a", "gfx90a:xnack-", "gfx90a:sramecc+:xnack+". A code object built
 * for a target ID runs on a device whose processor is the same and whose
 * modes match every feature the code object names: an absent feature ("any")
 * matches either mode, "+" or "-" only that mode. A device always states
 * both features it supports. The first compatible entry in bundle order is
 * taken; ROCm does not rank a specific entry above an "any" one.
 *
 * Where the ID comes from: a "hipv4-" bundle entry names it in its triple
 * ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"); an older "hip-"/"hcc-" entry,
 * and a bare ELF, only in the ELF header's e_flags (the EF_AMDGPU_MACH
 * processor, and the feature bits of code object v3 or v4).
 * Included by codeobj.c only (static helpers). Never logs.
 */
#ifndef HIPSVM_SIM_CODEOBJ_TARGET_H
#define HIPSVM_SIM_CODEOBJ_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codeobj.h"

#define TID_TRIPLE "amdgcn-amd-amdhsa--"
#define TID_TRIPLE_LEN 19

/* EF_AMDGPU_MACH values, and which features each processor has (code
 * object v3 states a supported feature as on or off, never "any"). */
static const struct tid_mach {
	uint8_t mach;
	bool xnack, sramecc;
	char name[8];
} tid_machs[] = {
	{ 0x22, false, false, "gfx700" }, { 0x23, false, false, "gfx701" },
	{ 0x24, false, false, "gfx702" }, { 0x25, false, false, "gfx703" },
	{ 0x26, false, false, "gfx704" }, { 0x3b, false, false, "gfx705" },
	{ 0x28, true, false, "gfx801" },  { 0x29, false, false, "gfx802" },
	{ 0x2a, false, false, "gfx803" }, { 0x3c, false, false, "gfx805" },
	{ 0x2b, true, false, "gfx810" },  { 0x2c, true, false, "gfx900" },
	{ 0x2d, true, false, "gfx902" },  { 0x2e, true, false, "gfx904" },
	{ 0x2f, true, true, "gfx906" },   { 0x30, true, true, "gfx908" },
	{ 0x31, true, false, "gfx909" },  { 0x3f, true, true, "gfx90a" },
	{ 0x32, true, false, "gfx90c" },  { 0x33, true, false, "gfx1010" },
	{ 0x34, true, false, "gfx1011" }, { 0x35, true, false, "gfx1012" },
	{ 0x36, false, false, "gfx1030" }, { 0x37, false, false, "gfx1031" },
	{ 0x38, false, false, "gfx1032" }, { 0x39, false, false, "gfx1033" },
};

/* One feature after the processor: ' ' absent, '+' or '-'. Consumes
 * ":<name>+" or ":<name>-" at *s; false on any other character after it. */
static inline bool tid_feature(const char **s, const char *end, const char *name, char *v)
{
	size_t n = strlen(name);

	*v = ' ';
	if (end - *s < (ptrdiff_t)n + 2 || (*s)[0] != ':' || memcmp(*s + 1, name, n))
		return true;
	*v = (*s)[n + 1];
	*s += n + 2;
	return *v == '+' || *v == '-';
}

struct tid {
	char proc[16];
	char sramecc, xnack;	/* ' ', '+' or '-' */
};

/* Parses "gfx90a[:sramecc±][:xnack±]" of length len (features in that
 * order, nothing after them), optionally behind "amdgcn-amd-amdhsa--". */
static inline bool tid_parse(const char *s, size_t len, struct tid *t)
{
	const char *end = s + len, *colon;
	size_t n;

	if (len >= TID_TRIPLE_LEN && !memcmp(s, TID_TRIPLE, TID_TRIPLE_LEN))
		s += TID_TRIPLE_LEN;
	colon = memchr(s, ':', (size_t)(end - s));
	n = (size_t)((colon ? colon : end) - s);
	if (n == 0 || n >= sizeof(t->proc) || memchr(s, 0, n))
		return false;
	memcpy(t->proc, s, n);
	t->proc[n] = 0;
	s += n;
	return tid_feature(&s, end, "sramecc", &t->sramecc) &&
	       tid_feature(&s, end, "xnack", &t->xnack) && s == end;
}

static inline bool tid_compatible(const struct tid *co, const struct tid *dev)
{
	return !strcmp(co->proc, dev->proc) &&
	       (co->sramecc == ' ' || co->sramecc == dev->sramecc) &&
	       (co->xnack == ' ' || co->xnack == dev->xnack);
}

/* The target ID an ELF header states (e_flags, EI_ABIVERSION); false for
 * a processor or code object version ROCm 5.2 does not know. */
static inline bool tid_from_elf(const uint8_t *hdr, size_t size, struct tid *t)
{
	uint32_t flags;
	const struct tid_mach *m = NULL;

	if (size < 52)
		return false;
	memcpy(&flags, hdr + 48, 4);
	flags = le32toh(flags);
	for (size_t i = 0; i < sizeof(tid_machs) / sizeof(tid_machs[0]); i++)
		if (tid_machs[i].mach == (flags & 0xff))
			m = &tid_machs[i];
	if (!m)
		return false;
	snprintf(t->proc, sizeof(t->proc), "%s", m->name);
	t->sramecc = t->xnack = ' ';
	switch (hdr[8]) {		/* EI_ABIVERSION */
	case 1:				/* v3: supported features are on or off */
		if (m->sramecc)
			t->sramecc = flags & 0x200 ? '+' : '-';
		if (m->xnack)
			t->xnack = flags & 0x100 ? '+' : '-';
		return true;
	case 2:				/* v4: unsupported, any, off, on */
		if ((flags & 0xc00) >= 0x800)
			t->sramecc = (flags & 0xc00) == 0xc00 ? '+' : '-';
		if ((flags & 0x300) >= 0x200)
			t->xnack = (flags & 0x300) == 0x300 ? '+' : '-';
		return true;
	}
	return false;
}

/* Writes t as "gfx90a:xnack-" into buf. */
static inline void tid_format(const struct tid *t, char *buf, size_t len)
{
	char sr[10] = "", xn[8] = "";

	if (t->sramecc != ' ')
		snprintf(sr, sizeof(sr), ":sramecc%c", t->sramecc);
	if (t->xnack != ' ')
		snprintf(xn, sizeof(xn), ":xnack%c", t->xnack);
	snprintf(buf, len, "%s%s%s", t->proc, sr, xn);
}

#endif
