/* SPDX-License-Identifier: MIT */
/*
 * isa_threads.c - the interpreter's workgroups on several threads: the
 * "kernel: ids" program of isa_golden.txt (each work-item takes a slot with a
 * global atomic and writes its ids there) dispatched over 4 threads, 40 times,
 * against plain memory whose atomics are host atomics. Every work-item must
 * run exactly once. Plain C with TAP output (not Criterion), so that it also
 * runs under ThreadSanitizer (scripts/test-sanitizers).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/dispatch.h"

#include "isa_shared_mem.h"

int main(void)
{
	const struct golden *g = NULL;
	uint8_t kd[64] = { 0 };
	uint32_t rsrc2 = (4u << 1) | (1u << 7) | (1u << 8);
	uint16_t props = KCP_DISPATCH_PTR | KCP_KERNARG_PTR;
	uint64_t out = MEM_BASE + 0x100;
	struct isa_kernel k;
	char why[128];
	int bad = 0;

	printf("1..1\n");
	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		if (!strcmp(golden_cases[i].name, "kernel: ids"))
			g = &golden_cases[i];
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 2);
	if (!g || isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why))) {
		printf("not ok 1 - prepare: %s\n", g ? why : "no kernel");
		return 1;
	}
	for (int round = 0; round < 40 && !bad; round++) {
		static bool seen[4][3][7][10];
		struct isa_dispatch d;
		uint32_t count;

		memset(gmem, 0, sizeof(gmem));
		memset(seen, 0, sizeof(seen));
		memcpy(gmem, &out, 8);
		memset(&d, 0, sizeof(d));
		d.k = &k;
		d.grid[0] = 40;	/* 4 x 3 groups of 10 x 7: two waves each, the second partial */
		d.grid[1] = 21;
		d.grid[2] = 1;
		d.block[0] = 10;
		d.block[1] = 7;
		d.block[2] = 1;
		d.kernarg = MEM_BASE;
		d.packet = MEM_BASE + 0x40;
		d.mem = &mem;
		d.threads = 4;
		isa_dispatch_packet(gmem + 0x40, &d);
		if (isa_dispatch_run(&d)) {
			printf("# round %d: dispatch failed\n", round);
			bad = 1;
			break;
		}
		memcpy(&count, gmem + 0x100, 4);
		if (count != 12 * 70) {
			printf("# round %d: %u work-items ran, want %u\n", round, count, 12 * 70);
			bad = 1;
		}
		for (unsigned i = 0; i < count && !bad; i++) {
			uint32_t r[4], x, y;

			memcpy(r, gmem + 0x110 + 16 * i, 16);
			x = r[0] & 0x3ff;
			y = r[0] >> 10 & 0x3ff;
			if (x >= 10 || y >= 7 || r[1] >= 4 || r[2] >= 3 || seen[r[1]][r[2]][y][x]) {
				printf("# round %d: bad or repeated record %u\n", round, i);
				bad = 1;
			} else {
				seen[r[1]][r[2]][y][x] = true;
			}
		}
	}
	isa_kernel_release(&k);
	printf("%s 1 - 40 dispatches on 4 threads, every work-item once\n", bad ? "not ok" : "ok");
	return bad;
}
