/* SPDX-License-Identifier: MIT */
/*
 * conf_visible.c - HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES and
 * ROCR_VISIBLE_DEVICES as ROCm 5.2 applies them (ROCr's list first, then
 * HIP's, or CUDA's when HIP's is unset or empty). Each case runs the runtime
 * in a child process whose environment it sets before the first call (the
 * runtime reads the environment once). The suite simulates 4 GPUs.
 */
#include "conf.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: set the three variables (NULL: unset), then report the
 * device count and each device's PCI bus (-1 on failure). */
static int visible(const char *rocr, const char *hip, const char *cuda, int *bus, int max)
{
	int fds[2], st, n = -1;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int out[9] = { -1 }, i, c = 0;

		rocr ? setenv("ROCR_VISIBLE_DEVICES", rocr, 1) : unsetenv("ROCR_VISIBLE_DEVICES");
		hip ? setenv("HIP_VISIBLE_DEVICES", hip, 1) : unsetenv("HIP_VISIBLE_DEVICES");
		cuda ? setenv("CUDA_VISIBLE_DEVICES", cuda, 1) : unsetenv("CUDA_VISIBLE_DEVICES");
		if (hipGetDeviceCount(&c) != hipSuccess)
			c = 0;
		out[0] = c;
		for (i = 0; i < c && i < 8; i++)
			if (hipDeviceGetAttribute(&out[i + 1], hipDeviceAttributePciBusId, i))
				out[i + 1] = -1;
		_exit(write(fds[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	close(fds[1]);
	{
		int in[9];

		if (read(fds[0], in, sizeof(in)) == sizeof(in)) {
			n = in[0];
			for (int i = 0; i < n && i < max; i++)
				bus[i] = in[i + 1];
		}
	}
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return n;
}

/* Buses of the 4 physical GPUs, in order, with nothing filtered. */
static void all_buses(int *bus)
{
	cr_assert_eq(visible(NULL, NULL, NULL, bus, 4), 4);
}

Test(conf_visible, HIP_VISIBLE_DEVICES_selects_and_orders)
{
	int all[4], b[4];

	all_buses(all);
	cr_assert_eq(visible(NULL, "0,1,2", NULL, b, 4), 3);
	cr_assert_eq(visible(NULL, "3,1", NULL, b, 4), 2);
	cr_expect_eq(b[0], all[3]);
	cr_expect_eq(b[1], all[1]);
}

/* The first invalid entry ends the list; a repeat is kept once. */
Test(conf_visible, HIP_VISIBLE_DEVICES_invalid_entry_ends_list)
{
	int all[4], b[4];

	all_buses(all);
	cr_expect_eq(visible(NULL, "2,7,0", NULL, b, 4), 1);
	cr_expect_eq(b[0], all[2]);
	cr_expect_eq(visible(NULL, "1,1,0", NULL, b, 4), 2);
	cr_expect_eq(visible(NULL, "x", NULL, b, 4), 0, "no device: hipErrorNoDevice");
	cr_expect_eq(visible(NULL, "-1", NULL, b, 4), 0);
	cr_expect_eq(visible(NULL, "", NULL, b, 4), 4, "empty filters nothing");
}

/* CUDA_VISIBLE_DEVICES applies when HIP_VISIBLE_DEVICES is unset or empty. */
Test(conf_visible, CUDA_VISIBLE_DEVICES_fallback)
{
	int b[4];

	cr_expect_eq(visible(NULL, NULL, "1", b, 4), 1);
	cr_expect_eq(visible(NULL, "", "1,2", b, 4), 2);
	cr_expect_eq(visible(NULL, "0,1,2", "1", b, 4), 3, "HIP's list wins");
}

/* ROCR_VISIBLE_DEVICES applies first; HIP's indices are into its result;
 * set but empty hides every GPU. */
Test(conf_visible, ROCR_VISIBLE_DEVICES_below_hip)
{
	int all[4], b[4];

	all_buses(all);
	cr_assert_eq(visible("3,2,1", "2", NULL, b, 4), 1);
	cr_expect_eq(b[0], all[1]);
	cr_expect_eq(visible("", NULL, NULL, b, 4), 0);
	cr_expect_eq(visible("1", "1", NULL, b, 4), 0, "HIP index past ROCr's list");
}

/* ROCR_VISIBLE_DEVICES: a GPU's uuid ("GPU-" and hipDeviceGetUuid's 16
 * characters) names it. */
Test(conf_visible, ROCR_VISIBLE_DEVICES_uuid)
{
	hipUUID u;
	char tok[32];
	int all[4], b[4];

	all_buses(all);
	ASSERT_OK(hipDeviceGetUuid(&u, 2));
	snprintf(tok, sizeof(tok), "GPU-%.16s", u.bytes);
	cr_assert_eq(visible(tok, NULL, NULL, b, 4), 1);
	cr_expect_eq(b[0], all[2]);
}
