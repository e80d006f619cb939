/* SPDX-License-Identifier: MIT */
/*
 * hostcall.c - the host side of ROCm 5.2's hostcall, which device printf
 * goes through (the device side is the device libraries' ockl code, in the
 * kernel: __ockl_hostcall_internal and the printf message functions).
 *
 * A kernel whose metadata lists hidden_hostcall_buffer gets, at that
 * kernarg offset, the address of its device's hostcall buffer: a header
 * { headers, payloads, doorbell signal, free stack, ready stack, index mask }
 * over N packets, each a header { next, active lanes, service, control }
 * and a payload of 8 64-bit slots per lane. A wave pops a free packet with
 * a 64-bit compare-and-swap (tagged pointers: the index is ptr & mask, the
 * tag above it), fills it, pushes it onto the ready stack, adds 1 to the
 * doorbell signal and, because the signal has an event mailbox, writes the
 * event id there and sends MSG_INTERRUPT. The interpreter passes that
 * message here, on the wave's thread (hipsvm_hostcall_interrupt): the ready
 * stack is taken whole, each packet's active lanes are served, and its ready
 * flag is cleared, which the wave spins on with s_sleep; the wave then pushes
 * the packet back onto the free stack. ROCclr serves the buffer from a
 * listener thread woken by the signal; here the interrupt is synchronous,
 * which needs no thread and keeps the output in wave order.
 *
 * Service 2 (printf) is a message protocol: a lane's first hostcall has the
 * BEGIN flag in its descriptor (slot 0) and is answered with a message id,
 * later ones append up to 7 words each, the END one has the message
 * formatted: a control word (bit 0: stderr), the format string padded to 8
 * bytes, then one word per argument (integers, doubles, pointers) and each
 * %s string padded to 8 bytes. The answer is printf's return value. The
 * format string is cut at its conversions and each piece printed with the
 * host's printf family, as ROCclr does; %n is skipped.
 *
 * The buffer is host memory in the allocation map (mapped on every GPU), so
 * the kernel's accesses take the fault path like any other. Messages are
 * bounded (HC_MAX_WORDS); a message past it is cut. Never blocks: the
 * answer is written before the interrupt returns.
 */
#include "runtime/map.h"
#include "runtime/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec/hostcall.h"
#include "runtime/step.h"

#define ISA_HC_LANES 64			/* lanes of a wave, one payload row each */
#define HC_PACKETS 64			/* a power of two; packet 0 is never used */
#define HC_SLOTS 8
#define HC_PAYLOAD (ISA_HC_LANES * HC_SLOTS * 8)
#define HC_MAX_WORDS (1u << 20)		/* per message */
#define HC_EVENT_ID 0x48		/* the doorbell's event id ('H') */
#define SERVICE_PRINTF 2


struct hc_header {
	uint64_t next;
	uint64_t activemask;
	uint32_t service;
	uint32_t control;		/* bit 0: ready (set by the device) */
};

struct hc_buffer {
	uint64_t headers, payloads;	/* device addresses (= host addresses) */
	uint64_t doorbell;		/* an amd_signal_t's address */
	uint64_t free_stack, ready_stack, index_mask;
};

/* amd_signal_t: kind, value, event mailbox, event id (64 bytes) */
struct hc_signal {
	int64_t kind;
	int64_t value;
	uint64_t event_mailbox_ptr;
	uint32_t event_id, reserved1;
	uint64_t start_ts, end_ts, queue, reserved3;
};

/* The layout of one device's allocation. */
struct hc_area {
	struct hc_buffer buf;
	uint8_t pad0[64 - sizeof(struct hc_buffer)];
	struct hc_signal sig;
	uint64_t mailbox;
	uint8_t pad1[64 - 8];
	struct hc_header headers[HC_PACKETS];
};

#define HC_PAYLOAD_OFF (((sizeof(struct hc_area) + 4095) / 4096) * 4096)
#define HC_SIZE (HC_PAYLOAD_OFF + (size_t)HC_PACKETS * HC_PAYLOAD)

struct message {
	bool live;
	uint64_t *w;
	size_t n, cap;
};

static pthread_mutex_t hc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hc_area *areas[HIPSVM_MAX_GPUS];
static pid_t area_pid[HIPSVM_MAX_GPUS];
static struct message *msgs;
static size_t nmsgs;

void sim_hostcall_reset(void)
{
	pthread_mutex_init(&hc_lock, NULL);
	/* a fork child's buffers are the parent's allocations: made anew */
	memset(areas, 0, sizeof(areas));
	msgs = NULL;
	nmsgs = 0;
}
SIM_STEP(hostcall, .reset = sim_hostcall_reset);

uint64_t sim_hostcall_buffer(int dev)
{
	struct hipsvm_context *c;
	struct sim_alloc *a;
	struct hc_area *h;
	uint64_t r = 0;

	if (dev < 0 || dev >= HIPSVM_MAX_GPUS)
		return 0;
	pthread_mutex_lock(&hc_lock);
	if (areas[dev] && area_pid[dev] == getpid()) {
		r = (uint64_t)(uintptr_t)areas[dev];
		goto out;
	}
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_HOST_MALLOC, dev);
	if (!c || sim_alloc_new(HC_SIZE, HIPSVM_KIND_HOST, c->id, dev, 0, NULL, &a) != hipSuccess)
		goto out;
	sim_alloc_set_role((void *)a->base, SIM_ROLE_CODE, NULL);
	h = (struct hc_area *)a->base;
	h->buf.headers = (uint64_t)(uintptr_t)h->headers;
	h->buf.payloads = (uint64_t)a->base + HC_PAYLOAD_OFF;
	h->buf.doorbell = (uint64_t)(uintptr_t)&h->sig;
	h->buf.index_mask = HC_PACKETS - 1;
	/* the free stack: 1 -> 2 -> ... -> N-1; 0 ends it (ROCclr leaves
	 * packet 0 out so that no tagged pointer is 0) */
	for (unsigned i = 1; i < HC_PACKETS; i++)
		h->headers[i].next = i + 1 < HC_PACKETS ? i + 1 : 0;
	h->buf.free_stack = 1;
	h->sig.kind = 1;	/* AMD_SIGNAL_KIND_USER */
	h->sig.event_mailbox_ptr = (uint64_t)(uintptr_t)&h->mailbox;
	h->sig.event_id = HC_EVENT_ID;
	areas[dev] = h;
	area_pid[dev] = getpid();
	r = (uint64_t)(uintptr_t)h;
out:
	pthread_mutex_unlock(&hc_lock);
	return r;
}

/* ---- printf ---- */

static void out_piece(FILE *f, int *count, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void out_piece(FILE *f, int *count, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*count < 0)
		return;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	*count = n < 0 ? n : *count + n;
}

/* One conversion spec (a NUL-terminated copy, "%-08.3lld") with its
 * arguments from w[*i..n); stars take a word each first. */
static void convert(FILE *f, int *count, const char *spec, const uint64_t *w, size_t *i, size_t n)
{
	size_t len = strlen(spec);
	char conv = spec[len - 1];
	int star[2] = { 0, 0 }, nstar = 0;
	bool wide = false;

	for (const char *p = spec; *p; p++)
		if (*p == '*' && nstar < 2) {
			if (*i >= n)
				return;
			star[nstar++] = (int)w[(*i)++];
		}
	if (*i >= n && conv != 'n')
		return;
	for (const char *p = spec + 1; *p; p++)
		if (*p == 'l' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'q')
			wide = true;
	/* the spec comes from the kernel, and only with the argument its
	 * conversion names */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#define PIECE(arg)                                                                            \
	do {                                                                                  \
		if (nstar == 2)                                                               \
			out_piece(f, count, spec, star[0], star[1], arg);                     \
		else if (nstar == 1)                                                          \
			out_piece(f, count, spec, star[0], arg);                              \
		else                                                                          \
			out_piece(f, count, spec, arg);                                       \
	} while (0)
	switch (conv) {
	case 'd': case 'i':
		if (wide)
			PIECE((long long)w[*i]);
		else
			PIECE((int)w[*i]);
		(*i)++;
		break;
	case 'o': case 'u': case 'x': case 'X':
		if (wide)
			PIECE((unsigned long long)w[*i]);
		else
			PIECE((unsigned)w[*i]);
		(*i)++;
		break;
	case 'c':
		PIECE((int)w[*i]);
		(*i)++;
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
		double d;

		memcpy(&d, &w[*i], 8);
		PIECE(d);
		(*i)++;
		break;
	}
	case 'p':
		PIECE((void *)(uintptr_t)w[*i]);
		(*i)++;
		break;
	case 's': {
		/* the string's words, NUL-terminated within the message */
		const char *s = (const char *)&w[*i];
		size_t max = (n - *i) * 8, l = strnlen(s, max);

		if (l == max) {		/* unterminated: not printed */
			*i = n;
			break;
		}
		PIECE(s);
		*i += (l + 1 + 7) / 8;
		break;
	}
	case 'n':
		(*i)++;
		break;
	}
#undef PIECE
#pragma GCC diagnostic pop
}

static int format_message(const uint64_t *w, size_t n)
{
	static const char convs[] = "diouxXfFeEgGaAcspn";
	FILE *f;
	const char *fmt, *p;
	size_t i, flen;
	int count = 0;

	if (n < 1 || (w[0] & ~1ull))
		return -1;	/* ROCclr: an unknown control word */
	f = w[0] & 1 ? stderr : stdout;
	if (n < 2)
		return 0;
	fmt = (const char *)&w[1];
	flen = strnlen(fmt, (n - 1) * 8);
	if (flen == (n - 1) * 8)
		return -1;
	i = 1 + (flen + 1 + 7) / 8;
	for (p = fmt; *p;) {
		const char *pct = strchr(p, '%'), *end;
		char spec[64];

		if (!pct) {
			out_piece(f, &count, "%s", p);
			break;
		}
		out_piece(f, &count, "%.*s", (int)(pct - p), p);
		if (pct[1] == '%') {
			out_piece(f, &count, "%%");
			p = pct + 2;
			continue;
		}
		if (i >= n)
			break;	/* ROCclr: out of arguments ends the output */
		end = strpbrk(pct + 1, convs);
		if (!end)
			break;
		if ((size_t)(end - pct) + 2 > sizeof(spec))
			break;
		memcpy(spec, pct, (size_t)(end - pct) + 1);
		spec[end - pct + 1] = 0;
		convert(f, &count, spec, w, &i, n);
		p = end + 1;
	}
	return count;
}

/* hc_lock held. A lane's printf hostcall; slots[0] gets the answer. */
static void serve_printf(uint64_t *slots)
{
	uint64_t desc = slots[0], id;
	unsigned len = (unsigned)(desc >> 5) & 7;
	struct message *m = NULL;

	if (desc & 1) {		/* BEGIN: a free message id */
		for (id = 0; id < nmsgs && msgs[id].live; id++)
			;
		if (id == nmsgs) {
			struct message *g = realloc(msgs, (nmsgs + 1) * sizeof(*g));

			if (!g)
				return;
			msgs = g;
			memset(&msgs[nmsgs++], 0, sizeof(*msgs));
		}
		m = &msgs[id];
		m->live = true;
		m->n = 0;
		desc = (desc & ~1ull & 0xff) | (id << 8);
		slots[0] = desc;
	} else {
		id = desc >> 8;
		if (id < nmsgs && msgs[id].live)
			m = &msgs[id];
	}
	if (!m)
		return;		/* ROCclr: no such message; the device gets its descriptor back */
	if (len > 7)
		len = 7;
	if (m->n + len > m->cap && m->n + len <= HC_MAX_WORDS) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *g;

		while (cap < m->n + len)
			cap *= 2;
		g = realloc(m->w, cap * sizeof(*g));
		if (g) {
			m->w = g;
			m->cap = cap;
		}
	}
	if (m->n + len <= m->cap) {
		memcpy(m->w + m->n, slots + 1, len * 8);
		m->n += len;
	}
	if (desc & 2) {		/* END */
		slots[0] = (uint64_t)(int64_t)format_message(m->w, m->n);
		m->live = false;
	}
}

void sim_hostcall_interrupt(void *arg, uint32_t m0)
{
	struct hc_area *h = arg;
	uint64_t ptr;

	if (!h || (m0 & 0xff) != HC_EVENT_ID)
		return;
	pthread_mutex_lock(&hc_lock);
	ptr = __atomic_exchange_n(&h->buf.ready_stack, 0, __ATOMIC_ACQUIRE);
	while (ptr) {
		struct hc_header *hd = &h->headers[ptr & (HC_PACKETS - 1)];
		uint64_t *pay = (uint64_t *)((uint8_t *)h + HC_PAYLOAD_OFF +
					     (ptr & (HC_PACKETS - 1)) * HC_PAYLOAD);
		uint64_t next = __atomic_load_n(&hd->next, __ATOMIC_RELAXED);
		uint64_t lanes = hd->activemask;

		for (unsigned l = 0; l < ISA_HC_LANES; l++)
			if (lanes >> l & 1 && hd->service == SERVICE_PRINTF)
				serve_printf(pay + l * HC_SLOTS);
		__atomic_store_n(&hd->control, hd->control & ~1u, __ATOMIC_RELEASE);
		ptr = next;
	}
	pthread_mutex_unlock(&hc_lock);
}
