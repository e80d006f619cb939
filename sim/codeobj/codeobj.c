/* SPDX-License-Identifier: MIT */
/*
 * codeobj.c - clang offload bundle -> AMDGPU ELF -> NT_AMDGPU_METADATA -> kernel args.
 *
 * Parsed by hand rather than with libelf: the simulated libamdhip64 then needs no
 * extra library, and every read goes through one bounds-checked helper (rd()),
 * which is what makes the parser safe to fuzz. Layouts are described in codeobj.h.
 */
#include "codeobj.h"
#include "codeobj_mangle.h"
#include "codeobj_read.h"
#include "codeobj_code.h"
#include "codeobj_target.h"
#include "codeobj_image.h"

#include <errno.h>
#include <stdlib.h>

#define BUNDLE_MAGIC		"__CLANG_OFFLOAD_BUNDLE__"
#define BUNDLE_MAGIC_LEN	24
#define HIPF_MAGIC		0x48495046u
#define EM_AMDGPU_		224
#define NT_AMDGPU_METADATA_	32
/* Limits for walking a bundle whose size we are not told (hipsvm_codeobj_load). */
#define WRAP_MAX_ENTRIES	4096
#define WRAP_MAX_TRIPLE		4096
#define WRAP_MAX_SIZE		((uint64_t)1 << 32)
#define MAX_KERNELS		65536

struct kentry {
	struct hipsvm_kernel_info info;
	char *fullname;		/* untruncated .name */
};

struct hipsvm_codeobj {
	unsigned n, cap;
	struct kentry *k;
	uint8_t *image;		/* our copy of the ELF the kernels' code points into */
	size_t image_size;
	char target[48];	/* the chosen code object's target ID ("" unknown) */
};

/* ------------------------------------------------------------------ */
/* Metadata -> kernels */

static int hidden_kind(const struct mp_tok *v)
{
	if (tok_is(v, "hidden_global_offset_x"))
		return HIPSVM_HIDDEN_GLOBAL_OFFSET_X;
	if (tok_is(v, "hidden_global_offset_y"))
		return HIPSVM_HIDDEN_GLOBAL_OFFSET_Y;
	if (tok_is(v, "hidden_global_offset_z"))
		return HIPSVM_HIDDEN_GLOBAL_OFFSET_Z;
	if (tok_is(v, "hidden_hostcall_buffer"))
		return HIPSVM_HIDDEN_HOSTCALL;
	if (tok_is(v, "hidden_multigrid_sync_arg"))
		return HIPSVM_HIDDEN_MULTIGRID;
	return HIPSVM_HIDDEN_OTHER;
}

static int parse_arg(struct mp *m, struct hipsvm_kernel_info *ki)
{
	struct mp_tok t;
	struct hipsvm_karg a = { 0 };
	bool hidden = false, ok;
	int hkind = -1;

	if (!mp_next(m, &t))
		return -EINVAL;
	if (t.kind != MP_MAP)
		return mp_skip_rest(m, &t) ? 0 : -EINVAL;
	for (uint64_t i = 0; i < t.u; i++) {
		struct mp_tok k, v;

		if (!mp_next(m, &k))
			return -EINVAL;
		if (k.kind != MP_STR) {
			if (!mp_skip_rest(m, &k) || !mp_skip(m))
				return -EINVAL;
			continue;
		}
		if (tok_is(&k, ".offset") || tok_is(&k, ".size")) {
			if (!mp_u32(m, k.u == 7 ? &a.offset : &a.size))
				return -EINVAL;
		} else if (tok_is(&k, ".value_kind")) {
			if (!mp_str(m, &v, &ok))
				return -EINVAL;
			if (ok) {
				a.global_buffer = v.u == 13 && !memcmp(v.s, "global_buffer", 13);
				hidden = v.u >= 7 && !memcmp(v.s, "hidden_", 7);
				if (hidden)
					hkind = hidden_kind(&v);
			}
		} else if (tok_is(&k, ".access") || tok_is(&k, ".actual_access")) {
			if (!mp_str(m, &v, &ok))
				return -EINVAL;
			if (ok && tok_is(&v, "read_only"))
				a.read_only = true;
		} else if (tok_is(&k, ".is_const")) {
			if (!mp_next(m, &v) || !mp_skip_rest(m, &v))
				return -EINVAL;
			if (v.kind == MP_BOOL && v.u)
				a.read_only = true;
		} else if (!mp_skip(m)) {
			return -EINVAL;
		}
	}
	if (!hidden && ki->nargs < HIPSVM_KERNEL_MAX_ARGS)
		ki->args[ki->nargs++] = a;
	if (hidden) {
		ki->hidden_mask |= 1u << hkind;
		ki->hidden_off[hkind] = a.offset;
	}
	return 0;
}

static int add_kernel(struct hipsvm_codeobj *co, const struct kentry *ke)
{
	if (co->n == co->cap) {
		unsigned cap = co->cap ? 2 * co->cap : 8;
		struct kentry *k;

		if (co->n >= MAX_KERNELS)
			return -EINVAL;
		k = realloc(co->k, (size_t)cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		co->k = k;
		co->cap = cap;
	}
	co->k[co->n++] = *ke;
	return 0;
}

static int parse_kernel(struct mp *m, struct hipsvm_codeobj *co)
{
	struct mp_tok t, name = { 0 }, sym = { 0 };
	struct kentry ke;
	size_t len;
	int err;

	memset(&ke, 0, sizeof(ke));
	if (!mp_next(m, &t))
		return -EINVAL;
	if (t.kind != MP_MAP)
		return mp_skip_rest(m, &t) ? 0 : -EINVAL;
	for (uint64_t i = 0; i < t.u; i++) {
		struct mp_tok k, v;
		bool ok;

		if (!mp_next(m, &k))
			return -EINVAL;
		if (k.kind != MP_STR) {
			if (!mp_skip_rest(m, &k) || !mp_skip(m))
				return -EINVAL;
		} else if (tok_is(&k, ".name") || tok_is(&k, ".symbol")) {
			if (!mp_str(m, &v, &ok))
				return -EINVAL;
			if (ok)
				*(k.u == 5 ? &name : &sym) = v;
		} else if (tok_is(&k, ".kernarg_segment_size")) {
			if (!mp_u32(m, &ke.info.kernarg_size))
				return -EINVAL;
		} else if (tok_is(&k, ".max_flat_workgroup_size")) {
			if (!mp_u32(m, &ke.info.max_flat_wg))
				return -EINVAL;
		} else if (tok_is(&k, ".args")) {
			if (!mp_next(m, &v))
				return -EINVAL;
			if (v.kind != MP_ARRAY) {
				if (!mp_skip_rest(m, &v))
					return -EINVAL;
				continue;
			}
			/* a repeated .args key replaces the earlier list */
			ke.info.nargs = 0;
			for (uint64_t j = 0; j < v.u; j++) {
				err = parse_arg(m, &ke.info);
				if (err)
					return err;
			}
		} else if (!mp_skip(m)) {
			return -EINVAL;
		}
	}
	/* .name is what __hipRegisterFunction passes; fall back to .symbol less ".kd" */
	if (name.kind != MP_STR) {
		name = sym;
		if (name.kind == MP_STR && name.u > 3 && !memcmp(name.s + name.u - 3, ".kd", 3))
			name.u -= 3;
	}
	if (name.kind != MP_STR || name.u == 0 || memchr(name.s, 0, name.u))
		return 0;	/* a kernel nobody can look up: ignore it */
	len = name.u;
	ke.fullname = malloc(len + 1);
	if (!ke.fullname)
		return -ENOMEM;
	memcpy(ke.fullname, name.s, len);
	ke.fullname[len] = 0;
	if (len >= sizeof(ke.info.name))
		len = sizeof(ke.info.name) - 1;
	memcpy(ke.info.name, name.s, len);
	hipsvm_mangled_const_args(ke.fullname, &ke.info);
	err = add_kernel(co, &ke);
	if (err)
		free(ke.fullname);
	return err;
}

static int parse_metadata(const struct buf *desc, struct hipsvm_codeobj *co)
{
	struct mp m = { *desc, 0 };
	struct mp_tok t;
	bool seen = false;
	int err;

	if (!mp_next(&m, &t) || t.kind != MP_MAP)
		return -EINVAL;
	for (uint64_t i = 0; i < t.u; i++) {
		struct mp_tok k, v;

		if (!mp_next(&m, &k))
			return -EINVAL;
		if (!tok_is(&k, "amdhsa.kernels")) {
			if (!mp_skip_rest(&m, &k) || !mp_skip(&m))
				return -EINVAL;
			continue;
		}
		if (seen || !mp_next(&m, &v) || v.kind != MP_ARRAY)
			return -EINVAL;
		seen = true;
		for (uint64_t j = 0; j < v.u; j++) {
			err = parse_kernel(&m, co);
			if (err)
				return err;
		}
	}
	return seen ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------ */
/* ELF code object */

uint64_t hipsvm_codeobj_generation(void)
{
	static uint64_t next;

	return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

/* A copy of the ELF, and each kernel's descriptor and code in it. A code
 * object without them still gives its argument metadata. */
static int attach(const struct buf *b, struct hipsvm_codeobj *co)
{
	uint64_t gen = hipsvm_codeobj_generation();

	free(co->image);
	co->image = malloc(b->size ? b->size : 1);
	if (!co->image)
		return -ENOMEM;
	memcpy(co->image, b->p, b->size);
	co->image_size = b->size;
	for (unsigned i = 0; i < co->n; i++) {
		hipsvm_codeobj_find_code(co->image, b->size, co->k[i].fullname, &co->k[i].info);
		co->k[i].info.co = co;
		co->k[i].info.index = i;
		co->k[i].info.gen = gen;
	}
	return 0;
}

/* Walks the notes of one PT_NOTE segment or SHT_NOTE section (4-byte aligned). */
static int scan_notes(const struct buf *b, uint64_t off, uint64_t size, struct hipsvm_codeobj *co)
{
	struct buf n;
	uint64_t pos = 0;

	if (!sub(b, off, size, &n))
		return -EINVAL;
	while (n.size - pos >= 12) {
		uint32_t namesz = 0, descsz = 0, type = 0;
		uint64_t name_off = pos + 12, desc_off, next;
		struct buf desc;
		char name[8];

		rd32(&n, pos, &namesz);
		rd32(&n, pos + 4, &descsz);
		rd32(&n, pos + 8, &type);
		desc_off = name_off + (((uint64_t)namesz + 3) & ~(uint64_t)3);
		next = desc_off + (((uint64_t)descsz + 3) & ~(uint64_t)3);
		if (desc_off > n.size || next > n.size + 3)
			return -EINVAL;
		if (type == NT_AMDGPU_METADATA_ && namesz == 7 && rd(&n, name_off, name, 7) &&
		    !memcmp(name, "AMDGPU", 7)) {
			if (!sub(&n, desc_off, descsz, &desc))
				return -EINVAL;
			return parse_metadata(&desc, co);
		}
		pos = next;
	}
	return -ENOENT;
}

/* A bare code object; with dev, only one its e_flags make compatible. */
static int parse_elf(const struct buf *b, const struct tid *dev, struct hipsvm_codeobj *co)
{
	struct tid t;
	uint8_t id[16];
	uint16_t machine, phentsize, phnum, shentsize, shnum;
	uint64_t phoff, shoff;
	int err = -ENOENT;

	if (!rd(b, 0, id, 16) || memcmp(id, "\177ELF", 4) || id[4] != 2 /* ELFCLASS64 */ ||
	    id[5] != 1 /* ELFDATA2LSB */)
		return -EINVAL;
	if (!rd(b, 18, &machine, 2) || !rd64(b, 32, &phoff) || !rd64(b, 40, &shoff) ||
	    !rd(b, 54, &phentsize, 2) || !rd(b, 56, &phnum, 2) ||
	    !rd(b, 58, &shentsize, 2) || !rd(b, 60, &shnum, 2))
		return -EINVAL;
	machine = le16toh(machine);
	phentsize = le16toh(phentsize);
	phnum = le16toh(phnum);
	shentsize = le16toh(shentsize);
	shnum = le16toh(shnum);
	if (machine != EM_AMDGPU_)
		return -EINVAL;
	if (tid_from_elf(b->p, b->size, &t)) {
		if (dev && !tid_compatible(&t, dev))
			return -ENOENT;
		tid_format(&t, co->target, sizeof(co->target));
	} else if (dev) {
		return -ENOENT;
	}
	/* The loader uses PT_NOTE; sections are the fallback for stripped headers. */
	if (phnum && phentsize < 56)
		return -EINVAL;
	for (uint64_t i = 0; i < phnum && err == -ENOENT; i++) {
		uint64_t e = phoff + i * phentsize, off, filesz;
		uint32_t type;

		if (!rd32(b, e, &type) || !rd64(b, e + 8, &off) || !rd64(b, e + 32, &filesz))
			return -EINVAL;
		if (type == 4 /* PT_NOTE */)
			err = scan_notes(b, off, filesz, co);
	}
	if (err == 0)
		return attach(b, co);
	if (err != -ENOENT)
		return err;
	if (shnum && shentsize < 64)
		return -EINVAL;
	for (uint64_t i = 0; i < shnum && err == -ENOENT; i++) {
		uint64_t e = shoff + i * shentsize, off, size;
		uint32_t type;

		if (!rd32(b, e + 4, &type) || !rd64(b, e + 24, &off) || !rd64(b, e + 32, &size))
			return -EINVAL;
		if (type == 7 /* SHT_NOTE */)
			err = scan_notes(b, off, size, co);
	}
	return err ? err : attach(b, co);
}

/* ------------------------------------------------------------------ */
/* Offload bundle */

static bool is_amdgcn(const char *t, uint64_t n)
{
	static const char want[] = "amdgcn-amd-amdhsa";

	for (uint64_t i = 0; i + sizeof(want) - 1 <= n; i++)
		if (!memcmp(t + i, want, sizeof(want) - 1))
			return true;
	return false;
}

static void co_reset(struct hipsvm_codeobj *co)
{
	for (unsigned i = 0; i < co->n; i++)
		free(co->k[i].fullname);
	co->n = 0;
}

/*
 * The entry's code object target ID, from a "hipv4-" triple or else from the
 * ELF header of a "hip-"/"hcc-" entry; false for other kinds (host, openmp)
 * and IDs that do not parse (hipamd skips those entries).
 */
static bool entry_target(const struct buf *triple, const struct buf *entry, struct tid *t)
{
	const char *s = (const char *)triple->p;
	const char *dash = memchr(s, '-', triple->size);
	size_t kind = dash ? (size_t)(dash - s) : triple->size;

	if (!dash)
		return false;
	if (kind == 5 && !memcmp(s, "hipv4", 5))
		return triple->size - kind - 1 > TID_TRIPLE_LEN &&
		       !memcmp(dash + 1, TID_TRIPLE, TID_TRIPLE_LEN) &&
		       tid_parse(dash + 1, triple->size - kind - 1, t);
	if ((kind == 3 && !memcmp(s, "hip", 3)) || (kind == 3 && !memcmp(s, "hcc", 3)))
		return tid_from_elf(entry->p, entry->size, t);
	return false;
}

/*
 * With a device target, the first entry compatible with it that parses wins
 * (ROCm takes the first compatible one); without, the first amdgcn entry
 * that parses. A malformed header fails the whole bundle.
 */
static int parse_bundle(const struct buf *b, const struct tid *dev, struct hipsvm_codeobj *co)
{
	uint64_t n, pos = BUNDLE_MAGIC_LEN + 8;
	int err = -ENOENT;
	bool done = false;

	if (!rd64(b, BUNDLE_MAGIC_LEN, &n) || n > (b->size - pos) / 24)
		return -EINVAL;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off, size, tlen;
		struct buf entry, triple;
		struct tid t;
		bool known;
		int e;

		if (!rd64(b, pos, &off) || !rd64(b, pos + 8, &size) || !rd64(b, pos + 16, &tlen) ||
		    !sub(b, pos + 24, tlen, &triple) || !sub(b, off, size, &entry))
			return -EINVAL;
		pos += 24 + tlen;
		if (done || !is_amdgcn((const char *)triple.p, triple.size))
			continue;
		known = entry_target(&triple, &entry, &t);
		if (dev && (!known || !tid_compatible(&t, dev)))
			continue;
		e = parse_elf(&entry, NULL, co);
		if (!e) {
			done = true;
			err = 0;
			if (known)
				tid_format(&t, co->target, sizeof(co->target));
		} else {
			co_reset(co);
			/* -EINVAL from a broken entry outranks "nothing found" */
			if (err == -ENOENT || e == -ENOMEM)
				err = e;
		}
	}
	return err;
}

static int load(const struct buf *b, const char *target, struct hipsvm_codeobj **out)
{
	struct hipsvm_codeobj *co;
	struct tid dev;
	int err;

	if (!b->p || !out)
		return -EINVAL;
	if (target && !tid_parse(target, strlen(target), &dev))
		return -EINVAL;
	co = calloc(1, sizeof(*co));
	if (!co)
		return -ENOMEM;
	if (b->size >= BUNDLE_MAGIC_LEN && !memcmp(b->p, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN))
		err = parse_bundle(b, target ? &dev : NULL, co);
	else if (b->size >= 4 && !memcmp(b->p, "CCOB", 4))
		err = -ENOTSUP;
	else if (b->size >= 4 && !memcmp(b->p, "\177ELF", 4))
		err = parse_elf(b, target ? &dev : NULL, co);
	else
		err = -EINVAL;
	if (err) {
		hipsvm_codeobj_free(co);
		return err;
	}
	*out = co;
	return 0;
}

int hipsvm_codeobj_load_blob(const void *data, size_t size, const char *target,
			     struct hipsvm_codeobj **out)
{
	struct buf b = { data, size };

	return load(&b, target, out);
}

/*
 * The wrapper does not say how large the bundle is: take the end of its
 * furthest entry, walking the header with fixed caps so that garbage cannot
 * send us far through memory (the caller vouches for the header itself).
 * A raw ELF is sized by its headers likewise. 0 means "cannot tell".
 */
static uint64_t bundle_extent(const uint8_t *p)
{
	struct buf b = { p, WRAP_MAX_SIZE };
	uint64_t n, pos = BUNDLE_MAGIC_LEN + 8, end = 0;

	if (!rd64(&b, BUNDLE_MAGIC_LEN, &n) || n > WRAP_MAX_ENTRIES)
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = 0, size = 0, tlen = 0;

		rd64(&b, pos, &off);
		rd64(&b, pos + 8, &size);
		rd64(&b, pos + 16, &tlen);
		if (tlen > WRAP_MAX_TRIPLE || off > WRAP_MAX_SIZE || size > WRAP_MAX_SIZE - off)
			return 0;
		pos += 24 + tlen;
		if (off + size > end)
			end = off + size;
	}
	return end > pos ? end : pos;
}

static uint64_t elf_extent(const uint8_t *p)
{
	struct buf b = { p, 64 };
	uint16_t phentsize = 0, phnum = 0, shentsize = 0, shnum = 0;
	uint64_t phoff = 0, shoff = 0, ph_end, sh_end;

	rd64(&b, 32, &phoff);
	rd64(&b, 40, &shoff);
	rd(&b, 54, &phentsize, 2);
	rd(&b, 56, &phnum, 2);
	rd(&b, 58, &shentsize, 2);
	rd(&b, 60, &shnum, 2);
	if (phoff > WRAP_MAX_SIZE || shoff > WRAP_MAX_SIZE)
		return 0;
	/*
	 * lld puts the section headers last; anything that lies beyond them makes
	 * the blob parser fail cleanly rather than read past the end.
	 */
	ph_end = phoff + (uint64_t)le16toh(phnum) * le16toh(phentsize);
	sh_end = shoff + (uint64_t)le16toh(shnum) * le16toh(shentsize);
	return ph_end > sh_end ? ph_end : sh_end;
}

int hipsvm_codeobj_load(const void *fatbin_wrapper, const char *target,
			struct hipsvm_codeobj **out)
{
	uint32_t w[2];
	const uint8_t *bin;
	uint64_t size = 0;

	if (!fatbin_wrapper || !out)
		return -EINVAL;
	memcpy(w, fatbin_wrapper, sizeof(w));
	memcpy(&bin, (const uint8_t *)fatbin_wrapper + 8, sizeof(bin));
	if (le32toh(w[0]) != HIPF_MAGIC || le32toh(w[1]) != 1 || !bin)
		return -EINVAL;
	if (!memcmp(bin, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN))
		size = bundle_extent(bin);
	else if (!memcmp(bin, "\177ELF", 4))
		size = elf_extent(bin);
	else if (!memcmp(bin, "CCOB", 4))
		return -ENOTSUP;
	if (!size || size > SIZE_MAX)
		return -EINVAL;
	return hipsvm_codeobj_load_blob(bin, (size_t)size, target, out);
}

const struct hipsvm_kernel_info *hipsvm_codeobj_find(const struct hipsvm_codeobj *co,
						     const char *name)
{
	size_t len;

	if (!co || !name)
		return NULL;
	len = strlen(name);
	if (len > 3 && !strcmp(name + len - 3, ".kd"))
		len -= 3;
	for (unsigned i = 0; i < co->n; i++)
		if (!strncmp(co->k[i].fullname, name, len) && !co->k[i].fullname[len])
			return &co->k[i].info;
	return NULL;
}

const char *hipsvm_codeobj_target(const struct hipsvm_codeobj *co)
{
	return co ? co->target : "";
}

bool hipsvm_target_compatible(const char *code_object, const char *device)
{
	struct tid c, d;

	return code_object && device && tid_parse(code_object, strlen(code_object), &c) &&
	       tid_parse(device, strlen(device), &d) && tid_compatible(&c, &d);
}

uint64_t hipsvm_codeobj_image_size(const struct hipsvm_codeobj *co)
{
	struct buf b;

	if (!co || !co->image)
		return 0;
	b = (struct buf){ co->image, co->image_size };
	return img_span(&b);
}

int hipsvm_codeobj_image_write(const struct hipsvm_codeobj *co, void *dst, uint64_t base)
{
	uint64_t span = hipsvm_codeobj_image_size(co);
	struct buf b;

	if (!span || !dst)
		return -EINVAL;
	b = (struct buf){ co->image, co->image_size };
	return img_write(&b, dst, span, base);
}

int hipsvm_codeobj_symbol(const struct hipsvm_codeobj *co, const char *name, uint64_t *addr,
			  uint64_t *size)
{
	uint64_t span = hipsvm_codeobj_image_size(co), a, n;
	struct buf b;

	if (!span || !name)
		return -ENOENT;
	b = (struct buf){ co->image, co->image_size };
	if (!img_find(&b, name, &a, &n) || a > span || n > span - a)
		return -ENOENT;
	*addr = a;
	*size = n;
	return 0;
}

unsigned hipsvm_codeobj_count(const struct hipsvm_codeobj *co)
{
	return co ? co->n : 0;
}

const struct hipsvm_kernel_info *hipsvm_codeobj_kernel(const struct hipsvm_codeobj *co,
						       unsigned i)
{
	return co && i < co->n ? &co->k[i].info : NULL;
}

void hipsvm_codeobj_free(struct hipsvm_codeobj *co)
{
	if (!co)
		return;
	co_reset(co);
	free(co->k);
	free(co->image);
	free(co);
}
