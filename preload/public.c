/* SPDX-License-Identifier: MIT */
/*
 * public.c - the public API (include/hipsvm.h) and the report at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "hipsvm.h"
#include "hipsvm_config.h"
#include "shim/options.h"
#include "shim/outname.h"
#include "shim/report.h"
#include "shim/shim.h"
#include "shim/trace.h"
#include "table.h"

extern char **environ;

/* The report can reach ~50 KB (64 devices); one static buffer, taken by
 * one caller at a time. */
static char report_buf[128 * 1024];
static int report_lock;

static void lock(void)
{
	while (__atomic_exchange_n(&report_lock, 1, __ATOMIC_ACQUIRE))
		usleep(100);
}

static void unlock(void)
{
	__atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
}

const char *hipsvm_version(void)
{
	return HIPSVM_VERSION;
}

int hipsvm_active(void)
{
	return hipsvm_boot() != NULL;
}

/* The runtime, told apart by what it exports (may dlsym: not from the unmap
 * path). */
static const char *runtime_kind(void)
{
	if (hipsvm_real(HIPSVM_ROW_hipsvmSimAccess))
		return "sim";
	if (hipsvm_real(HIPSVM_ROW_hipMalloc))
		return "rocm";
	return "unknown";
}

static int format(struct hipsvm_shim *s, char *buf, size_t cap)
{
	s->runtime = runtime_kind();
	hipsvm_shim_refresh_faults(s);
	return hipsvm_shim_report(s, buf, cap);
}

int hipsvm_report_json(char *buf, size_t cap)
{
	struct hipsvm_shim *s = hipsvm_boot();
	int saved = errno, rc;

	if (!s)
		return -ENODEV;
	lock();
	rc = format(s, buf, cap);
	unlock();
	errno = saved;
	return rc;
}

int hipsvm_report_write(const char *path)
{
	struct hipsvm_shim *s = hipsvm_boot();
	char where[PATH_MAX];
	int saved = errno, rc, len;

	if (!s)
		return -ENODEV;
	if (path)
		rc = hipsvm_outname(path, getpid(), environ, where, sizeof(where));
	else
		rc = hipsvm_report_path(where, sizeof(where));
	if (rc)
		goto out;
	lock();
	len = format(s, report_buf, sizeof(report_buf));
	if (len < 0) {
		rc = len;
		goto out_unlock;
	}
	rc = hipsvm_report_save(where, report_buf, (size_t)len);
out_unlock:
	unlock();
out:
	errno = saved;
	return rc;
}

__attribute__((destructor)) static void hipsvm_dtor(void)
{
	char where[PATH_MAX];
	uint64_t lost;
	int rc, lost_err;

	if (!hipsvm_ready())
		return;
	/* A trace with holes is worse than none if nobody says so. */
	lost = hipsvm_trace_lost(&lost_err);
	if (lost)
		hipsvm_say("HIPSVM_TRACE: %lu trace event%s could not be written (%s): the trace "
			   "is incomplete", (unsigned long)lost, lost == 1 ? "" : "s",
			   hipsvm_errno_name(lost_err));
	if (hipsvm_report_path(where, sizeof(where)))
		return;
	{
		HIPSVM_IN_HIP();
		rc = hipsvm_report_write(NULL);	/* where, expanded once: "%%p" stays "%p" */
	}
	if (rc)
		hipsvm_say("cannot write the report to %s (%s)", where, hipsvm_errno_name(rc));
}
