/* SPDX-License-Identifier: MIT */
/*
 * conf_image.h - the code object of conf_module.c and conf_launch.c, built
 * with tests/hip/codeobj_build.h: an offload bundle (host entry and gfx90a
 * ELF) with one kernel "basic" whose arguments are a buffer (offset 0), a
 * read-only buffer (8), an int (16) and a buffer (32).
 */
#ifndef HIPSVM_TESTS_SIM_CONF_IMAGE_H
#define HIPSVM_TESTS_SIM_CONF_IMAGE_H

#include "codeobj_build.h"

static const struct sarg conf_args[] = {
	{ 0, 8, "global_buffer", NULL },
	{ 8, 8, "global_buffer", "read_only" },
	{ 16, 4, "by_value", NULL },
	{ 24, 8, "hidden_global_offset_x", NULL },
	{ 32, 8, "global_buffer", "read_write" },
};

static inline struct wb image(void)
{
	struct wb m = { 0 };
	struct wb elf, b;
	struct sentry e[2];

	mp_meta_begin(&m, 1);
	mp_kernel(&m, "basic", 40, conf_args, 5);
	elf = make_elf_note(m.p, m.n, 32, true);
	e[0] = (struct sentry){ "host-x86_64-unknown-linux", "", 0 };
	e[1] = (struct sentry){ "hipv4-amdgcn-amd-amdhsa--gfx90a", elf.p, elf.n };
	b = make_bundle(e, 2);
	free(m.p);
	free(elf.p);
	return b;
}

#endif
