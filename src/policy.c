/* SPDX-License-Identifier: MIT */
/* policy.c - not written yet. */
typedef int hipsvm_policy_placeholder;
