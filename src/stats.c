/* SPDX-License-Identifier: MIT */
/* stats.c - not written yet. */
typedef int hipsvm_stats_placeholder;
