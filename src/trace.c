/* SPDX-License-Identifier: MIT */
/* trace.c - not written yet. */
typedef int hipsvm_trace_placeholder;
