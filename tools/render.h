/* SPDX-License-Identifier: MIT */
/*
 * render.h - what render.c (text, and report_render) and render_data.c
 * (normalised JSON, CSV) share: the report's key lists, which are the schema
 * (docs/report.md), and two readers.
 */
#ifndef HIPSVM_TOOLS_RENDER_H
#define HIPSVM_TOOLS_RENDER_H

#include "json.h"

#include <stdio.h>

extern const char *const dev_keys[], *const drain_keys[], *const fault_keys[],
	*const ctx_keys[], *const routing_keys[], *const unmap_keys[], *const hipmem_keys[],
	*const error_keys[], *const launch_keys[];

/* r's array at key, or NULL; the number of items of a (0 for NULL). */
const struct json *render_arr(const struct json *r, const char *key);
size_t render_count(const struct json *a);
/* A device list as "0-3,5" ("-" when empty). */
void render_dev_list(const struct json *devs, char *buf, size_t cap);

void render_json(FILE *f, const struct json *r);
void render_csv(FILE *f, const struct json *r);
/* s as one CSV field: quoted when it holds a comma, a quote or a line break. */
void csv_str(FILE *f, const char *s);

#endif
