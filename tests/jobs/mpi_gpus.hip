// mpi_gpus.hip - one rank of an MPI job with GPUs, for the launcher tests
// (tests/jobs/meson.build).
//
// Each rank checks that it sees exactly the GPUs it was given (--gpus N, and
// no GPU uuid shared with another rank of its node), fills a device buffer
// with a kernel, sends it through MPI from pinned host memory to the next
// rank into managed memory, where a kernel checks it; then it registers
// memory of its own mmap, sends from it, and unmaps it in two steps (the
// unmaps the shim must coordinate and UCX must see).
//
// --ucx FILE: register a UCX memory-event handler (UCX's ucm, loaded by
// Open MPI's UCX PML) and write every VM_UNMAPPED event it is given to FILE
// ("%r" becomes the rank), one "addr len" line each (hex), plus the unmaps
// this program made itself ("own addr len").
//
// Exit status: 0 when every check passed; 1 a failed call; 2 a wrong result.
#include <hip/hip_runtime.h>
#include <mpi.h>
#include <ucm/api/ucm.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", g_rank, __FILE__, \
				__LINE__, #call, hipGetErrorName(e_));                     \
			MPI_Abort(MPI_COMM_WORLD, 1);                                      \
		}                                                                          \
	} while (0)

#define N 4096
#define MAX_EV 4096

static int g_rank;
static struct { void *addr; size_t len; } g_ev[MAX_EV];
static int g_nev;

// UCX calls this from inside the unmap (a pre-event): no allocation, no stdio.
static void on_unmap(ucm_event_type_t type, ucm_event_t *ev, void *arg)
{
	int i = __atomic_fetch_add(&g_nev, 1, __ATOMIC_RELAXED);

	(void)arg;
	if (type == UCM_EVENT_VM_UNMAPPED && i < MAX_EV) {
		g_ev[i].addr = ev->vm_unmapped.address;
		g_ev[i].len = ev->vm_unmapped.size;
	}
}

__global__ void fill(int *p, int base)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		p[i] = base + i;
}

__global__ void verify(const int *p, int base, int *bad)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N && p[i] != base + i)
		atomicAdd(bad, 1);
}

int main(int argc, char **argv)
{
	int size, lrank, lsize, want = -1, ngpu, bad = 0, d, i;
	const char *ucx = NULL;
	char own[4][64];
	int nown = 0;
	MPI_Comm node;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gpus") && i + 1 < argc)
			want = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ucx") && i + 1 < argc)
			ucx = argv[++i];
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &lrank);
	MPI_Comm_size(node, &lsize);

	if (ucx) {
		// Open MPI loads UCX privately (RTLD_LOCAL): reach the copy it loaded.
		void *h = dlopen("libucm.so.0", RTLD_NOW | RTLD_NOLOAD);
		ucs_status_t (*set)(int, int, ucm_event_callback_t, void *) =
			h ? (ucs_status_t (*)(int, int, ucm_event_callback_t, void *))dlsym(h, "ucm_set_event_handler") : NULL;

		if (!set) {
			fprintf(stderr, "rank %d: UCX's libucm is not loaded (not the UCX PML?)\n", g_rank);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (set(UCM_EVENT_VM_UNMAPPED, 0, on_unmap, NULL) != UCS_OK) {
			fprintf(stderr, "rank %d: ucm_set_event_handler refused (UCX_MEM_EVENTS=no?)\n", g_rank);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}

	CHECK(hipGetDeviceCount(&ngpu));
	if (want >= 0 && ngpu != want) {
		fprintf(stderr, "rank %d: sees %d GPUs, was given %d\n", g_rank, ngpu, want);
		bad++;
	}
	{
		// No GPU of this rank is another rank's on the same node.
		unsigned char mine[16][16] = { { 0 } }, *all = (unsigned char *)calloc((size_t)lsize, sizeof(mine));
		int n = ngpu < 16 ? ngpu : 16, r, k, m;

		for (d = 0; d < n; d++)
			CHECK(hipDeviceGetUuid((hipUUID *)mine[d], d));
		MPI_Allgather(mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, node);
		for (r = 0; r < lsize; r++)
			for (k = 0; r != lrank && k < 16; k++)
				for (m = 0; m < n; m++)
					if (memcmp(all + (size_t)r * sizeof(mine) + k * 16, mine[m], 16) == 0) {
						fprintf(stderr, "rank %d: GPU %d is also node rank %d's\n", g_rank, m, r);
						bad++;
					}
		free(all);
	}

	for (d = 0; d < ngpu; d++) {
		int *dev, *host, *managed, *dbad, hbad = 0;
		int to = (g_rank + 1) % size, from = (g_rank + size - 1) % size;

		CHECK(hipSetDevice(d));
		CHECK(hipMalloc((void **)&dev, N * sizeof(int)));
		CHECK(hipHostMalloc((void **)&host, N * sizeof(int), 0));
		CHECK(hipMallocManaged((void **)&managed, N * sizeof(int), hipMemAttachGlobal));
		CHECK(hipMalloc((void **)&dbad, sizeof(int)));
		CHECK(hipMemset(dbad, 0, sizeof(int)));
		fill<<<N / 256, 256>>>(dev, g_rank * 100000 + d * 10000);
		CHECK(hipMemcpy(host, dev, N * sizeof(int), hipMemcpyDeviceToHost));
		MPI_Sendrecv(host, N, MPI_INT, to, d, managed, N, MPI_INT, from, d, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		verify<<<N / 256, 256>>>(managed, from * 100000 + d * 10000, dbad);
		CHECK(hipMemcpy(&hbad, dbad, sizeof(int), hipMemcpyDeviceToHost));
		if (hbad) {
			fprintf(stderr, "rank %d: GPU %d: %d of %d values from rank %d wrong\n", g_rank, d,
				hbad, N, from);
			bad++;
		}
		CHECK(hipFree(dbad));
		CHECK(hipFree(managed));
		CHECK(hipHostFree(host));
		CHECK(hipFree(dev));
	}

	{
		// Registered memory of our own mapping, sent from (UCX may cache its
		// registration), then unmapped by the program itself: half, then the rest.
		size_t len = 16 * (size_t)sysconf(_SC_PAGESIZE);
		int to = (g_rank + 1) % size, from = (g_rank + size - 1) % size, *in;
		char *p = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		in = (int *)malloc(len);
		CHECK(hipHostRegister(p, len, 0));
		if (ngpu > 0) {
			CHECK(hipSetDevice(0));
			fill<<<N / 256, 256>>>((int *)p, g_rank);
			CHECK(hipDeviceSynchronize());
		} else {
			for (i = 0; i < N; i++)
				((int *)p)[i] = g_rank + i;
		}
		MPI_Sendrecv(p, (int)(len / sizeof(int)), MPI_INT, to, 99, in, (int)(len / sizeof(int)), MPI_INT,
			     from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < N; i++)
			if (in[i] != from + i) {
				fprintf(stderr, "rank %d: registered buffer from rank %d: [%d] = %d\n", g_rank, from,
					i, in[i]);
				bad++;
				break;
			}
		free(in);
		snprintf(own[nown++], sizeof(own[0]), "own %p %zx", (void *)(p + len / 2), len / 2);
		if (munmap(p + len / 2, len / 2) != 0)
			bad++;
		snprintf(own[nown++], sizeof(own[0]), "own %p %zx", (void *)p, len / 2);
		if (munmap(p, len / 2) != 0)
			bad++;
	}

	MPI_Barrier(MPI_COMM_WORLD);
	if (ucx) {
		char path[4096], *q;
		FILE *f;
		int n = __atomic_load_n(&g_nev, __ATOMIC_RELAXED);

		snprintf(path, sizeof(path), "%s", ucx);
		if ((q = strstr(path, "%r")) != NULL) {
			char tail[4096];

			snprintf(tail, sizeof(tail), "%s", q + 2);
			snprintf(q, sizeof(path) - (size_t)(q - path), "%d%s", g_rank, tail);
		}
		f = fopen(path, "w");
		if (!f) {
			perror(path);
			bad++;
		} else {
			for (i = 0; i < n && i < MAX_EV; i++)
				fprintf(f, "%p %zx\n", g_ev[i].addr, g_ev[i].len);
			for (i = 0; i < nown; i++)
				fprintf(f, "%s\n", own[i]);
			fclose(f);
		}
	}
	printf("rank %d of %d (node rank %d of %d): %d GPUs, %s\n", g_rank, size, lrank, lsize, ngpu,
	       bad ? "FAILED" : "ok");
	MPI_Comm_free(&node);
	MPI_Finalize();
	return bad ? 2 : 0;
}
