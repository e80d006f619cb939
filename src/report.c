/* SPDX-License-Identifier: MIT */
/* report.c - not written yet. */
typedef int hipsvm_report_placeholder;
