/* SPDX-License-Identifier: MIT */
/*
 * rtc_comgr.c - hiprtc's compiler: ROCm's code object manager (Debian's
 * libamd-comgr2), which ROCm 5.2's hiprtc itself compiles with, in the same
 * steps: HIP source to bitcode, the device libraries added and linked in,
 * code generation to a relocatable object, linked into a code object
 * (an ELF executable that hipModuleLoadData takes).
 *
 * The library is opened at the first compilation (ROCclr opens it at run
 * time too), so that programs that never compile do not load LLVM. Its
 * functions are listed once (COMGR_FNS). ROCm's hiprtc prepends a header of
 * its own (hiprtc_runtime.h) built into the library; the simulator has none
 * and includes the installed HIP headers instead, behind clang's HIP wrapper,
 * as hipcc's device compilation does (the resource directory of the clang
 * hipcc uses is found at build time: SIM_CLANG_RESOURCE_DIR).
 *
 * Not thread-safe by itself (LLVM is not): hiprtc.c serialises the calls.
 */
#include "api/rtc_comgr.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_rtc_buf_add(struct sim_rtc_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *q = realloc(b->p, cap);

		if (!q)
			return -ENOMEM;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

#if SIM_HAVE_COMGR
#include <amd_comgr.h>

#define COMGR_FNS(X)                                                                          \
	X(amd_comgr_create_data_set, (amd_comgr_data_set_t *))                                \
	X(amd_comgr_destroy_data_set, (amd_comgr_data_set_t))                                 \
	X(amd_comgr_create_data, (amd_comgr_data_kind_t, amd_comgr_data_t *))                 \
	X(amd_comgr_release_data, (amd_comgr_data_t))                                         \
	X(amd_comgr_set_data, (amd_comgr_data_t, size_t, const char *))                       \
	X(amd_comgr_set_data_name, (amd_comgr_data_t, const char *))                          \
	X(amd_comgr_get_data, (amd_comgr_data_t, size_t *, char *))                           \
	X(amd_comgr_data_set_add, (amd_comgr_data_set_t, amd_comgr_data_t))                   \
	X(amd_comgr_action_data_count, (amd_comgr_data_set_t, amd_comgr_data_kind_t, size_t *)) \
	X(amd_comgr_action_data_get_data,                                                     \
	  (amd_comgr_data_set_t, amd_comgr_data_kind_t, size_t, amd_comgr_data_t *))          \
	X(amd_comgr_create_action_info, (amd_comgr_action_info_t *))                          \
	X(amd_comgr_destroy_action_info, (amd_comgr_action_info_t))                           \
	X(amd_comgr_action_info_set_language, (amd_comgr_action_info_t, amd_comgr_language_t)) \
	X(amd_comgr_action_info_set_isa_name, (amd_comgr_action_info_t, const char *))        \
	X(amd_comgr_action_info_set_option_list,                                              \
	  (amd_comgr_action_info_t, const char *const *, size_t))                             \
	X(amd_comgr_action_info_set_logging, (amd_comgr_action_info_t, bool))                 \
	X(amd_comgr_do_action, (amd_comgr_action_kind_t, amd_comgr_action_info_t,            \
				amd_comgr_data_set_t, amd_comgr_data_set_t))                   \
	X(amd_comgr_iterate_symbols,                                                          \
	  (amd_comgr_data_t, amd_comgr_status_t (*)(amd_comgr_symbol_t, void *), void *))     \
	X(amd_comgr_symbol_get_info, (amd_comgr_symbol_t, amd_comgr_symbol_info_t, void *))   \
	X(amd_comgr_demangle_symbol_name, (amd_comgr_data_t, amd_comgr_data_t *))

static struct {
#define X(name, args) amd_comgr_status_t (*name) args;
	COMGR_FNS(X)
#undef X
} cg;
static int cg_state;	/* 0 not tried, 1 loaded, -1 unavailable */

static bool cg_open(char *why, size_t whylen)
{
	void *h;

	if (cg_state)
		return cg_state > 0;
	cg_state = -1;
	h = dlopen("libamd_comgr.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whylen, "cannot load the code object manager (libamd_comgr.so.2): %s",
			 dlerror());
		return false;
	}
#define X(name, args)                                                                         \
	*(void **)&cg.name = dlsym(h, #name);                                                 \
	if (!cg.name) {                                                                       \
		snprintf(why, whylen, "libamd_comgr.so.2 lacks %s", #name);                   \
		return false;                                                                 \
	}
	COMGR_FNS(X)
#undef X
	cg_state = 1;
	return true;
}

/* Appends every log of set to the program log. */
static void take_logs(amd_comgr_data_set_t set, struct sim_rtc_buf *log)
{
	size_t n = 0;

	if (cg.amd_comgr_action_data_count(set, AMD_COMGR_DATA_KIND_LOG, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		amd_comgr_data_t d;
		size_t sz = 0;
		char *p;

		if (cg.amd_comgr_action_data_get_data(set, AMD_COMGR_DATA_KIND_LOG, i, &d))
			continue;
		if (!cg.amd_comgr_get_data(d, &sz, NULL) && sz && (p = malloc(sz)) != NULL) {
			if (!cg.amd_comgr_get_data(d, &sz, p))
				sim_rtc_buf_add(log, p, sz);
			free(p);
		}
		cg.amd_comgr_release_data(d);
	}
}

static int add_data(amd_comgr_data_set_t set, amd_comgr_data_kind_t kind, const char *name,
		    const void *p, size_t n)
{
	amd_comgr_data_t d;
	int err = -EINVAL;

	if (cg.amd_comgr_create_data(kind, &d))
		return -ENOMEM;
	if (!cg.amd_comgr_set_data(d, n, p) && !cg.amd_comgr_set_data_name(d, name) &&
	    !cg.amd_comgr_data_set_add(set, d))
		err = 0;
	cg.amd_comgr_release_data(d);
	return err;
}

/* One action from in to a new set *out; its logs go to the program log. */
static int act(amd_comgr_action_kind_t kind, amd_comgr_action_info_t a, const char *const *opts,
	       size_t nopts, amd_comgr_data_set_t in, amd_comgr_data_set_t *out,
	       struct sim_rtc_buf *log)
{
	amd_comgr_status_t st;

	if (cg.amd_comgr_create_data_set(out))
		return -ENOMEM;
	if (cg.amd_comgr_action_info_set_option_list(a, opts, nopts))
		return -EINVAL;
	st = cg.amd_comgr_do_action(kind, a, in, *out);
	take_logs(*out, log);
	return st ? -EINVAL : 0;
}

static int first_data(amd_comgr_data_set_t set, amd_comgr_data_kind_t kind,
		      struct sim_rtc_buf *out)
{
	amd_comgr_data_t d;
	size_t sz = 0;
	char *p;
	int err = -EINVAL;

	if (cg.amd_comgr_action_data_get_data(set, kind, 0, &d))
		return -EINVAL;
	if (!cg.amd_comgr_get_data(d, &sz, NULL) && sz && (p = malloc(sz)) != NULL) {
		if (!cg.amd_comgr_get_data(d, &sz, p))
			err = sim_rtc_buf_add(out, p, sz);
		free(p);
	}
	cg.amd_comgr_release_data(d);
	return err;
}

static amd_comgr_status_t on_symbol(amd_comgr_symbol_t sym, void *arg)
{
	struct sim_rtc_buf *syms = arg;
	size_t len = 0;
	char *name;
	amd_comgr_data_t m, d;

	if (cg.amd_comgr_symbol_get_info(sym, AMD_COMGR_SYMBOL_INFO_NAME_LENGTH, &len) || !len ||
	    len > 4096 || !(name = calloc(1, len + 1)))
		return AMD_COMGR_STATUS_SUCCESS;
	if (!cg.amd_comgr_symbol_get_info(sym, AMD_COMGR_SYMBOL_INFO_NAME, name) &&
	    !cg.amd_comgr_create_data(AMD_COMGR_DATA_KIND_BYTES, &m)) {
		if (!cg.amd_comgr_set_data(m, strlen(name), name) &&
		    !cg.amd_comgr_demangle_symbol_name(m, &d)) {
			size_t sz = 0;
			char *dem;

			if (!cg.amd_comgr_get_data(d, &sz, NULL) && (dem = calloc(1, sz + 1)) != NULL) {
				if (!cg.amd_comgr_get_data(d, &sz, dem) &&
				    !sim_rtc_buf_add(syms, name, strlen(name) + 1))
					sim_rtc_buf_add(syms, dem, strlen(dem) + 1);
				free(dem);
			}
			cg.amd_comgr_release_data(d);
		}
		cg.amd_comgr_release_data(m);
	}
	free(name);
	return AMD_COMGR_STATUS_SUCCESS;
}

int sim_rtc_compile(const struct sim_rtc_job *job, struct sim_rtc_result *res)
{
	/* ROCm 5.2's hiprtc options, then the header set-up (see above) */
	const char *base[] = {
		"-O3", "-mllvm", "-amdgpu-early-inline-all", "-mllvm", "-amdgpu-prelink",
		"-mwavefrontsize64", "--hip-version=5.2", "-DHIP_VERSION_MAJOR=5",
		"-DHIP_VERSION_MINOR=2", "-DHIP_VERSION_PATCH=0", "-std=c++14", "-nogpuinc",
		"-isystem", SIM_CLANG_RESOURCE_DIR "/include/..", "-idirafter", "/usr/include",
		"-include", "__clang_hip_runtime_wrapper.h", "-include", "hip/hip_runtime.h",
	};
	const char *link[] = { "wavefrontsize64" };
	/* hiprtc's code generation options less -mcumode, which means nothing on
	 * gfx9 (no WGP mode) and, as a target feature the device libraries lack,
	 * keeps the inliner from inlining them (every work-item query a call) */
	const char *exe[] = { "-O3", "-mllvm", "-amdgpu-internalize-symbols", "-mwavefrontsize64" };
	size_t nbase = sizeof(base) / sizeof(base[0]), nopts = nbase + job->nopts;
	const char **opts = calloc(nopts, sizeof(*opts));
	amd_comgr_data_set_t in = { 0 }, bc = { 0 }, libs = { 0 }, linked = { 0 }, rel = { 0 },
			     out = { 0 };
	amd_comgr_action_info_t a = { 0 };
	bool have_a = false;
	char why[256] = "";
	int err = -ENOMEM;

	if (!opts)
		return -ENOMEM;
	if (!cg_open(why, sizeof(why))) {
		free(opts);
		sim_rtc_buf_add(&res->log, why, strlen(why));
		sim_rtc_buf_add(&res->log, "\n", 1);
		return -ENOTSUP;
	}
	memcpy(opts, base, sizeof(base));
	for (size_t i = 0; i < job->nopts; i++)
		opts[nbase + i] = job->opts[i];
	if (cg.amd_comgr_create_data_set(&in))
		goto out;
	err = add_data(in, AMD_COMGR_DATA_KIND_SOURCE, job->name, job->src, strlen(job->src));
	for (int i = 0; !err && i < job->nheaders; i++)
		err = add_data(in, AMD_COMGR_DATA_KIND_INCLUDE, job->header_names[i],
			       job->headers[i], strlen(job->headers[i]));
	if (err)
		goto out;
	err = -EINVAL;
	if (cg.amd_comgr_create_action_info(&a))
		goto out;
	have_a = true;
	if (cg.amd_comgr_action_info_set_language(a, AMD_COMGR_LANGUAGE_HIP) ||
	    cg.amd_comgr_action_info_set_isa_name(a, job->isa) ||
	    cg.amd_comgr_action_info_set_logging(a, true))
		goto out;
	err = act(AMD_COMGR_ACTION_COMPILE_SOURCE_TO_BC, a, opts, nopts, in, &bc, &res->log);
	if (!err)
		err = act(AMD_COMGR_ACTION_ADD_DEVICE_LIBRARIES, a, link, 1, bc, &libs, &res->log);
	if (!err)
		err = act(AMD_COMGR_ACTION_LINK_BC_TO_BC, a, link, 1, libs, &linked, &res->log);
	if (!err)
		err = act(AMD_COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE, a, exe, 4, linked, &rel,
			  &res->log);
	if (!err)
		err = act(AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, a, exe, 4, rel, &out,
			  &res->log);
	if (!err)
		err = first_data(out, AMD_COMGR_DATA_KIND_EXECUTABLE, &res->code);
	if (!err) {
		amd_comgr_data_t d;

		if (!cg.amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &d)) {
			if (!cg.amd_comgr_set_data(d, res->code.len, res->code.p))
				cg.amd_comgr_iterate_symbols(d, on_symbol, &res->syms);
			cg.amd_comgr_release_data(d);
		}
	}
out:
	if (have_a)
		cg.amd_comgr_destroy_action_info(a);
	{
		amd_comgr_data_set_t sets[] = { in, bc, libs, linked, rel, out };

		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
			if (sets[i].handle)
				cg.amd_comgr_destroy_data_set(sets[i]);
	}
	free(opts);
	return err;
}
#else
int sim_rtc_compile(const struct sim_rtc_job *job, struct sim_rtc_result *res)
{
	static const char why[] = "hipsvm was built without amd_comgr.h (libamd-comgr-dev): "
				  "no compiler\n";

	(void)job;
	sim_rtc_buf_add(&res->log, why, sizeof(why) - 1);
	return -ENOTSUP;
}
#endif
