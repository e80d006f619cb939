/* SPDX-License-Identifier: MIT */
/*
 * test_scope.c - the thread's scopes (src/shim/shim.h: HIPSVM_GUARDED,
 * HIPSVM_IN_HIP): every way out of a block gives the depth back, scopes
 * nest, an early leave is not undone twice, and a signal handler that
 * enters and leaves one in the middle of another leaves the depth as it
 * found it.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "shim/shim.h"

static int early_return(int n)
{
	HIPSVM_GUARDED();
	if (n > 0)
		return hipsvm_tls.guard;
	{
		HIPSVM_IN_HIP();
		return hipsvm_tls.guard * 10 + hipsvm_tls.in_hip;
	}
}

static int recurse(int n)
{
	HIPSVM_GUARDED();
	return n ? recurse(n - 1) : hipsvm_tls.guard;
}

Test(scope, every_way_out_gives_the_depth_back)
{
	cr_assert_eq(hipsvm_tls.guard, 0);
	cr_assert_eq(early_return(1), 1);
	cr_assert_eq(hipsvm_tls.guard, 0);
	cr_assert_eq(early_return(0), 11);
	cr_assert_eq(hipsvm_tls.guard, 0);
	cr_assert_eq(hipsvm_tls.in_hip, 0);
	for (int i = 0; i < 3; i++) {
		HIPSVM_IN_HIP();
		cr_assert_eq(hipsvm_tls.in_hip, 1);
		if (i == 1)
			continue;
	}
	cr_assert_eq(hipsvm_tls.in_hip, 0);
}

Test(scope, scopes_nest)
{
	cr_assert_eq(recurse(9), 10);
	cr_assert_eq(hipsvm_tls.guard, 0);
	{
		HIPSVM_GUARDED();
		{
			HIPSVM_GUARDED();
			cr_assert_eq(hipsvm_tls.guard, 2);
		}
		cr_assert_eq(hipsvm_tls.guard, 1);
	}
	cr_assert_eq(hipsvm_tls.guard, 0);
}

Test(scope, an_early_leave_counts_once)
{
	{
		struct hipsvm_scope sc __attribute__((cleanup(hipsvm_scope_leave))) =
			hipsvm_scope_enter(&hipsvm_tls.guard);

		cr_assert_eq(hipsvm_tls.guard, 1);
		hipsvm_scope_leave(&sc);
		cr_assert_eq(hipsvm_tls.guard, 0);
	}
	cr_assert_eq(hipsvm_tls.guard, 0);
}

static volatile int seen_in_handler;

static void handler(int sig)
{
	(void)sig;
	HIPSVM_GUARDED();
	seen_in_handler = hipsvm_tls.guard;
}

Test(scope, a_signal_handler_leaves_the_depth_as_it_found_it)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	{
		HIPSVM_GUARDED();
		raise(SIGUSR1);
		cr_assert_eq(seen_in_handler, 2);
		cr_assert_eq(hipsvm_tls.guard, 1);
	}
	raise(SIGUSR1);
	cr_assert_eq(seen_in_handler, 1);
	cr_assert_eq(hipsvm_tls.guard, 0);
}
