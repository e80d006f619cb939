/* SPDX-License-Identifier: MIT */
/*
 * proto.c - parser and formatter of the hook protocol (proto.h); compiled in
 * user space and in kernel/hipsvm.ko. Hand-written number formatting and
 * parsing: no snprintf/strtoull, which are not async-signal-safe in user space
 * and differ in the kernel.
 */
#include "shared/proto.h"
#include "shared/fmt.h"

#define span hipsvm_span

#define OP(op, name) { op, name, sizeof(name) - 1 }
static const struct {
	enum hipsvm_op op;
	const char *name;
	size_t len;	/* a request's word is compared only with names of its length */
} op_names[] = {
	OP(HIPSVM_OP_VERSION, "version"), OP(HIPSVM_OP_GPUS, "gpus"),
	OP(HIPSVM_OP_SET, "set"),	  OP(HIPSVM_OP_DRAIN, "drain"),
	OP(HIPSVM_OP_CLEAR, "clear"),	  OP(HIPSVM_OP_STATS, "stats"),
	OP(HIPSVM_OP_LOG, "log"),	  OP(HIPSVM_OP_INJECT, "inject"),
	OP(HIPSVM_OP_RING, "ring"),	  OP(HIPSVM_OP_DRAINCLEAR, "drainclear"),
};
#undef OP

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EINVAL, "EINVAL" }, { ENODEV, "ENODEV" }, { ETIME, "ETIME" },
	{ ENOMEM, "ENOMEM" }, { ENOSPC, "ENOSPC" }, { EPERM, "EPERM" },
	{ ENOENT, "ENOENT" }, { EBUSY, "EBUSY" },   { EAGAIN, "EAGAIN" },
	{ E2BIG, "E2BIG" },   { EIO, "EIO" },	    { EINTR, "EINTR" },
	{ ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" }, { ETIMEDOUT, "ETIMEDOUT" },
	/* The rest of Linux's errnos, by number: a message names the real one
	 * (ENOSPC, EMFILE, ENAMETOOLONG...), never a stand-in. */
	{ ESRCH, "ESRCH" }, { ENXIO, "ENXIO" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
	{ ECHILD, "ECHILD" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
	{ ENOTBLK, "ENOTBLK" }, { EEXIST, "EEXIST" }, { EXDEV, "EXDEV" },
	{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { ENFILE, "ENFILE" },
	{ EMFILE, "EMFILE" }, { ENOTTY, "ENOTTY" }, { ETXTBSY, "ETXTBSY" },
	{ EFBIG, "EFBIG" }, { ESPIPE, "ESPIPE" }, { EROFS, "EROFS" }, { EMLINK, "EMLINK" },
	{ EPIPE, "EPIPE" }, { EDOM, "EDOM" }, { EDEADLK, "EDEADLK" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENOLCK, "ENOLCK" }, { ENOTEMPTY, "ENOTEMPTY" },
	{ ELOOP, "ELOOP" }, { ENOMSG, "ENOMSG" }, { EIDRM, "EIDRM" }, { ECHRNG, "ECHRNG" },
	{ EL2NSYNC, "EL2NSYNC" }, { EL3HLT, "EL3HLT" }, { EL3RST, "EL3RST" },
	{ ELNRNG, "ELNRNG" }, { EUNATCH, "EUNATCH" }, { ENOCSI, "ENOCSI" },
	{ EL2HLT, "EL2HLT" }, { EBADE, "EBADE" }, { EBADR, "EBADR" }, { EXFULL, "EXFULL" },
	{ ENOANO, "ENOANO" }, { EBADRQC, "EBADRQC" }, { EBADSLT, "EBADSLT" },
	{ EBFONT, "EBFONT" }, { ENOSTR, "ENOSTR" }, { ENODATA, "ENODATA" },
	{ ENOSR, "ENOSR" }, { ENONET, "ENONET" }, { ENOPKG, "ENOPKG" },
	{ EREMOTE, "EREMOTE" }, { ENOLINK, "ENOLINK" }, { EADV, "EADV" },
	{ ESRMNT, "ESRMNT" }, { ECOMM, "ECOMM" }, { EPROTO, "EPROTO" },
	{ EMULTIHOP, "EMULTIHOP" }, { EDOTDOT, "EDOTDOT" }, { EBADMSG, "EBADMSG" },
	{ EOVERFLOW, "EOVERFLOW" }, { ENOTUNIQ, "ENOTUNIQ" }, { EBADFD, "EBADFD" },
	{ EREMCHG, "EREMCHG" }, { ELIBACC, "ELIBACC" }, { ELIBBAD, "ELIBBAD" },
	{ ELIBSCN, "ELIBSCN" }, { ELIBMAX, "ELIBMAX" }, { ELIBEXEC, "ELIBEXEC" },
	{ EILSEQ, "EILSEQ" }, { ERESTART, "ERESTART" }, { ESTRPIPE, "ESTRPIPE" },
	{ EUSERS, "EUSERS" }, { ENOTSOCK, "ENOTSOCK" }, { EDESTADDRREQ, "EDESTADDRREQ" },
	{ EMSGSIZE, "EMSGSIZE" }, { EPROTOTYPE, "EPROTOTYPE" },
	{ ENOPROTOOPT, "ENOPROTOOPT" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ EPFNOSUPPORT, "EPFNOSUPPORT" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
	{ EADDRINUSE, "EADDRINUSE" }, { EADDRNOTAVAIL, "EADDRNOTAVAIL" },
	{ ENETDOWN, "ENETDOWN" }, { ENETUNREACH, "ENETUNREACH" },
	{ ENETRESET, "ENETRESET" }, { ECONNABORTED, "ECONNABORTED" },
	{ ECONNRESET, "ECONNRESET" }, { ENOBUFS, "ENOBUFS" }, { EISCONN, "EISCONN" },
	{ ENOTCONN, "ENOTCONN" }, { ESHUTDOWN, "ESHUTDOWN" },
	{ ETOOMANYREFS, "ETOOMANYREFS" }, { ECONNREFUSED, "ECONNREFUSED" },
	{ EHOSTDOWN, "EHOSTDOWN" }, { EHOSTUNREACH, "EHOSTUNREACH" },
	{ EALREADY, "EALREADY" }, { EINPROGRESS, "EINPROGRESS" }, { ESTALE, "ESTALE" },
	{ EUCLEAN, "EUCLEAN" }, { ENOTNAM, "ENOTNAM" }, { ENAVAIL, "ENAVAIL" },
	{ EISNAM, "EISNAM" }, { EREMOTEIO, "EREMOTEIO" }, { EDQUOT, "EDQUOT" },
	{ ENOMEDIUM, "ENOMEDIUM" }, { EMEDIUMTYPE, "EMEDIUMTYPE" },
	{ ECANCELED, "ECANCELED" }, { ENOKEY, "ENOKEY" }, { EKEYEXPIRED, "EKEYEXPIRED" },
	{ EKEYREVOKED, "EKEYREVOKED" }, { EKEYREJECTED, "EKEYREJECTED" },
	{ EOWNERDEAD, "EOWNERDEAD" }, { ENOTRECOVERABLE, "ENOTRECOVERABLE" },
	{ ERFKILL, "ERFKILL" },
#ifdef EHWPOISON
	{ EHWPOISON, "EHWPOISON" },
#endif
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static bool span_is(struct span s, const char *word)
{
	size_t i;

	for (i = 0; i < s.n; i++)
		if (word[i] != s.p[i] || word[i] == '\0')
			return false;
	return word[s.n] == '\0';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

int hipsvm_proto_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len == 0)
		return -EINVAL;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++) {
			char c = s[i];
			unsigned d;

			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				d = (unsigned)(c - 'A' + 10);
			else
				return -EINVAL;
			if (len > 18 && v >> 60)
				return -EINVAL;	/* overflow: only past 16 digits */
			v = v << 4 | d;
		}
		*out = v;
		return 0;
	}
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c < '0' || c > '9')
			return -EINVAL;
		d = (unsigned)(c - '0');
		/* v * 10 + d > UINT64_MAX, without a division per digit; 19
		 * digits never pass it */
		if (len > 19 &&
		    (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10)))
			return -EINVAL;	/* overflow */
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int span_u64(struct span s, uint64_t *out)
{
	return hipsvm_proto_u64(s.p, s.n, out);
}

static int gpu_index(const char *p, size_t n, unsigned *out)
{
	uint64_t v;

	if (hipsvm_proto_u64(p, n, &v) || v >= HIPSVM_MAX_GPUS)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* all | item[,item...]; item := N | N-M | N=TS (only when values allowed) */
static int parse_gpus(struct span s, struct hipsvm_cmd *c, bool values)
{
	size_t i = 0;

	if (s.n == 3 && span_is(s, "all")) {
		c->all = true;
		c->gpus = ~UINT64_C(0);
		return 0;
	}
	while (i < s.n) {
		size_t start = i, dash = 0, eq = 0;
		unsigned a, b;

		/* The usual item, "N" or "NN" (a GPU of 64) and its ',' or the
		 * end, without a scan and a call per item; anything else
		 * (ranges, N=TS, 0x, three digits) takes the general path
		 * from the item's start. */
		if ((unsigned)(s.p[i] - '0') < 10) {
			size_t k = i + 1;

			a = (unsigned)(s.p[i] - '0');
			if (k < s.n && (unsigned)(s.p[k] - '0') < 10)
				a = a * 10 + (unsigned)(s.p[k++] - '0');
			if (a < HIPSVM_MAX_GPUS && (k == s.n || s.p[k] == ',')) {
				c->gpus |= UINT64_C(1) << a;
				if (k == s.n)
					break;
				i = k + 1;	/* the ',' */
				if (i == s.n)
					return -EINVAL;
				continue;
			}
		}
		while (i < s.n && s.p[i] != ',') {
			if (s.p[i] == '-' && !dash && !eq)
				dash = i;
			else if (s.p[i] == '=' && !eq && !dash)
				eq = i;
			i++;
		}
		if (i == start)
			return -EINVAL;		/* empty item: ",," or trailing ',' */
		if (dash) {
			if (gpu_index(s.p + start, dash - start, &a) ||
			    gpu_index(s.p + dash + 1, i - dash - 1, &b) || b < a)
				return -EINVAL;
			for (; a <= b; a++)
				c->gpus |= UINT64_C(1) << a;
		} else if (eq) {
			uint64_t ts;

			if (!values || gpu_index(s.p + start, eq - start, &a) ||
			    hipsvm_proto_u64(s.p + eq + 1, i - eq - 1, &ts) || ts > ((UINT64_C(1) << 48) - 1))
				return -EINVAL;
			c->gpus |= UINT64_C(1) << a;
			c->has_value |= UINT64_C(1) << a;
			c->value[a] = ts;
		} else {
			if (gpu_index(s.p + start, i - start, &a))
				return -EINVAL;
			c->gpus |= UINT64_C(1) << a;
		}
		if (i < s.n) {
			i++;			/* the ',' */
			if (i == s.n)
				return -EINVAL;
		}
	}
	return c->gpus ? 0 : -EINVAL;
}

static int parse_args(struct span *t, int n, struct hipsvm_cmd *c)
{
	uint64_t v;

	switch (c->op) {
	case HIPSVM_OP_VERSION:
	case HIPSVM_OP_GPUS:
	case HIPSVM_OP_LOG:
		return n == 1 ? 0 : -EINVAL;
	case HIPSVM_OP_STATS:
		/* Optional: the GPUs whose own counters the reply lists (a
		 * reply holds HIPSVM_PROTO_MAX_TOKENS; a client with many GPUs
		 * asks for them a few at a time). */
		if (n != 1 && n != 2)
			return -EINVAL;
		return n == 2 ? parse_gpus(t[1], c, false) : 0;
	case HIPSVM_OP_SET:
		if (n != 2 && n != 4)
			return -EINVAL;
		if (parse_gpus(t[1], c, false))
			return -EINVAL;
		if (n == 4) {
			if (span_u64(t[2], &c->addr) || span_u64(t[3], &c->len) || c->len == 0 ||
			    c->addr + c->len < c->addr)
				return -EINVAL;
			c->has_range = true;
		}
		return 0;
	case HIPSVM_OP_DRAIN:
	case HIPSVM_OP_DRAINCLEAR:
		if (n != 2 && n != 3)
			return -EINVAL;
		if (parse_gpus(t[1], c, c->op == HIPSVM_OP_DRAINCLEAR))
			return -EINVAL;
		if (n == 3) {
			if (span_u64(t[2], &v) || v > HIPSVM_DRAIN_MAX_MS)
				return -EINVAL;
			c->timeout_ms = (uint32_t)v;
			c->has_timeout = true;
		}
		return 0;
	case HIPSVM_OP_CLEAR:
		if (n != 2)
			return -EINVAL;
		return parse_gpus(t[1], c, true);
	case HIPSVM_OP_INJECT:
		if (n != 4 && n != 5)
			return -EINVAL;
		if (gpu_index(t[1].p, t[1].n, &c->gpu))
			return -EINVAL;
		if (span_is(t[2], "now")) {
			c->ts_now = true;
		} else {
			if (span_u64(t[2], &c->ts) || c->ts > ((UINT64_C(1) << 48) - 1))
				return -EINVAL;
		}
		if (span_u64(t[3], &c->addr) || c->addr >> 48)
			return -EINVAL;
		if (n == 5) {
			if (span_is(t[4], "w"))
				c->write = true;
			else if (!span_is(t[4], "r"))
				return -EINVAL;
		}
		return 0;
	case HIPSVM_OP_RING:
		if (n != 4 || gpu_index(t[1].p, t[1].n, &c->gpu))
			return -EINVAL;
		if (span_is(t[2], "ih0"))
			c->ring = HIPSVM_RING_IH0;
		else if (span_is(t[2], "ih1"))
			c->ring = HIPSVM_RING_IH1;
		else if (span_is(t[2], "soft"))
			c->ring = HIPSVM_RING_SOFT;
		else
			return -EINVAL;
		if (span_is(t[3], "on"))
			c->on = true;
		else if (!span_is(t[3], "off"))
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

int hipsvm_proto_parse(const char *buf, size_t len, struct hipsvm_cmd *c)
{
	struct span t[6];
	size_t i;
	unsigned k, n = 0;

	if (!buf || len == 0 || len > HIPSVM_PROTO_MAX_REQ)
		return -EINVAL;
	/* One line: an optional "\n" or "\r\n" at the very end, nothing after. */
	if (buf[len - 1] == '\n') {
		len--;
		if (len && buf[len - 1] == '\r')
			len--;
	}
	/* One pass: the characters checked and the words split; a word's
	 * letters (printable, not a space) in one compare each. */
	for (i = 0; i < len;) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == ' ' || ch == '\t') {
			i++;
			continue;
		}
		if (ch < 0x20 || ch > 0x7e)
			return -EINVAL;	/* controls, NUL, non-ASCII */
		if (n == ARRAY_LEN(t))
			return -EINVAL;
		t[n].p = buf + i;
		for (i++; i < len && (unsigned char)(buf[i] - 0x21) < 0x5e; i++)
			;
		t[n].n = (size_t)(buf + i - t[n].p);
		n++;
	}
	if (n == 0)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	for (k = 0; k < ARRAY_LEN(op_names); k++) {
		if (op_names[k].len == t[0].n && span_is(t[0], op_names[k].name)) {
			c->op = op_names[k].op;
			break;
		}
	}
	if (c->op == HIPSVM_OP_NONE)
		return -EINVAL;
	return parse_args(t, (int)n, c);
}

const char *hipsvm_op_name(enum hipsvm_op op)
{
	unsigned k = (unsigned)op - 1;

	/* the table is in the enum's order */
	if (k < ARRAY_LEN(op_names) && op_names[k].op == op)
		return op_names[k].name;
	for (k = 0; k < ARRAY_LEN(op_names); k++)
		if (op_names[k].op == op)
			return op_names[k].name;
	return "none";
}

const char *hipsvm_errno_name(int err)
{
	unsigned k;

	if (err < 0)
		err = -err;
	for (k = 0; k < ARRAY_LEN(errno_names); k++)
		if (errno_names[k].err == err)
			return errno_names[k].name;
	return "EUNKNOWN";	/* not a Linux errno: never passed for EIO */
}

int hipsvm_errno_from_name(const char *name, size_t len)
{
	struct span s = { name, len };
	unsigned k;

	for (k = 0; k < ARRAY_LEN(errno_names); k++)
		if (span_is(s, errno_names[k].name))
			return errno_names[k].err;
	return 0;
}

void hipsvm_out_init(struct hipsvm_out *o, char *buf, size_t cap)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->overflow = cap == 0;
	if (cap)
		buf[0] = '\0';
}

void hipsvm_out_mem(struct hipsvm_out *o, const char *s, size_t n)
{
	/* Keep one byte for the NUL and one for the final "\n". */
	if (o->overflow || o->len + n + 2 > o->cap) {
		o->overflow = true;
		return;
	}
	if (n <= 16) {
		/* the usual piece: a word or a number, cheaper than a call */
		char *d = o->buf + o->len;
		size_t i;

		for (i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		memcpy(o->buf + o->len, s, n);
	}
	o->len += n;
	o->buf[o->len] = '\0';
}

/* One pass, no strlen: the strings are short words. */
void hipsvm_out_str(struct hipsvm_out *o, const char *s)
{
	size_t len = o->len;

	if (o->overflow)
		return;
	for (; *s; s++) {
		/* as hipsvm_out_mem: room for this byte, the "\n" and the NUL */
		if (len + 3 > o->cap) {
			o->overflow = true;
			return;
		}
		o->buf[len++] = *s;
	}
	o->len = len;
	o->buf[len] = '\0';
}

void hipsvm_out_u64(struct hipsvm_out *o, uint64_t v)
{
	char tmp[HIPSVM_FMT_U64_MAX];
	const char *p = hipsvm_fmt_u64(tmp, v);

	hipsvm_out_mem(o, p, (size_t)(tmp + HIPSVM_FMT_U64_MAX - 1 - p));
}

void hipsvm_out_hex(struct hipsvm_out *o, uint64_t v)
{
	char tmp[18];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	hipsvm_out_mem(o, tmp + i, sizeof(tmp) - (size_t)i);
}

void hipsvm_out_kv(struct hipsvm_out *o, const char *key, uint64_t v)
{
	hipsvm_out_lit(o, " ");
	hipsvm_out_str(o, key);
	hipsvm_out_lit(o, "=");
	hipsvm_out_u64(o, v);
}

void hipsvm_out_gpu_key(struct hipsvm_out *o, unsigned gpu)
{
	/* " N=" in one piece: GPU indices have two digits at most */
	char tmp[5];
	size_t n = 0;

	tmp[n++] = ' ';
	if (gpu >= 10)
		tmp[n++] = (char)('0' + gpu / 10 % 10);
	tmp[n++] = (char)('0' + gpu % 10);
	tmp[n++] = '=';
	if (gpu >= 100) {
		hipsvm_out_lit(o, " ");
		hipsvm_out_u64(o, gpu);
		hipsvm_out_lit(o, "=");
		return;
	}
	hipsvm_out_mem(o, tmp, n);
}

void hipsvm_out_gpu_word(struct hipsvm_out *o, unsigned gpu, const char *word)
{
	/* " N=word" with one bound check: the words are a few letters */
	enum { KEY = 4, WORD = 12 };
	char *d, *stop;

	if (gpu >= 100 || o->overflow || o->len + KEY + WORD + 2 > o->cap) {
		hipsvm_out_gpu_key(o, gpu);
		hipsvm_out_str(o, word);
		return;
	}
	d = o->buf + o->len;
	*d++ = ' ';
	if (gpu >= 10)
		*d++ = (char)('0' + gpu / 10);
	*d++ = (char)('0' + gpu % 10);
	*d++ = '=';
	for (stop = d + WORD; *word && d < stop; word++)
		*d++ = *word;
	o->len = (size_t)(d - o->buf);
	o->buf[o->len] = '\0';
	if (*word)
		hipsvm_out_str(o, word);	/* a longer word: the checked path */
}

void hipsvm_out_gpu_word8(struct hipsvm_out *o, unsigned gpu, const char word[8], size_t n)
{
	char *d;

	if (gpu >= 100 || n > 8 || o->overflow || o->len + 4 + 8 + 2 > o->cap) {
		hipsvm_out_gpu_key(o, gpu);
		hipsvm_out_mem(o, word, n);
		return;
	}
	d = o->buf + o->len;
	*d++ = ' ';
	if (gpu >= 10)
		*d++ = (char)('0' + gpu / 10);
	*d++ = (char)('0' + gpu % 10);
	*d++ = '=';
	memcpy(d, word, 8);	/* one store; what is past n is overwritten or past the end */
	o->len = (size_t)(d + n - o->buf);
	o->buf[o->len] = '\0';
}

int hipsvm_out_end(struct hipsvm_out *o)
{
	if (o->overflow)
		return -ENOSPC;
	o->buf[o->len++] = '\n';
	o->buf[o->len] = '\0';
	return (int)o->len;
}

int hipsvm_proto_error(char *buf, size_t cap, int err, const char *detail)
{
	struct hipsvm_out o;

	hipsvm_out_init(&o, buf, cap);
	hipsvm_out_lit(&o, "err ");
	hipsvm_out_str(&o, hipsvm_errno_name(err));
	if (detail && *detail) {
		hipsvm_out_lit(&o, " ");
		hipsvm_out_str(&o, detail);
	}
	return hipsvm_out_end(&o);
}

static void out_gpus(struct hipsvm_out *o, const struct hipsvm_cmd *c, bool values)
{
	bool first = true;
	unsigned g;

	uint64_t left = c->gpus;

	hipsvm_out_lit(o, " ");
	if (c->all) {
		hipsvm_out_lit(o, "all");
		return;
	}
	/* the set bits only: a GPU mask names a few GPUs of 64. Without
	 * values (none asked, or none given) the whole list is bounded first
	 * (",NN" for each of 64 GPUs, and room for the "\n" and NUL as
	 * hipsvm_out_mem keeps; no popcount, which the kernel's build would
	 * make a libgcc call) and written digit by digit. */
	if (left && !(values && (c->has_value & left)) && !o->overflow &&
	    o->len + 3 * HIPSVM_MAX_GPUS + 2 <= o->cap) {
		char *d = o->buf + o->len;

		while (left) {
			g = (unsigned)__builtin_ctzll(left);
			left &= left - 1;
			if (g < 10) {
				*d++ = (char)('0' + g);
			} else {
				*d++ = (char)('0' + g / 10);
				*d++ = (char)('0' + g % 10);
			}
			*d++ = ',';
		}
		o->len = (size_t)(d - 1 - o->buf);	/* no ',' after the last */
		o->buf[o->len] = '\0';
		return;
	}
	while (left) {
		g = (unsigned)__builtin_ctzll(left);
		left &= left - 1;
		if (!first)
			hipsvm_out_lit(o, ",");
		first = false;
		hipsvm_out_u64(o, g);
		if (values && (c->has_value >> g & 1)) {
			hipsvm_out_lit(o, "=");
			hipsvm_out_hex(o, c->value[g]);
		}
	}
}

int hipsvm_proto_format(const struct hipsvm_cmd *c, char *buf, size_t cap)
{
	static const char *const rings[] = { "ih0", "ih1", "soft" };
	struct hipsvm_out o;
	int len;

	hipsvm_out_init(&o, buf, cap < HIPSVM_PROTO_MAX_REQ + 1 ? cap : HIPSVM_PROTO_MAX_REQ + 1);
	hipsvm_out_str(&o, hipsvm_op_name(c->op));
	switch (c->op) {
	case HIPSVM_OP_SET:
		out_gpus(&o, c, false);
		if (c->has_range) {
			hipsvm_out_lit(&o, " ");
			hipsvm_out_hex(&o, c->addr);
			hipsvm_out_lit(&o, " ");
			hipsvm_out_u64(&o, c->len);
		}
		break;
	case HIPSVM_OP_DRAIN:
	case HIPSVM_OP_DRAINCLEAR:
		out_gpus(&o, c, c->op == HIPSVM_OP_DRAINCLEAR);
		if (c->has_timeout) {
			hipsvm_out_lit(&o, " ");
			hipsvm_out_u64(&o, c->timeout_ms);
		}
		break;
	case HIPSVM_OP_CLEAR:
		out_gpus(&o, c, true);
		break;
	case HIPSVM_OP_STATS:
		if (c->gpus || c->all)
			out_gpus(&o, c, false);
		break;
	case HIPSVM_OP_INJECT:
		hipsvm_out_lit(&o, " ");
		hipsvm_out_u64(&o, c->gpu);
		hipsvm_out_lit(&o, " ");
		if (c->ts_now)
			hipsvm_out_lit(&o, "now");
		else
			hipsvm_out_hex(&o, c->ts);
		hipsvm_out_lit(&o, " ");
		hipsvm_out_hex(&o, c->addr);
		hipsvm_out_str(&o, c->write ? " w" : " r");
		break;
	case HIPSVM_OP_RING:
		hipsvm_out_lit(&o, " ");
		hipsvm_out_u64(&o, c->gpu);
		hipsvm_out_lit(&o, " ");
		hipsvm_out_str(&o, c->ring <= HIPSVM_RING_SOFT ? rings[c->ring] : "?");
		hipsvm_out_str(&o, c->on ? " on" : " off");
		break;
	case HIPSVM_OP_NONE:
		return -EINVAL;
	default:
		break;
	}
	len = hipsvm_out_end(&o);
	/* What we write must be what a server accepts: the request bound
	 * includes the newline. */
	if (len > HIPSVM_PROTO_MAX_REQ)
		return -ENOSPC;
	return len;
}

static void copy_span(char *dst, size_t cap, struct span s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;

	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

/* The next space-separated word of [it->i, it->end); empty at the end. */
static struct span next_word(struct hipsvm_reply_it *it)
{
	struct span w;

	while (it->i < it->end && is_space(it->buf[it->i]))
		it->i++;
	w.p = it->buf + it->i;
	while (it->i < it->end && !is_space(it->buf[it->i]))
		it->i++;
	w.n = (size_t)(it->buf + it->i - w.p);
	return w;
}

int hipsvm_reply_open(const char *buf, size_t len, struct hipsvm_reply_it *it,
		      struct hipsvm_span *word, int *status)
{
	const char *nl, *nul;
	struct span w;
	size_t end;

	if (!buf || len == 0 || len > HIPSVM_PROTO_MAX_REPLY)
		return -EINVAL;
	nl = memchr(buf, '\n', len);
	end = nl ? (size_t)(nl - buf) : len;
	nul = memchr(buf, '\0', end);
	if (nul)
		end = (size_t)(nul - buf);
	it->buf = buf;
	it->i = 0;
	it->end = end;
	w = next_word(it);
	if (w.n == 3 && span_is(w, "err")) {
		int e;

		w = next_word(it);
		e = hipsvm_errno_from_name(w.p, w.n);
		*status = -(e ? e : EIO);
		while (it->i < end && is_space(buf[it->i]))
			it->i++;
		word->p = buf + it->i;
		word->n = end - it->i;
		it->i = end;
		return 1;
	}
	if (w.n != 2 || w.p[0] != 'o' || w.p[1] != 'k')
		return -EINVAL;
	w = next_word(it);
	if (w.n == 0)
		return -EINVAL;
	*status = 0;
	*word = w;
	return 0;
}

bool hipsvm_reply_next(struct hipsvm_reply_it *it, struct hipsvm_span *key, struct hipsvm_span *val)
{
	const char *b = it->buf;
	size_t i = it->i, end = it->end, start, eq = 0;

	while (i < end && is_space(b[i]))
		i++;
	if (i == end) {
		it->i = i;
		return false;
	}
	/* one pass: the word's end and its first '=' (one comparison for
	 * most characters: the separators are below '!') */
	for (start = i; i < end; i++) {
		char ch = b[i];

		if ((unsigned char)ch <= ' ' && is_space(ch))
			break;
		if (ch == '=' && !eq)
			eq = i + 1;
	}
	it->i = i;
	key->p = b + start;
	key->n = (eq ? eq - 1 : i) - start;
	val->p = eq ? b + eq : b + i;
	val->n = eq ? i - eq : 0;
	return true;
}

int hipsvm_proto_parse_reply(const char *buf, size_t len, struct hipsvm_reply *r)
{
	struct hipsvm_reply_it it;
	struct span w, key, val;
	int rc, status;

	rc = hipsvm_reply_open(buf, len, &it, &w, &status);
	if (rc < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	r->status = status;
	if (rc == 1) {
		copy_span(r->detail, sizeof(r->detail), w);
		return 0;
	}
	copy_span(r->op, sizeof(r->op), w);
	while (hipsvm_reply_next(&it, &key, &val)) {
		if (r->ntok == HIPSVM_PROTO_MAX_TOKENS)
			return -E2BIG;
		copy_span(r->tok[r->ntok].key, sizeof(r->tok[0].key), key);
		copy_span(r->tok[r->ntok].val, sizeof(r->tok[0].val), val);
		r->ntok++;
	}
	return 0;
}

const char *hipsvm_reply_get(const struct hipsvm_reply *r, const char *key)
{
	unsigned k;

	for (k = 0; k < r->ntok; k++)
		if (strcmp(r->tok[k].key, key) == 0)
			return r->tok[k].val;
	return NULL;
}
