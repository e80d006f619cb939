/* SPDX-License-Identifier: MIT */
/*
 * table.c - the rows of the hook table and their lazy resolution.
 */
#include "table.h"

#include <string.h>

#include "boot.h"
#include "hip_abi.h"
#include "seam.h"
#include "shim/shim.h"

/* Each hooked row's wrapper is the shim's function of the same name (one of
 * the *_wrap.c files). Only its address is taken here, so an unprototyped
 * declaration serves every signature; no header that declares the real
 * prototypes (sys/mman.h, sys/shm.h) may be included in this file. */
#define HIPSVM_DECL_1(name) extern int name();
#define HIPSVM_DECL_0(name)
#define HIPSVM_ROW_DECL(name, lib, hooked, optional) HIPSVM_DECL_##hooked(name)
HIPSVM_HOOK_ROWS(HIPSVM_ROW_DECL)
#undef HIPSVM_ROW_DECL

#define HIPSVM_WRAPPER_1(name) (void *)name
#define HIPSVM_WRAPPER_0(name) NULL

struct hipsvm_row hipsvm_rows[HIPSVM_ROW_COUNT] = {
#define HIPSVM_ROW_INIT(name_, lib_, hooked_, optional_) \
	[HIPSVM_ROW_##name_] = { .name = #name_, .lib = HIPSVM_LIB_##lib_, \
				 .hooked = hooked_, .optional = optional_, \
				 .wrapper = HIPSVM_WRAPPER_##hooked_(name_) },
	HIPSVM_HOOK_ROWS(HIPSVM_ROW_INIT)
#undef HIPSVM_ROW_INIT
};

/* Two HIP runtimes in one process (a framework's bundled copy and the
 * system one): the shim has one real function per name, so callers of the
 * other copy reach this one through the shim. Said once, when a real
 * function is resolved with both loaded (docs/limits.md). */
static void check_copies(const void *real)
{
	static int warned;
	char a[HIPSVM_SEAM_PATH], b[HIPSVM_SEAM_PATH];

	if (__atomic_load_n(&warned, __ATOMIC_RELAXED))
		return;
	HIPSVM_GUARDED();
	if (hipsvm_seam_hip_copies(a, b) >= 2 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		hipsvm_say("two HIP runtimes are loaded (%s and %s); every hooked HIP call goes to "
			   "%s, also when its caller was linked with the other: preload the shim "
			   "only where one runtime is in use (docs/limits.md)", a, b,
			   hipsvm_seam_where(real));
}

void *hipsvm_real_resolve(enum hipsvm_row_id id)
{
	struct hipsvm_row *r = &hipsvm_rows[id];
	void *p = __atomic_load_n(&r->real, __ATOMIC_ACQUIRE);

	if (p)
		return p;
	{
		HIPSVM_GUARDED();
		p = r->lib == HIPSVM_LIB_HIP ? hipsvm_seam_hip(r->name) : hipsvm_seam_libc(r->name);
	}
	/* Never our own wrapper: that would loop. */
	if (p && p == hipsvm_wrapper(id))
		p = NULL;
	if (p)
		__atomic_store_n(&r->real, p, __ATOMIC_RELEASE);
	if (p && r->lib == HIPSVM_LIB_HIP)
		check_copies(p);
	return p;
}

struct hipsvm_row *hipsvm_row_by_name(const char *name)
{
	unsigned i;

	if (!name)
		return NULL;
	for (i = 0; i < HIPSVM_ROW_COUNT; i++)
		if (!strcmp(hipsvm_rows[i].name, name))
			return &hipsvm_rows[i];
	return NULL;
}

int hipsvm_missing(enum hipsvm_row_id id)
{
	struct hipsvm_row *r = &hipsvm_rows[id];

	if (__atomic_exchange_n(&r->warned, 1, __ATOMIC_RELAXED))
		return hipErrorNotInitialized;
	if (id != HIPSVM_ROW_hipMalloc && hipsvm_real(HIPSVM_ROW_hipMalloc))
		hipsvm_say("%s: the HIP runtime of this process (%s) does not have it; "
			   "returning hipErrorNotInitialized", r->name,
			   hipsvm_seam_where(hipsvm_real(HIPSVM_ROW_hipMalloc)));
	else
		hipsvm_say("%s: no real function found: the HIP runtime (libamdhip64) is not "
			   "loaded, or was loaded where the shim cannot see it; returning "
			   "hipErrorNotInitialized", r->name);
	return hipErrorNotInitialized;
}

void hipsvm_table_reset_missing(void)
{
	unsigned i;

	for (i = 0; i < HIPSVM_ROW_COUNT; i++)
		__atomic_store_n(&hipsvm_rows[i].warned, 0, __ATOMIC_RELAXED);
}
