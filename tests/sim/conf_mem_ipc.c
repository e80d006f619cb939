/* SPDX-License-Identifier: MIT */
/* conf_mem_ipc.c - IPC memory handles against ROCm 5.2.3 (hip_memory.cpp's
 * hipIpc*MemHandle over ROCclr's IpcCreate/IpcAttach/IpcDetach), with a
 * real share between two processes. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf_mem.h"

TestSuite(mem_ipc, .timeout = 60);

static void xfer(int fd, void *buf, size_t n, bool out)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = out ? write(fd, (char *)buf + done, n - done)
				: read(fd, (char *)buf + done, n - done);

		cr_assert_gt(r, 0, "pipe");
		done += (size_t)r;
	}
}

/* hipIpcGetMemHandle in one process, hipIpcOpenMemHandle in another: both
 * see the same bytes, each the other's writes. */
Test(mem_ipc, two_processes_share)
{
	int up[2], down[2], st = 0;
	const size_t n = 3 * 4096 + 100, off = 4096 + 8;
	hipIpcMemHandle_t h;
	unsigned char *buf = malloc(n), *want = malloc(n);
	pid_t pid;
	char ok = 0;

	cr_assert(buf && want);
	cr_assert_eq(pipe(up), 0);
	cr_assert_eq(pipe(down), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* the exporter: its own runtime, a fresh process image of it */
		unsigned char *d = NULL;
		char go;
		int bad = 0;
		size_t i;

		if (hipMalloc((void **)&d, n) != hipSuccess)
			_exit(2);
		pattern(buf, n, 1);
		if (hipMemcpy(d, buf, n, hipMemcpyHostToDevice) != hipSuccess ||
		    hipIpcGetMemHandle(&h, d + off) != hipSuccess)
			_exit(3);
		xfer(up[1], &h, sizeof(h), true);
		xfer(down[0], &go, 1, false);	/* the importer has written */
		if (hipMemcpy(buf, d, n, hipMemcpyDeviceToHost) != hipSuccess)
			_exit(4);
		for (i = 0; i < n; i++)
			bad |= buf[i] != (unsigned char)(i >= off ? ~(i * 31u + 7u + (i >> 8))
							  : (i * 31u + 7u + (i >> 8)));
		hipFree(d);
		_exit(bad ? 5 : 0);
	}
	xfer(up[0], &h, sizeof(h), false);
	{
		unsigned char *p = NULL;
		void *base = NULL;
		size_t size = 0, i;

		cr_assert_eq(hipIpcOpenMemHandle((void **)&p, h, hipIpcMemLazyEnablePeerAccess),
			     hipSuccess);
		cr_assert_not_null(p);
		pattern(want, n, 1);
		cr_expect_eq(memcmp(p, want + off, n - off), 0, "the exporter's bytes");
		cr_assert_eq(hipMemGetAddressRange(&base, &size, p), hipSuccess);
		cr_expect_eq((unsigned char *)base + off, p);
		cr_expect_eq(size, n, "the whole allocation, as ROCm's handle carries it");
		cr_expect_eq(hipsvmSimIsMapped(0, p), 1, "in this process's GPU page table");
		for (i = off; i < n; i++)
			want[i] = (unsigned char)~want[i];
		cr_assert_eq(hipMemcpy(p, want + off, n - off, hipMemcpyHostToDevice), hipSuccess);
		cr_expect_eq(hipIpcCloseMemHandle(p), hipSuccess);
		cr_expect_eq(hipIpcCloseMemHandle(p), hipErrorInvalidHandle);
	}
	xfer(down[1], &ok, 1, true);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the exporter saw our writes (status %d)",
		  st);
	free(buf);
	free(want);
}

/* hipIpcGetMemHandle: NULLs are hipErrorInvalidValue; memory that is not
 * device memory is hipErrorInvalidDevicePointer. */
Test(mem_ipc, hipIpcGetMemHandle_arguments)
{
	hipIpcMemHandle_t h;
	void *hp, *d = dmalloc(64);
	int x;

	cr_expect_eq(hipIpcGetMemHandle(NULL, d), hipErrorInvalidValue);
	cr_expect_eq(hipIpcGetMemHandle(&h, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipIpcGetMemHandle(&h, &x), hipErrorInvalidDevicePointer);
	cr_assert_eq(hipHostMalloc(&hp, 64, 0), hipSuccess);
	cr_expect_eq(hipIpcGetMemHandle(&h, hp), hipErrorInvalidDevicePointer);
	cr_expect_eq(hipIpcGetMemHandle(&h, d), hipSuccess);
	hipHostFree(hp);
	hipFree(d);
}

/* hipIpcOpenMemHandle: flags must be hipIpcMemLazyEnablePeerAccess; a
 * handle of size 0 is hipErrorInvalidValue, one that attaches to nothing
 * hipErrorInvalidDevicePointer. */
Test(mem_ipc, hipIpcOpenMemHandle_arguments)
{
	hipIpcMemHandle_t h;
	void *p;

	memset(&h, 0, sizeof(h));
	cr_expect_eq(hipIpcOpenMemHandle(&p, h, 1), hipErrorInvalidValue);
	cr_expect_eq(hipIpcOpenMemHandle(NULL, h, 0), hipErrorInvalidValue);
	cr_expect_eq(hipIpcOpenMemHandle(&p, h, 0), hipErrorInvalidValue);
	memset(&h, 0x41, sizeof(h));
	cr_expect_eq(hipIpcOpenMemHandle(&p, h, 0), hipErrorInvalidDevicePointer);
}

/* hipIpcCloseMemHandle: NULL is hipErrorInvalidValue, memory that was not
 * opened from a handle hipErrorInvalidHandle. */
Test(mem_ipc, hipIpcCloseMemHandle_arguments)
{
	void *d = dmalloc(64);

	cr_expect_eq(hipIpcCloseMemHandle(NULL), hipErrorInvalidValue);
	cr_expect_eq(hipIpcCloseMemHandle(d), hipErrorInvalidHandle);
	hipFree(d);
}

/* A handle opened in the process that made it maps the same pages again:
 * data written before the export is there, and writes show through. */
Test(mem_ipc, same_process_alias)
{
	unsigned char *d = dmalloc(2 * 4096), *p = NULL;
	hipIpcMemHandle_t h;

	memset(d, 0x3c, 2 * 4096);
	cr_assert_eq(hipIpcGetMemHandle(&h, d), hipSuccess);
	cr_expect_eq(d[4097], 0x3c, "the export keeps the contents");
	cr_assert_eq(hipIpcOpenMemHandle((void **)&p, h, 0), hipSuccess);
	cr_expect_neq(p, d);
	d[10] = 0x99;
	cr_expect_eq(p[10], 0x99);
	cr_expect_eq(hipIpcCloseMemHandle(p), hipSuccess);
	cr_expect_eq(hipFree(d), hipSuccess);
}
