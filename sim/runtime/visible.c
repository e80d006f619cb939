/* SPDX-License-Identifier: MIT */
/*
 * visible.c - which simulated GPUs a process sees, and in which order.
 *
 * ROCm filters twice. ROCr (below HIP) applies ROCR_VISIBLE_DEVICES to the
 * GPUs the driver reports; HIP then applies HIP_VISIBLE_DEVICES, or
 * CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is unset or empty, to what
 * ROCr left. Each list is a comma-separated list of indices into the list
 * below it; the listed order becomes the device order; a repeated index is
 * kept once; the first entry that is not a plain decimal index in range ends
 * the list (what follows it is ignored). ROCr also takes "GPU-<uuid>"
 * entries (the uuid hipDeviceGetUuid reports), and a ROCR_VISIBLE_DEVICES
 * that is set but empty hides every GPU; an empty HIP_VISIBLE_DEVICES or
 * CUDA_VISIBLE_DEVICES filters nothing.
 *
 * The simulator builds HIPSVM_SIM_GPUS physical GPUs' worth of identities
 * (PCI location, uuid, fine-grained flag) and runs only the visible ones:
 * sim.phys[i] is the physical index of device i.
 */
#include "runtime/visible.h"
#include "shared/proto.h"

#include <stdbool.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>

extern char **environ;

static const char *env_get(const char *name)
{
	size_t n = strlen(name);
	char **e;

	for (e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

void sim_uuid_of(int phys, char out[16])
{
	char buf[17];

	snprintf(buf, sizeof(buf), "%016llx", 0x53494d0000a10000ull + (unsigned long long)phys);
	memcpy(out, buf, 16);
}

/* One entry of a list: the index it names among `n` (whose physical
 * indices are in `ids`), or -1 when it is not valid. */
static int entry_index(const char *tok, size_t len, const int *ids, int n, bool uuids)
{
	char buf[32];
	char *end;
	long v;
	int i;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	if (uuids && !strncmp(buf, "GPU-", 4)) {
		for (i = 0; i < n; i++) {
			char u[16];

			sim_uuid_of(ids[i], u);
			if (len == 20 && !memcmp(buf + 4, u, 16))
				return i;
		}
		return -1;
	}
	/* a plain decimal number, as ROCm compares the entry with the
	 * number printed back */
	if (buf[0] < '0' || buf[0] > '9' || (buf[0] == '0' && len > 1))
		return -1;
	v = strtol(buf, &end, 10);
	if (*end || v >= n)
		return -1;
	return (int)v;
}

/* Filters ids[0..n) by list; returns the new count. */
static int apply(const char *list, int *ids, int n, bool uuids)
{
	int out[HIPSVM_MAX_GPUS];
	bool taken[HIPSVM_MAX_GPUS] = { false };
	int m = 0;
	const char *p = list;

	while (*p) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		int i = entry_index(p, len, ids, n, uuids);

		if (i < 0)
			break;
		if (!taken[i]) {
			taken[i] = true;
			out[m++] = ids[i];
		}
		if (!c)
			break;
		p = c + 1;
	}
	memcpy(ids, out, (size_t)m * sizeof(int));
	return m;
}

unsigned sim_visible_devices(unsigned nphys, int *phys)
{
	const char *rocr = env_get("ROCR_VISIBLE_DEVICES");
	const char *hip = env_get("HIP_VISIBLE_DEVICES");
	int n = (int)nphys;
	int i;

	for (i = 0; i < n; i++)
		phys[i] = i;
	if (rocr)
		n = apply(rocr, phys, n, true);
	if (!hip || !*hip)
		hip = env_get("CUDA_VISIBLE_DEVICES");
	if (hip && *hip)
		n = apply(hip, phys, n, false);
	return (unsigned)n;
}
