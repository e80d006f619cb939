/* SPDX-License-Identifier: MIT */
/*
 * target.c - a small HIP host program that the tests in tests/preload/test_*.c run
 * with and without the shim, on the simulator and on the real runtime. Each
 * mode prints one line per call (the HIP result), so that runs can be
 * compared line by line; addresses are never printed.
 *
 * Built against the real HIP headers and linked with Debian's libamdhip64;
 * LD_LIBRARY_PATH picks the simulator (same soname) at run time.
 */
#include <hip/hip_runtime_api.h>

/* hipMallocHost, hipHostAlloc and hipFreeHost are deprecated, and hooked. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)
#define P(name, expr) printf("%s %d\n", name, (int)(expr))

static int fails;

static void check(bool ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		fails++;
	}
}

/* The simulator's hook server log (set/drain/clear order), if there is one. */
/* The simulated hook's request log ("ok log 1:range:0:0x... 2:set:0:..."),
 * into buf; "" when there is no simulator hook. */
static void fetch_log(char *buf, size_t cap)
{
	const char *(*sock)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
								  "hipsvmSimSocketPath");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path;
	socklen_t len;
	ssize_t n, got = 0;
	int fd;

	buf[0] = '\0';
	if (!sock || !(path = sock()) || path[0] != '@')
		return;
	memcpy(sa.sun_path + 1, path + 1, strlen(path + 1));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, len) || write(fd, "log\n", 4) != 4) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (got < (ssize_t)cap - 1 && (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0) {
		got += n;
		if (buf[got - 1] == '\n')
			break;
	}
	buf[got] = '\0';
	close(fd);
}

/* The hook's log keeps its last entries, each numbered ("7:drain:0:..."):
 * how many entries of kind word (":range:", ":drain:0:") are numbered after
 * *seq; *seq moves to the last number seen. */
static int log_since(const char *word, long *seq)
{
	static char buf[65536];
	const char *p;
	long last = *seq;
	int n = 0;

	fetch_log(buf, sizeof(buf));
	for (p = strchr(buf, ' '); p; p = strchr(p + 1, ' ')) {
		char *end;
		long k = strtol(p + 1, &end, 10);

		if (end == p + 1 || *end != ':')
			continue;
		if (k > *seq && !strncmp(end, word, strlen(word)))
			n++;
		if (k > last)
			last = k;
	}
	*seq = last;
	return n;
}

static void print_log(void)
{
	const char *(*sock)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
								  "hipsvmSimSocketPath");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[8192];
	const char *path;
	socklen_t len;
	ssize_t n, got = 0;
	int fd;

	if (!sock || !(path = sock()) || path[0] != '@')
		return;
	memcpy(sa.sun_path + 1, path + 1, strlen(path + 1));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, len) || write(fd, "log\n", 4) != 4)
		return;
	while (got < (ssize_t)sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0) {
		got += n;
		if (buf[got - 1] == '\n')
			break;
	}
	buf[got] = '\0';
	close(fd);
	printf("LOG %s", buf);
}

static int mode_basic(void)
{
	void *p = NULL, *m = NULL, *h = NULL, *mh = NULL, *ha = NULL, *e = NULL, *sig = NULL;
	void *pitch_p = NULL, *as = NULL, *d1 = NULL;
	size_t pitch = 0;
	void *reg = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	int n = 0;

	P("hipGetDeviceCount", hipGetDeviceCount(&n));
	P("hipMalloc", hipMalloc(&p, MIB));
	P("hipMallocManaged", hipMallocManaged(&m, 4 * MIB, hipMemAttachGlobal));
	P("hipHostMalloc", hipHostMalloc(&h, MIB, 0));
	P("hipMallocHost", hipMallocHost(&mh, 64 * 1024));
	P("hipHostAlloc", hipHostAlloc(&ha, 64 * 1024, 0));
	P("hipExtMallocWithFlags", hipExtMallocWithFlags(&e, 64 * 1024, hipDeviceMallocDefault));
	P("hipExtMallocWithFlags(signal)", hipExtMallocWithFlags(&sig, 8, hipMallocSignalMemory));
	P("hipMallocPitch", hipMallocPitch(&pitch_p, &pitch, 100, 10));
	P("hipMallocAsync", hipMallocAsync(&as, 64 * 1024, NULL));
	P("hipHostRegister", hipHostRegister(reg, 64 * 1024, 0));
	P("hipSetDevice(1)", hipSetDevice(n > 1 ? 1 : 0));
	P("hipMalloc(dev1)", hipMalloc(&d1, 2 * MIB));
	P("hipSetDevice(0)", hipSetDevice(0));
	P("hipFree(dev1)", hipFree(d1));
	P("hipFree", hipFree(p));
	P("hipFree(managed)", hipFree(m));
	P("hipHostFree", hipHostFree(h));
	P("hipFreeHost", hipFreeHost(mh));
	P("hipHostFree(hostalloc)", hipHostFree(ha));
	P("hipFree(ext)", hipFree(e));
	P("hipFree(signal)", hipFree(sig));
	P("hipFree(pitch)", hipFree(pitch_p));
	P("hipFreeAsync", hipFreeAsync(as, NULL));
	P("hipStreamSynchronize", hipStreamSynchronize(NULL));
	P("hipHostUnregister", hipHostUnregister(reg));
	munmap(reg, 64 * 1024);
	return 0;
}

/* Every return code of the edge cases (docs/hip-edges.md), and hipGetLastError after each. */
static int mode_edge(void)
{
	void *p = NULL, *q = NULL;
	int stack_var = 0, n = -1;

#define E(name, expr) do { int rc_ = (int)(expr); \
		printf("%s %d last %d\n", name, rc_, (int)hipGetLastError()); } while (0)
	E("hipGetDeviceCount", hipGetDeviceCount(&n));
	printf("count %d\n", n);
	E("hipFree(NULL)", hipFree(NULL));
	E("hipFree(&stack)", hipFree(&stack_var));
	E("hipHostFree(NULL)", hipHostFree(NULL));
	E("hipHostFree(&stack)", hipHostFree(&stack_var));
	E("hipMalloc(&p,0)", hipMalloc(&p, 0));
	printf("p==NULL %d\n", p == NULL);
	E("hipMalloc(NULL,n)", hipMalloc(NULL, 16));
	E("hipMalloc(SIZE_MAX)", hipMalloc(&p, SIZE_MAX));
	E("hipMalloc", hipMalloc(&p, 4096));
	printf("aligned256 %d\n", ((uintptr_t)p & 255) == 0);
	E("hipFree", hipFree(p));
	E("hipFree(twice)", hipFree(p));
	E("hipMallocManaged(NULL)", hipMallocManaged(NULL, 16, hipMemAttachGlobal));
	E("hipMallocManaged(0)", hipMallocManaged(&q, 0, hipMemAttachGlobal));
	E("hipMallocManaged(flags0)", hipMallocManaged(&q, 16, 0));
	E("hipMallocManaged(flags3)", hipMallocManaged(&q, 16, 3));
	E("hipMallocManaged(SIZE_MAX)", hipMallocManaged(&q, SIZE_MAX, hipMemAttachGlobal));
	E("hipHostMalloc(coh+noncoh)", hipHostMalloc(&q, 16,
						   hipHostMallocCoherent | hipHostMallocNonCoherent));
	E("hipHostMalloc", hipHostMalloc(&q, 4096, 0));
	E("hipHostFree", hipHostFree(q));
	E("hipHostFree(twice)", hipHostFree(q));
	E("hipExtMallocWithFlags(signal,16)", hipExtMallocWithFlags(&q, 16, hipMallocSignalMemory));
	E("hipExtMallocWithFlags(bad)", hipExtMallocWithFlags(&q, 16, 0x100));
	E("hipSetDevice(99)", hipSetDevice(99));
#undef E
	return 0;
}

/* A partial munmap of managed memory, then the free of the rest. */
static int mode_partial(void)
{
	char *m = NULL;

	P("hipMallocManaged", hipMallocManaged((void **)&m, 4 * MIB, hipMemAttachGlobal));
	P("munmap(middle)", munmap(m + MIB, MIB));
	P("munmap(first page)", munmap(m, 4096));
	print_log();
	P("hipFree", hipFree(m));
	return 0;
}

/* Simulator queries, looked up so that the target also runs on ROCm. */
static uint64_t sim_sets(int dev)
{
	uint64_t st[32] = { 0 };	/* struct hipsvm_sim_stats: sets is field 9 */
	int (*get)(int, void *) = (int (*)(int, void *))dlsym(RTLD_DEFAULT, "hipsvmSimGetStats");

	return get && get(dev, st) == 0 ? st[9] : 0;
}

static int sim_mapped(int dev, const void *p)
{
	int (*f)(int, const void *) = (int (*)(int, const void *))dlsym(RTLD_DEFAULT,
									"hipsvmSimIsMapped");

	return f ? f(dev, p) : 1;
}

/* Unmaps over live managed memory that the kernel refuses: each fails with
 * the kernel's errno, and the memory stays mapped on the GPU that touched
 * it; no checkpoint was set for any of them. */
static int mode_refused(void)
{
	hipError_t (*gpu)(int, const void *, size_t, int) =
		(hipError_t (*)(int, const void *, size_t, int))dlsym(RTLD_DEFAULT, "hipsvmSimAccess");
	char *m = NULL;
	void *r;

#define ERRNO_OF(expr) ((expr) ? errno : 0)
	P("hipMallocManaged", hipMallocManaged((void **)&m, 4 * MIB, hipMemAttachGlobal));
	if (gpu)
		P("gpu access", gpu(0, m, 4 * MIB, 1));
	P("mapped", sim_mapped(0, m + 2 * MIB));
	P("munmap(misaligned)", ERRNO_OF(munmap(m + 1, MIB) != 0));
	P("munmap(0 bytes)", ERRNO_OF(munmap(m + MIB, 0) != 0));
	P("munmap(past the end)", ERRNO_OF(munmap(m + MIB, SIZE_MAX - 4095) != 0));
	r = mmap(m + MIB + 1, MIB, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	P("mmap(FIXED, misaligned)", ERRNO_OF(r == MAP_FAILED));
	r = mmap(m + MIB, 0, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	P("mmap(FIXED, 0 bytes)", ERRNO_OF(r == MAP_FAILED));
	r = mremap(m + 1, MIB, 2 * MIB, MREMAP_MAYMOVE);
	P("mremap(misaligned)", ERRNO_OF(r == MAP_FAILED));
	r = mremap(m, MIB, MIB, MREMAP_MAYMOVE | MREMAP_FIXED, m + MIB / 2);
	P("mremap(overlapping)", ERRNO_OF(r == MAP_FAILED));
	P("madvise(misaligned)", ERRNO_OF(madvise(m + 1, MIB, MADV_DONTNEED) != 0));
#undef ERRNO_OF
	P("mapped", sim_mapped(0, m + 2 * MIB));
	P("checkpoints set", sim_sets(0));
	P("hipFree", hipFree(m));
	return 0;
}

/* An allocation that the program unmapped whole, then freed. */
static int mode_tomb(void)
{
	char *m = NULL, *h = NULL;

	P("hipMallocManaged", hipMallocManaged((void **)&m, 2 * MIB, hipMemAttachGlobal));
	P("munmap(all)", munmap(m, 2 * MIB));
	P("hipFree", hipFree(m));
	P("hipHostMalloc", hipHostMalloc((void **)&h, 2 * MIB, 0));
	P("munmap(head)", munmap(h, MIB));
	P("munmap(tail)", munmap(h + MIB, MIB));
	P("hipHostFree", hipHostFree(h));
	return 0;
}

/* Every other way HIP hands out memory, each allocated and given back:
 * pools (one of device 1, device 2's default), pitch and 3-D memory,
 * page-locked host memory, arrays, a physical allocation of device 0 mapped
 * and made accessible to device 1, then unmapped (coordinated on both), and
 * memory of this process imported through IPC by a child. */
static int mode_hipmem(void)
{
	hipMemPoolProps pp = { 0 };
	hipMemPool_t pool = NULL, dpool = NULL;
	hipMemAllocationProp ap = { 0 };
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAccessDesc ad = { { hipMemLocationTypeDevice, 1 }, hipMemAccessFlagsProtReadWrite };
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	HIP_ARRAY_DESCRIPTOR ad2 = { 64, 32, HIP_AD_FORMAT_FLOAT, 1 };
	hipPitchedPtr p3 = { 0 };
	hipIpcMemHandle_t ih;
	hipMemPoolPtrExportData ed;
	hipArray *arr = NULL;
	size_t pitch = 0, gran = 0;
	void *p = NULL, *va = NULL, *host = NULL, *ipc = NULL;
	hipDeviceptr_t dp = NULL;
	pid_t child;
	int st = 0;

	pp.allocType = hipMemAllocationTypePinned;
	pp.location.type = hipMemLocationTypeDevice;
	pp.location.id = 1;
	P("hipMemPoolCreate", hipMemPoolCreate(&pool, &pp));
	P("hipMallocFromPoolAsync", hipMallocFromPoolAsync(&p, MIB, pool, NULL));
	P("hipMemPoolExportPointer", hipMemPoolExportPointer(&ed, p));
	P("hipFreeAsync", hipFreeAsync(p, NULL));
	P("hipStreamSynchronize", hipStreamSynchronize(NULL));
	P("hipMemPoolTrimTo", hipMemPoolTrimTo(pool, 0));
	P("hipMemPoolDestroy", hipMemPoolDestroy(pool));
	P("hipDeviceGetDefaultMemPool", hipDeviceGetDefaultMemPool(&dpool, 2));
	P("hipMallocFromPoolAsync(default)", hipMallocFromPoolAsync(&p, 2 * MIB, dpool, NULL));
	P("hipFreeAsync", hipFreeAsync(p, NULL));
	P("hipStreamSynchronize", hipStreamSynchronize(NULL));

	P("hipMalloc3D", hipMalloc3D(&p3, make_hipExtent(256, 16, 4)));
	P("hipFree(3D)", hipFree(p3.ptr));
	P("hipMemAllocPitch", hipMemAllocPitch(&dp, &pitch, 100, 10, 4));
	P("hipFree(pitch)", hipFree(dp));
	P("hipMemAllocHost", hipMemAllocHost(&host, MIB));
	P("hipHostFree", hipHostFree(host));
	P("hipMallocArray", hipMallocArray(&arr, &cd, 64, 64, 0));
	P("hipFreeArray", hipFreeArray(arr));
	P("hipMalloc3DArray", hipMalloc3DArray(&arr, &cd, make_hipExtent(16, 16, 16), 0));
	P("hipFreeArray(3D)", hipFreeArray(arr));
	P("hipArrayCreate", hipArrayCreate(&arr, &ad2));
	P("hipArrayDestroy", hipArrayDestroy(arr));

	ap.type = hipMemAllocationTypePinned;
	ap.location.type = hipMemLocationTypeDevice;
	ap.location.id = 0;
	P("hipMemGetAllocationGranularity",
	  hipMemGetAllocationGranularity(&gran, &ap, hipMemAllocationGranularityMinimum));
	P("hipMemCreate", hipMemCreate(&h, 64 * gran, &ap, 0));
	P("hipMemAddressReserve", hipMemAddressReserve(&va, 64 * gran, 0, NULL, 0));
	if (!va)	/* ROCm 5.2 writes no address: unmap over the allocation's */
		va = (void *)0x7e0000000000;
	P("hipMemMap", hipMemMap(va, 64 * gran, 0, h, 0));
	P("hipMemSetAccess", hipMemSetAccess(va, 64 * gran, &ad, 1));
	P("hipMemUnmap", hipMemUnmap(va, 64 * gran));
	print_log();
	P("hipMemAddressFree", hipMemAddressFree(va, 64 * gran));
	P("hipMemRelease", hipMemRelease(h));

	P("hipMalloc(ipc)", hipMalloc(&p, 4 * MIB));
	P("hipIpcGetMemHandle", hipIpcGetMemHandle(&ih, p));
	fflush(stdout);
	child = fork();
	if (child == 0) {
		hipError_t e;

		hipSetDevice(3);
		e = hipIpcOpenMemHandle(&ipc, ih, hipIpcMemLazyEnablePeerAccess);
		P("child hipIpcOpenMemHandle", e);
		P("child hipIpcCloseMemHandle", hipIpcCloseMemHandle(ipc));
		exit(0);	/* not _exit: the shim writes the child's report at exit */
	}
	P("child", child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st) &&
		   WEXITSTATUS(st) == 0);
	printf("ipc child %d\n", (int)child);
	P("hipFree(ipc)", hipFree(p));
	return 0;
}

/* The other unmaps: madvise, mmap(MAP_FIXED), mremap. */
static int mode_unmaps(void)
{
	char *m = NULL, *h = NULL;
	void *r;

	P("hipMallocManaged", hipMallocManaged((void **)&m, 4 * MIB, hipMemAttachGlobal));
	P("hipHostMalloc", hipHostMalloc((void **)&h, 4 * MIB, 0));
	P("madvise(DONTNEED)", madvise(m, MIB, MADV_DONTNEED));
	P("madvise(WILLNEED)", madvise(m, MIB, MADV_WILLNEED));
	r = mmap(m + 3 * MIB, MIB, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	P("mmap(FIXED)", r == (void *)(m + 3 * MIB));
	r = mremap(h, 4 * MIB, 2 * MIB, 0);
	P("mremap(shrink)", r == (void *)h);
	P("hipFree", hipFree(m));
	P("hipHostFree", hipHostFree(h));
	return 0;
}

/* Every call of the unmap family over live managed memory, one after the
 * other: after each, how many coordinated unmaps the hook saw (a "range"
 * per set request) and how many drains of GPU 0; each call must add one of
 * each, and return what it returns without the shim. */
static int mode_family(void)
{
	char *m = NULL, *spare;
	void *r;
	int id;

	long seq = 0;

#define STEP(name, expr)                                                               \
	do {                                                                           \
		long at_ = (log_since("", &seq), seq);                                 \
		int rc_ = (int)(expr);                                                 \
		long at2_ = at_;                                                       \
		int sets_ = log_since(":range:", &at_);                                \
		printf("%s %d sets +%d drains +%d\n", name, rc_, sets_,                 \
		       log_since(":drain:0:", &at2_));                                  \
		seq = at_;                                                             \
	} while (0)
	P("hipMallocManaged", hipMallocManaged((void **)&m, 16 * MIB, hipMemAttachGlobal));
	spare = mmap(NULL, 2 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP("munmap", munmap(m, MIB));
	STEP("madvise(DONTNEED)", madvise(m + MIB, MIB, MADV_DONTNEED));
	STEP("madvise(FREE)", madvise(m + 2 * MIB, MIB, MADV_FREE));
	STEP("mmap64(FIXED)", mmap64(m + 3 * MIB, MIB, PROT_READ, MAP_FIXED | MAP_PRIVATE |
				    MAP_ANONYMOUS, -1, 0) == (void *)(m + 3 * MIB));
	STEP("mmap(FIXED)", mmap(m + 4 * MIB, MIB, PROT_READ, MAP_FIXED | MAP_PRIVATE |
				 MAP_ANONYMOUS, -1, 0) == (void *)(m + 4 * MIB));
	STEP("mremap(shrink)", mremap(m + 5 * MIB, MIB, MIB / 2, 0) == (void *)(m + 5 * MIB));
	/* tracked source moved onto an untracked target */
	STEP("mremap(move out)", mremap(m + 6 * MIB, MIB, MIB, MREMAP_MAYMOVE | MREMAP_FIXED,
					spare) == (void *)spare);
	/* an untracked source moved onto tracked memory: the target is taken */
	STEP("mremap(move onto)", mremap(spare, MIB, MIB, MREMAP_MAYMOVE | MREMAP_FIXED,
					 m + 7 * MIB) == (void *)(m + 7 * MIB));
	/* not unmaps: nothing asked of the hook */
	STEP("madvise(WILLNEED)", madvise(m + 8 * MIB, MIB, MADV_WILLNEED));
	STEP("mmap(no FIXED)", munmap(mmap(m + 9 * MIB, 4096, PROT_READ, MAP_PRIVATE |
					   MAP_ANONYMOUS, -1, 0), 4096));
	id = shmget(IPC_PRIVATE, 2 * MIB, IPC_CREAT | 0600);
	if (id >= 0) {
		char *p = shmat(id, NULL, 0);

		shmctl(id, IPC_RMID, NULL);
		if (p != (char *)-1) {
			P("hipHostRegister", hipHostRegister(p, 2 * MIB, 0));
			STEP("shmdt", shmdt(p));
		}
	}
#undef STEP
	r = m;
	P("hipFree", hipFree(r));
	munmap(spare + MIB, MIB);
	return 0;
}

/* shmdt of a System V segment part of which is registered with HIP: the
 * extent comes from the segment (the call names only its address). */
static int mode_shm(void)
{
	int id = shmget(IPC_PRIVATE, 4 * MIB, IPC_CREAT | 0600);
	char *p = id < 0 ? (char *)-1 : (char *)shmat(id, NULL, 0);

	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
	if (p == (char *)-1) {
		printf("SKIP no System V shared memory: %s\n", strerror(errno));
		return 0;
	}
	memset(p, 1, 4 * MIB);
	P("hipHostRegister", hipHostRegister(p + MIB, 2 * MIB, 0));
	P("shmdt(bad address)", shmdt(p + 4096) == -1 && errno == EINVAL);
	P("shmdt", shmdt(p));
	print_log();
	return 0;
}

static int mode_internal(void)
{
	void *m = NULL;
	int i;

	for (i = 0; i < 3; i++) {
		P("hipMallocManaged", hipMallocManaged(&m, 2 * MIB, hipMemAttachGlobal));
		P("hipFree", hipFree(m));
	}
	return 0;
}

/* errno after each call, as the call left it: the runs with and without the
 * shim must print the same (the runtime itself may change errno). */
static int mode_errno(void)
{
	void *p = NULL, *m = NULL;
	void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

#define ERR(what, expr) do { errno = 4242; (void)(expr); \
		printf("%s errno %d\n", what, errno); } while (0)
#define KEEP(what, expr) do { errno = 4242; (void)(expr); \
		check(errno == 4242, what); } while (0)
#define SETS(what, expr, e) do { errno = 4242; (void)(expr); \
		check(errno == (e), what); } while (0)
	ERR("hipMalloc", hipMalloc(&p, MIB));
	ERR("hipMallocManaged", hipMallocManaged(&m, 4 * MIB, hipMemAttachGlobal));
	ERR("hipMalloc(NULL) failing", hipMalloc(NULL, 1));
	ERR("hipFree(&bad) failing", hipFree(&p));
	KEEP("munmap untracked", munmap(page, 4096));
	SETS("munmap untracked unaligned", munmap((char *)page + 1, 4096), EINVAL);
	if (m) {
		KEEP("munmap tracked", munmap((char *)m + MIB, MIB));
		SETS("munmap tracked unaligned", munmap((char *)m + 1, 4096), EINVAL);
		KEEP("madvise tracked", madvise(m, 4096, MADV_DONTNEED));
		SETS("madvise tracked bad", madvise((char *)m + 1, 4096, MADV_DONTNEED), EINVAL);
		SETS("mremap bad", mremap((char *)m + 1, 4096, 8192, 0), EINVAL);
	}
	ERR("hipFree", hipFree(p));
	ERR("hipFree managed", hipFree(m));
#undef ERR
#undef KEEP
#undef SETS
	printf("errno fails %d\n", fails);
	return fails ? 1 : 0;
}

static char *sig_target;
static char *sig_untracked;
static volatile int sig_rc = -2, sig_rc2 = -2;

static void on_usr1(int sig)
{
	(void)sig;
	sig_rc = munmap(sig_target, MIB);
	sig_rc2 = munmap(sig_untracked, 4096);
}

static int mode_signal(void)
{
	char *m = NULL;

	signal(SIGUSR1, on_usr1);
	sig_untracked = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	P("hipMallocManaged", hipMallocManaged((void **)&m, 4 * MIB, hipMemAttachGlobal));
	sig_target = m + 2 * MIB;
	raise(SIGUSR1);
	P("munmap in handler", sig_rc);
	P("munmap untracked in handler", sig_rc2);
	P("hipFree", hipFree(m));
	return 0;
}

#define NTHREADS 8
#define ROUNDS 200
static pthread_barrier_t barrier;
static int thread_errors;

static void *worker(void *arg)
{
	int i, rc;

	(void)arg;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < ROUNDS; i++) {
		void *p = NULL, *m = NULL;

		rc = hipMalloc(&p, 4096 * (1 + i % 7));
		rc |= hipFree(p);
		if (i % 20 == 0) {
			rc |= hipMallocManaged(&m, 2 * MIB, hipMemAttachGlobal);
			if (!rc)
				rc |= munmap((char *)m + MIB, MIB);
			rc |= hipFree(m);
		}
		if (rc)
			__atomic_fetch_add(&thread_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* A thread cancelled while its coordinated munmap waits for the drain
 * (the test's hook server answers it late): munmap is no cancellation
 * point, so the call must return (its checkpoint cleared) and the thread
 * end only at its own next cancellation point. */
static char *cancel_at;
static volatile int cancel_returned = -2;

static void *cancel_body(void *arg)
{
	(void)arg;
	cancel_returned = munmap(cancel_at, MIB);
	for (;;)
		pthread_testcancel();
	return NULL;
}

static int mode_cancel(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	char *m = NULL;
	pthread_t t;

	P("hipMallocManaged", hipMallocManaged((void **)&m, 4 * MIB, hipMemAttachGlobal));
	cancel_at = m + MIB;
	P("pthread_create", pthread_create(&t, NULL, cancel_body, NULL));
	nanosleep(&ts, NULL);
	P("pthread_cancel", pthread_cancel(t));
	P("pthread_join", pthread_join(t, NULL));
	printf("cancelled munmap returned %d\n", cancel_returned);
	P("munmap(first page)", munmap(m, 4096));
	P("hipFree", hipFree(m));
	return 0;
}

static int mode_threads(void)
{
	pthread_t t[NTHREADS];
	int i;

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("thread errors %d\n", thread_errors);
	return thread_errors != 0;
}

static int mode_fork(void)
{
	void *p = NULL, *m = NULL;
	pid_t pid;
	int st = 0;

	P("parent hipMalloc", hipMalloc(&p, MIB));
	P("parent hipMallocManaged", hipMallocManaged(&m, 2 * MIB, hipMemAttachGlobal));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		void *c = NULL;

		P("child hipMallocManaged", hipMallocManaged(&c, 2 * MIB, hipMemAttachGlobal));
		P("child munmap", munmap((char *)c + MIB, MIB));
		P("child hipFree", hipFree(c));
		fflush(stdout);
		exit(0);
	}
	waitpid(pid, &st, 0);
	P("child status", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	P("parent munmap", munmap((char *)m + MIB, MIB));
	P("parent hipFree", hipFree(m));
	P("parent hipFree", hipFree(p));
	return 0;
}

static int mode_exec(void)
{
	void *p = NULL;

	P("hipMalloc", hipMalloc(&p, 4096));
	fflush(stdout);
	execl("/bin/sh", "sh", "-c", "echo \"LD_PRELOAD=[$LD_PRELOAD]\"", (char *)NULL);
	return 127;
}

/* A timer signal whose handler unmaps tracked memory while the main thread
 * unmaps tracked memory too: some handler calls land in the middle of the
 * main thread's unmap (registry update or hook request). */
#define REENTRY_PAGES 1024
static char *re_pool;
static volatile int re_next, re_fail;

static void on_alarm(int sig)
{
	int i = re_next;

	(void)sig;
	if (i < REENTRY_PAGES) {
		re_next = i + 1;
		if (munmap(re_pool + (size_t)i * 4096, 4096))
			re_fail++;
	}
}

static int mode_reentry(void)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	char *main_pool = NULL;
	int i, fail = 0;

	P("hipMallocManaged", hipMallocManaged((void **)&re_pool, REENTRY_PAGES * 4096,
					       hipMemAttachGlobal));
	P("hipMallocManaged", hipMallocManaged((void **)&main_pool, REENTRY_PAGES * 4096,
					       hipMemAttachGlobal));
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < REENTRY_PAGES; i += 2)
		fail |= munmap(main_pool + (size_t)i * 4096, 4096);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	P("main munmap fails", fail);
	P("handler munmap fails", re_fail);
	P("hipFree", hipFree(main_pool));
	P("hipFree", hipFree(re_pool));
	return 0;
}

static int mode_spawn(void)
{
	extern char **environ;
	char *argv[] = { "sh", "-c", "echo \"spawned LD_PRELOAD=[$LD_PRELOAD]\"", NULL };
	void *p = NULL;
	pid_t pid;
	int st = 0;

	P("hipMalloc", hipMalloc(&p, 4096));
	fflush(stdout);
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ))
		return 2;
	waitpid(pid, &st, 0);
	P("hipFree", hipFree(p));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

/* exit() while other threads still allocate, free and unmap. */
static void *busy(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = NULL, *m = NULL;

		if (!hipMalloc(&p, 4096))
			hipFree(p);
		if (!hipMallocManaged(&m, 2 * MIB, hipMemAttachGlobal)) {
			munmap((char *)m + MIB, MIB);
			hipFree(m);
		}
	}
	return NULL;
}

static int mode_exitrace(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	pthread_t t;
	int i;

	for (i = 0; i < 4; i++)
		pthread_create(&t, NULL, busy, NULL);
	nanosleep(&ts, NULL);
	printf("exiting\n");
	exit(0);
}

/* Routing: managed memory on device 1, device quotas, oversubscription. */
static int mode_policy(void)
{
	void *m = NULL, *a = NULL, *b = NULL, *c = NULL, *fill = NULL, *big = NULL, *h = NULL;

	P("hipSetDevice(1)", hipSetDevice(1));
	P("hipMallocManaged", hipMallocManaged(&m, 4 * MIB, hipMemAttachGlobal));
	P("hipMalloc(a)", hipMalloc(&a, 512 * 1024));
	P("hipMalloc(b)", hipMalloc(&b, 512 * 1024));
	P("hipMalloc(c)", hipMalloc(&c, 4096));
	P("hipFree(b)", hipFree(b));
	P("hipMalloc(b again)", hipMalloc(&b, 512 * 1024));
	/* on 1 GiB GPUs: fill leaves 256 MiB, so big is beyond the free
	 * memory but not beyond the largest one allocation (85 %, as 5.2.3
	 * holds hipMalloc and hipMallocManaged to) */
	P("hipMalloc(fill)", hipMalloc(&fill, (size_t)768 << 20));
	P("hipMalloc(big)", hipMalloc(&big, (size_t)768 << 20));
	P("hipHostMalloc", hipHostMalloc(&h, MIB, 0));
	P("munmap(managed part)", munmap((char *)m + MIB, MIB));
	P("hipSetDevice(0)", hipSetDevice(0));
	P("hipFree(m)", hipFree(m));
	P("hipFree(a)", hipFree(a));
	P("hipFree(b)", hipFree(b));
	P("hipFree(c)", hipFree(c));
	P("hipFree(fill)", hipFree(fill));
	P("hipFree(big)", hipFree(big));
	P("hipHostFree", hipHostFree(h));
	return 0;
}

/* Through hipGetProcAddress (ROCm 6.1+; the fake runtime has it). */
static int mode_procaddr(void)
{
	typedef hipError_t (*gpa_t)(const char *, void **, int, uint64_t, void *);
	gpa_t gpa = (gpa_t)dlsym(RTLD_DEFAULT, "hipGetProcAddress");
	hipError_t (*fn_malloc)(void **, size_t) = NULL;
	hipError_t (*fn_free)(void *) = NULL;
	void *p = NULL;

	if (!gpa) {
		printf("no hipGetProcAddress\n");
		return 0;
	}
	P("hipGetProcAddress(hipMalloc)", gpa("hipMalloc", (void **)&fn_malloc, 600, 0, NULL));
	P("hipGetProcAddress(hipFree)", gpa("hipFree", (void **)&fn_free, 600, 0, NULL));
	P("is shim's", fn_malloc && (void *)fn_malloc == dlsym(RTLD_DEFAULT, "hipMalloc"));
	if (fn_malloc && fn_free) {
		P("(*hipMalloc)", fn_malloc(&p, 4096));
		P("(*hipFree)", fn_free(p));
	}
	return 0;
}

/* Many unmaps of untracked memory: the shim must stay out of the way. */
static int mode_plain(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		void *q = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (q == MAP_FAILED || munmap(q, 8192))
			return 2;
	}
	errno = 0;
	P("munmap(bad)", munmap((void *)1, 4096));
	P("errno", errno);
	return 3;
}

/* Whether pid's main thread has exited (its state in /proc is then Z while
 * other threads live on). */
static bool leader_gone(pid_t pid)
{
	char path[64], buf[256], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* main ends with pthread_exit while the runtime's threads live on: a
 * SIGTERM, sent once the main thread is gone by a helper process forked
 * before any HIP call, must end the process, as on ROCm. If it does not, the
 * helper kills it with SIGKILL 5 s later: exit code 137 instead of 143. */
static int mode_pexit(void)
{
	pid_t main_pid = getpid(), helper = fork();
	void *p = NULL;

	if (helper == 0) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		int i;

		for (i = 0; i < 1500 && !leader_gone(main_pid); i++)
			nanosleep(&ts, NULL);
		kill(main_pid, SIGTERM);
		for (i = 0; i < 250 && kill(main_pid, 0) == 0; i++)
			nanosleep(&ts, NULL);
		if (kill(main_pid, 0) == 0)
			kill(main_pid, SIGKILL);
		_exit(0);
	}
	P("hipMalloc", hipMalloc(&p, 4096));
	pthread_exit(NULL);
}

/* Another user (nobody; the tests run as root) connects to the simulator's
 * hook socket and asks for its version: the reply it gets is printed. */
static int mode_stranger(void)
{
	const char *(*sock)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
								  "hipsvmSimSocketPath");
	int count = 0, st = 0, pfd[2];
	char reply[256] = "", name[108];
	ssize_t got;
	pid_t child;

	P("hipGetDeviceCount", hipGetDeviceCount(&count));
	/* the name now: in the child, the simulator would start afresh */
	if (!sock || !sock()[0] || sock()[0] != '@' || strlen(sock()) >= sizeof(name) || pipe(pfd))
		return 2;
	strcpy(name, sock());
	child = fork();
	if (child == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		size_t n = strlen(name);
		ssize_t k;
		int fd;

		close(pfd[0]);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		memcpy(sa.sun_path + 1, name + 1, n - 1);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)))
			_exit(4);
		/* the server may have refused and closed already: its reply
		 * waits in our buffer all the same */
		(void)send(fd, "version\n", 8, MSG_NOSIGNAL);
		k = read(fd, reply, sizeof(reply) - 1);
		if (k > 0 && write(pfd[1], reply, (size_t)k) != k)
			_exit(5);
		_exit(0);
	}
	close(pfd[1]);
	got = read(pfd[0], reply, sizeof(reply) - 1);
	reply[got > 0 ? got : 0] = '\0';
	waitpid(child, &st, 0);
	printf("stranger exit %d reply %s", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st), reply);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(void); } modes[] = {
		{ "basic", mode_basic }, { "edge", mode_edge }, { "partial", mode_partial }, { "cancel", mode_cancel },
		{ "unmaps", mode_unmaps }, { "shm", mode_shm }, { "internal", mode_internal }, { "errno", mode_errno },
		{ "signal", mode_signal }, { "threads", mode_threads }, { "fork", mode_fork },
		{ "exec", mode_exec }, { "policy", mode_policy }, { "procaddr", mode_procaddr },
		{ "plain", mode_plain }, { "reentry", mode_reentry },
		{ "spawn", mode_spawn }, { "exitrace", mode_exitrace }, { "pexit", mode_pexit },
		{ "refused", mode_refused }, { "tomb", mode_tomb }, { "hipmem", mode_hipmem },
		{ "stranger", mode_stranger }, { "family", mode_family },
	};
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].fn();
	fprintf(stderr, "usage: %s MODE\n", argv[0]);
	return 64;
}
