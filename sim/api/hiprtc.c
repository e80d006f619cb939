/* SPDX-License-Identifier: MIT */
/*
 * hiprtc.c - runtime compilation, as ROCm 5.2.3's hiprtc: programs are
 * created, compiled through ROCm's code object manager (rtc_comgr.c) for the
 * current device's target ID (or the one --offload-arch= / the nvcc-style
 * --gpu-architecture= names), and give a code object that hipModuleLoadData
 * loads. Name expressions are compiled in as hiprtc does (each becomes
 * `extern "C" constexpr auto __hiprtc_N = <expression>;`), and their lowered
 * names are found by demangling every symbol of the code object and cutting
 * it as ROCm does (return type, parameters and the text after the template
 * arguments dropped, spaces removed). ROCm's answers are kept where they
 * look odd: the log size counts no terminating NUL, a name expression added
 * after compilation is accepted (and unused), asking for a lowered name
 * before compilation is HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID. Where ROCm
 * would dereference a bad handle the simulator answers
 * HIPRTC_ERROR_INVALID_PROGRAM. Compilations are serialised (LLVM is not
 * thread-safe; hiprtc holds one lock too).
 */
#include "api/api.h"

#include <hip/hiprtc.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/rtc_comgr.h"

#define RTC_MAGIC 0x52544350u	/* "RTCP" */

struct name_expr {
	char *expr;		/* as given */
	char *stripped;		/* hiprtc's key: parentheses, '&' and spaces removed */
	char *lowered;		/* the mangled name, after compilation */
};

struct _hiprtcProgram {
	uint32_t magic;
	struct sim_rtc_buf src;	/* NUL-terminated */
	int nheaders;
	char **headers, **header_names;
	struct name_expr *names;
	size_t nnames;
	struct sim_rtc_buf log, code;
};

static pthread_mutex_t rtc_lock = PTHREAD_MUTEX_INITIALIZER;

static struct _hiprtcProgram *prog_of(hiprtcProgram p)
{
	return p && p->magic == RTC_MAGIC ? p : NULL;
}

static void no_spaces(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\v' && *s != '\f')
			*d++ = *s;
	*d = 0;
}

/* hiprtc's stripNamedExpression: a closing ')' dropped together with what
 * precedes the first '(' (nothing when '(' comes first), then a leading '&'. */
static char *strip_expr(const char *e)
{
	size_t n = strlen(e);
	char *s = strdup(e), *open;

	if (!s)
		return NULL;
	if (n && s[n - 1] == ')') {
		s[n - 1] = 0;
		open = strchr(s, '(');
		if (!open)
			s[0] = 0;
		else
			memmove(s, open, strlen(open) + 1);
	}
	if (s[0] == '&')
		memmove(s, s + 1, strlen(s));
	no_spaces(s);
	return s;
}

/* Records mangled as the lowered name of the name expressions whose
 * stripped form is demangled, cut as ROCm 5.2 cuts it. */
static void match_name(struct _hiprtcProgram *p, const char *mangled, const char *demangled)
{
	char *d, *cut;

	if (!*demangled || strstr(demangled, ".kd") || !(d = strdup(demangled)))
		return;
	if (!strncmp(d, "void ", 5))
		memmove(d, d + 5, strlen(d + 5) + 1);
	cut = strpbrk(d, "(<");
	if (cut && *cut == '<') {
		int depth = 1;

		while (depth && *++cut)
			depth += *cut == '<' ? 1 : *cut == '>' ? -1 : 0;
		if (*cut)
			cut[1] = 0;
	} else if (cut) {
		*cut = 0;
	}
	no_spaces(d);
	for (size_t i = 0; i < p->nnames; i++) {
		if (strcmp(p->names[i].stripped, d))
			continue;
		free(p->names[i].lowered);
		p->names[i].lowered = strdup(mangled);
	}
	free(d);
}

SIM_API const char *hiprtcGetErrorString(hiprtcResult r)
{
	static const char *const names[] = {
		"HIPRTC_SUCCESS",
		"HIPRTC_ERROR_OUT_OF_MEMORY",
		"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
		"HIPRTC_ERROR_INVALID_INPUT",
		"HIPRTC_ERROR_INVALID_PROGRAM",
		"HIPRTC_ERROR_INVALID_OPTION",
		"HIPRTC_ERROR_COMPILATION",
		"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
		"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
		"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
		"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
		"HIPRTC_ERROR_INTERNAL_ERROR",
	};

	if ((unsigned)r < sizeof(names) / sizeof(names[0]))
		return names[r];
	return NULL;	/* ROCm 5.2: NULL for an unknown code */
}

SIM_API hiprtcResult hiprtcVersion(int *major, int *minor)
{
	if (!major || !minor)
		return HIPRTC_ERROR_INVALID_INPUT;
	*major = 9;	/* what ROCm 5.2 answers */
	*minor = 0;
	return HIPRTC_SUCCESS;
}

static void prog_free(struct _hiprtcProgram *p)
{
	for (int i = 0; i < p->nheaders; i++) {
		free(p->headers[i]);
		free(p->header_names[i]);
	}
	free(p->headers);
	free(p->header_names);
	for (size_t i = 0; i < p->nnames; i++) {
		free(p->names[i].expr);
		free(p->names[i].stripped);
		free(p->names[i].lowered);
	}
	free(p->names);
	free(p->src.p);
	free(p->log.p);
	free(p->code.p);
	p->magic = 0;
	free(p);
}

SIM_API hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name,
					 int nheaders, const char **headers,
					 const char **include_names)
{
	struct _hiprtcProgram *p;

	(void)name;	/* ROCm names the source "CompileSource" whatever it is given */
	if (!prog)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (nheaders < 0)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (nheaders && (!headers || !include_names))
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!src || !*src)	/* addSource refuses an empty source */
		return HIPRTC_ERROR_INVALID_INPUT;
	p = calloc(1, sizeof(*p));
	if (!p)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	p->magic = RTC_MAGIC;
	if (sim_rtc_buf_add(&p->src, src, strlen(src)) ||
	    (nheaders && (!(p->headers = calloc((size_t)nheaders, sizeof(char *))) ||
			  !(p->header_names = calloc((size_t)nheaders, sizeof(char *)))))) {
		prog_free(p);
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	}
	for (int i = 0; i < nheaders; i++) {
		/* addHeader refuses an empty or unnamed header */
		if (!headers[i] || !include_names[i] || !*headers[i] || !*include_names[i]) {
			prog_free(p);
			return HIPRTC_ERROR_INVALID_INPUT;
		}
		p->headers[i] = strdup(headers[i]);
		p->header_names[i] = strdup(include_names[i]);
		p->nheaders = i + 1;
		if (!p->headers[i] || !p->header_names[i]) {
			prog_free(p);
			return HIPRTC_ERROR_OUT_OF_MEMORY;
		}
	}
	*prog = p;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog)
{
	struct _hiprtcProgram *p;

	if (!prog)
		return HIPRTC_ERROR_INVALID_INPUT;
	p = prog_of(*prog);
	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	prog_free(p);
	*prog = NULL;
	return HIPRTC_SUCCESS;
}

/* hiprtc's trackMangledName: the expression is compiled in as a constexpr
 * variable, so that the compiler instantiates what it names. */
SIM_API hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char *expr)
{
	struct _hiprtcProgram *p = prog_of(prog);
	struct name_expr *n, e = { 0 };
	char decl[64];

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (!expr)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!*expr)
		return HIPRTC_ERROR_INVALID_INPUT;
	n = realloc(p->names, (p->nnames + 1) * sizeof(*n));
	if (!n)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	p->names = n;
	e.expr = strdup(expr);
	e.stripped = strip_expr(expr);
	snprintf(decl, sizeof(decl), "\nextern \"C\" constexpr auto __hiprtc_%zu = ", p->nnames + 1);
	if (!e.expr || !e.stripped || sim_rtc_buf_add(&p->src, decl, strlen(decl)) ||
	    sim_rtc_buf_add(&p->src, expr, strlen(expr)) || sim_rtc_buf_add(&p->src, ";\n", 2)) {
		free(e.expr);
		free(e.stripped);
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	}
	p->names[p->nnames++] = e;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int nopts, const char **opts)
{
	struct _hiprtcProgram *p = prog_of(prog);
	struct sim_rtc_result res = { 0 };
	struct sim_rtc_job job = { 0 };
	char **o = NULL, isa[96];
	const char *arch = NULL;
	int err;

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (nopts < 0 || (nopts && !opts))
		return HIPRTC_ERROR_INVALID_INPUT;
	SIM_INIT_API();
	if (nopts && !(o = calloc((size_t)nopts, sizeof(*o))))
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	for (int i = 0; i < nopts; i++) {
		const char *v = opts[i] ? opts[i] : "";

		/* hiprtc's transformOptions: nvcc's spelling becomes clang's */
		if (!strncmp(v, "--gpu-architecture=", 19)) {
			o[i] = malloc(strlen(v) - 19 + 16);
			if (o[i])
				sprintf(o[i], "--offload-arch=%s", v + 19);
		} else {
			o[i] = strdup(v);
		}
		if (!o[i]) {
			while (i--)
				free(o[i]);
			free(o);
			return HIPRTC_ERROR_OUT_OF_MEMORY;
		}
		if (!arch && strstr(o[i], "--offload-arch="))
			arch = strchr(o[i], '=') + 1;
	}
	/* without an architecture: the current device's (hiprtc's findIsa) */
	snprintf(isa, sizeof(isa), "amdgcn-amd-amdhsa--%s", arch ? arch : sim.target);
	job.src = p->src.p;
	job.name = "CompileSource";
	job.nheaders = p->nheaders;
	job.headers = (const char *const *)p->headers;
	job.header_names = (const char *const *)p->header_names;
	job.opts = (const char *const *)o;
	job.nopts = (size_t)nopts;
	job.isa = isa;
	pthread_mutex_lock(&rtc_lock);
	for (size_t i = 0; i < p->nnames; i++) {
		free(p->names[i].lowered);
		p->names[i].lowered = NULL;
	}
	err = sim_rtc_compile(&job, &res);
	for (size_t at = 0; !err && at < res.syms.len;) {
		const char *mangled = res.syms.p + at, *demangled = mangled + strlen(mangled) + 1;

		match_name(p, mangled, demangled);
		at += (size_t)(demangled + strlen(demangled) + 1 - mangled);
	}
	pthread_mutex_unlock(&rtc_lock);
	free(res.syms.p);
	for (int i = 0; i < nopts; i++)
		free(o[i]);
	free(o);
	/* each compilation replaces the log and the code */
	free(p->log.p);
	free(p->code.p);
	p->log = res.log;
	p->code = err ? (struct sim_rtc_buf){ 0 } : res.code;
	if (err)
		free(res.code.p);
	if (err == -ENOMEM)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	return err ? HIPRTC_ERROR_COMPILATION : HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char *expr,
					  const char **lowered)
{
	struct _hiprtcProgram *p = prog_of(prog);
	hiprtcResult r = HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
	char *key;

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (!expr || !lowered)
		return HIPRTC_ERROR_INVALID_INPUT;
	key = strip_expr(expr);
	if (!key)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; i < p->nnames; i++) {
		if (!strcmp(p->names[i].stripped, key) && p->names[i].lowered) {
			*lowered = p->names[i].lowered;
			r = HIPRTC_SUCCESS;
			break;
		}
	}
	free(key);
	return r;
}

/* The log and the code: a program's buffer, its size (ROCm 5.2 leaves no
 * room for a NUL) or its bytes, with the same checks in the same order. */
static hiprtcResult buf_of(hiprtcProgram prog, const void *out, bool code,
			   const struct sim_rtc_buf **b)
{
	struct _hiprtcProgram *p = prog_of(prog);

	if (!out)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	*b = code ? &p->code : &p->log;
	return HIPRTC_SUCCESS;
}

static hiprtcResult buf_size(hiprtcProgram prog, size_t *size, bool code)
{
	const struct sim_rtc_buf *b;
	hiprtcResult r = buf_of(prog, size, code, &b);

	if (r == HIPRTC_SUCCESS)
		*size = b->len;
	return r;
}

static hiprtcResult buf_copy(hiprtcProgram prog, char *out, bool code)
{
	const struct sim_rtc_buf *b;
	hiprtcResult r = buf_of(prog, out, code, &b);

	if (r == HIPRTC_SUCCESS && b->len)
		memcpy(out, b->p, b->len);
	return r;
}

SIM_API hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *size)
{
	return buf_size(prog, size, false);
}

SIM_API hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log)
{
	return buf_copy(prog, log, false);
}

SIM_API hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *size)
{
	return buf_size(prog, size, true);
}

SIM_API hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code)
{
	return buf_copy(prog, code, true);
}
