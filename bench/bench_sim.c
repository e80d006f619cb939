/* SPDX-License-Identifier: MIT */
/*
 * bench_sim.c - figures of the simulated runtime, medians of 21 runs:
 *   - faults handled per second by one GPU's handler thread (faults written
 *     while the ring is held, then the handler timed until the ring is empty;
 *     the page is mapped after the first, so this is the filter + lookup
 *     path every retry fault takes; target >= 5 M/s)
 *   - drain latency on an empty ring and with 1,000 pending faults
 *     (hipsvm_cp_drain in the runtime, and "drain 0" over the hook socket)
 *   - the hook requests of a coordinated unmap of an idle range on every GPU,
 *     over the socket: set, drain and clear apart (three round trips, a
 *     hook of protocol version 1) and set then drainclear (two), the same
 *     server, the same checkpoints, the unmap itself left out
 *   - hipMalloc + hipFree pairs per second
 *   - one hipMalloc(256) with 1K and with 1M allocations live (median of
 *     1001 calls, each freed again so that the count stays put), and the
 *     time to make the million
 * Run: build/sim/bench_sim [runs] [live]   (HIPSVM_SIM_* options apply;
 * live: the large count, 1000000 unless given)
 */
#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "bench_util.h"
#include <unistd.h>

#include "hipsvm_sim.h"

#define MAX_RUNS 101



static double median(double *v, int n)
{
	return bench_median(v, (size_t)n);
}

static void row(const char *what, double ns_per_op, const char *rate_unit, double rate)
{
	printf("%-44s %12.1f ns   %10.2f %s\n", what, ns_per_op, rate, rate_unit);
}

static int hook_connect(void)
{
	const char *name = hipsvmSimSocketPath();
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd;

	if (n < 2 || n >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa,
			       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int socket_drain(int fd)
{
	char buf[256];
	size_t len = 0;

	if (send(fd, "drain 0\n", 8, 0) != 8)
		return -1;
	while (len == 0 || buf[len - 1] != '\n') {
		ssize_t r = recv(fd, buf + len, sizeof(buf) - len, 0);

		if (r <= 0)
			return -1;
		len += (size_t)r;
	}
	return strncmp(buf, "ok drain 0=ok", 13) == 0 ? 0 : -1;
}

#define LIVE_SAMPLES 1001

/* The median cost of one hipMalloc(256) with n allocations live. */
static int live_cost(unsigned long n, const char *total_label)
{
	static double v[LIVE_SAMPLES];
	void **live = calloc(n ? n : 1, sizeof(*live));
	uint64_t t0, made;
	unsigned long k;
	char what[64];
	void *p;
	int i, rc = 0;

	if (!live)
		return 1;
	t0 = now_ns();
	for (k = 0; k < n; k++)
		if (hipMalloc(&live[k], 256) != hipSuccess) {
			fprintf(stderr, "bench_sim: hipMalloc #%lu failed\n", k + 1);
			rc = 1;
			n = k;
			goto out;
		}
	made = now_ns() - t0;
	for (i = 0; i < LIVE_SAMPLES; i++) {
		t0 = now_ns();
		if (hipMalloc(&p, 256) != hipSuccess) {
			rc = 1;
			goto out;
		}
		v[i] = (double)(now_ns() - t0);
		hipFree(p);
	}
	snprintf(what, sizeof(what), "hipMalloc(256), %lu live", n);
	row(what, median(v, LIVE_SAMPLES), "M calls/s", 1e3 / median(v, LIVE_SAMPLES));
	if (total_label) {
		snprintf(what, sizeof(what), "%s (%lu)", total_label, n);
		row(what, (double)made / (double)n, "s total", (double)made / 1e9);
	}
out:
	for (k = 0; k < n; k++)
		hipFree(live[k]);
	free(live);
	return rc;
}

/* One request line, one reply line; 0 when the reply starts with want. */
static int socket_req(int fd, const char *line, const char *want)
{
	char buf[512];
	size_t len = 0, n = strlen(line);

	if (send(fd, line, n, 0) != (ssize_t)n)
		return -1;
	while (len == 0 || buf[len - 1] != '\n') {
		ssize_t r = recv(fd, buf + len, sizeof(buf) - len, 0);

		if (r <= 0)
			return -1;
		len += (size_t)r;
	}
	return strncmp(buf, want, strlen(want)) == 0 ? 0 : -1;
}

/* The requests of one coordinated unmap of an idle page on every GPU. The
 * rings are empty, so the set records nothing and the clear has no value:
 * what a drainclear saves is the round trip, which is what is measured. */
static int unmap_requests(int fd, bool combined, uint64_t addr)
{
	char line[96];

	snprintf(line, sizeof(line), "set all 0x%llx 4096\n", (unsigned long long)addr);
	if (socket_req(fd, line, "ok set"))
		return -1;
	if (combined)
		return socket_req(fd, "drainclear all 1000\n", "ok drainclear");
	if (socket_req(fd, "drain all 1000\n", "ok drain"))
		return -1;
	return socket_req(fd, "clear all\n", "ok clear");
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 21;
	const unsigned faults = 1u << 20, pairs = 2000;
	double v[MAX_RUNS], v2[MAX_RUNS], v3[MAX_RUNS], vd[MAX_RUNS];
	uint64_t ns;
	void *m, *p;
	int i, fd;
	unsigned k;

	if (runs < 1 || runs > MAX_RUNS)
		runs = 21;
	/* a ring that holds a million faults; quiet: no start-up notice */
	setenv("HIPSVM_SIM_RING_SIZE", "64M", 0);
	setenv("HIPSVM_SIM_QUIET", "1", 0);
	if (hipMallocManaged(&m, 4096, hipMemAttachGlobal) != hipSuccess) {
		fprintf(stderr, "bench_sim: no simulated GPU\n");
		return 1;
	}
	printf("bench_sim: %d GPUs, medians of %d runs\n", hipsvmSimGpuCount(), runs);
	printf("%-44s %15s   %s\n", "operation", "per op", "rate");

	for (i = 0; i < runs; i++) {
		if (hipsvmSimBenchHandler(0, m, faults, &ns) != 0)
			return 1;
		v[i] = (double)ns / faults;
	}
	row("fault handled (1 handler, 1M IVs)", median(v, runs), "M faults/s",
	    1e3 / median(v, runs));

	for (i = 0; i < runs; i++) {
		if (hipsvmSimBenchDrain(0, m, 0, &ns) != 0)
			return 1;
		v[i] = (double)ns;
	}
	row("drain, empty ring (in runtime)", median(v, runs), "us", median(v, runs) / 1e3);

	for (i = 0; i < runs; i++) {
		if (hipsvmSimBenchDrain(0, m, 1000, &ns) != 0)
			return 1;
		v[i] = (double)ns;
	}
	row("drain, 1000 pending faults (in runtime)", median(v, runs), "us",
	    median(v, runs) / 1e3);

	fd = hook_connect();
	if (fd >= 0) {
		for (i = 0; i < runs; i++) {
			uint64_t t0 = now_ns();

			for (k = 0; k < 100; k++)
				if (socket_drain(fd))
					return 1;
			v[i] = (double)(now_ns() - t0) / 100;
		}
		row("\"drain 0\" over the hook socket, empty", median(v, runs), "us",
		    median(v, runs) / 1e3);
		/* Alternated run by run, so that a busy machine's drift hits
		 * both; the saving is the median of the paired differences. */
		for (i = 0; i < runs; i++) {
			for (k = 0; k < 2; k++) {
				uint64_t t0 = now_ns();
				unsigned j;

				for (j = 0; j < 50; j++)
					if (unmap_requests(fd, k == 1, (uint64_t)(uintptr_t)m))
						return 1;
				(k ? v2 : v3)[i] = (double)(now_ns() - t0) / 50;
			}
			vd[i] = v3[i] - v2[i];
		}
		row("unmap requests: set, drain, clear (3 trips)", median(v3, runs), "us",
		    median(v3, runs) / 1e3);
		row("unmap requests: set, drainclear (2 trips)", median(v2, runs), "us",
		    median(v2, runs) / 1e3);
		row("  saved by drainclear (paired median)", median(vd, runs), "us",
		    median(vd, runs) / 1e3);
		close(fd);
	}

	for (i = 0; i < runs; i++) {
		uint64_t t0 = now_ns();

		for (k = 0; k < pairs; k++) {
			if (hipMalloc(&p, 4096) != hipSuccess || hipFree(p) != hipSuccess)
				return 1;
		}
		v[i] = (double)(now_ns() - t0) / pairs;
	}
	row("hipMalloc(4K) + hipFree pair", median(v, runs), "M pairs/s", 1e3 / median(v, runs));
	if (live_cost(1000, NULL) || live_cost(argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000,
					       "hipMalloc(256) x live, total"))
		return 1;
	hipFree(m);
	return 0;
}
