/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the "hipsvm-report/4" document (src/shim/report.c, src/shim/stats.c,
 * docs/report.md): exactly the documented keys, in the documented order.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/report.h"

static struct hipsvm_stats st;

static const char golden[] =
	"{\"schema\":\"hipsvm-report/4\",\"pid\":42,\"program\":\"/bin/p\\\"q\","
	"\"host\":\"node7\",\"rank\":\"3\",\"rocr_visible_devices\":\"\",\"hip_visible_devices\":\"6,7\","
	"\"duration_ns\":7,\"runtime\":\"sim\",\"policy\":\"quota=1:1024\","
	"\"hook\":{\"path\":\"@hipsvm-sim.42\",\"state\":\"connected\",\"version\":1},"
	"\"devices\":["
	"{\"index\":0,\"allocations\":1,\"frees\":1,\"live_bytes\":0,\"peak_bytes\":100,"
	"\"quota_bytes\":0,\"checkpoints_set\":0,\"drains\":0,\"drain_timeouts\":0,"
	"\"drain_ns\":{\"count\":0,\"median\":0,\"max\":0,\"total\":0,\"hist_lo\":0,\"hist\":[]},"
	"\"faults\":{\"raised\":5,\"handled\":4,\"dropped\":1,\"real\":0}},"
	"{\"index\":1,\"allocations\":1,\"frees\":0,\"live_bytes\":300,\"peak_bytes\":300,"
	"\"quota_bytes\":1024,\"checkpoints_set\":2,\"drains\":3,\"drain_timeouts\":1,"
	"\"drain_ns\":{\"count\":3,\"median\":512,\"max\":5000,\"total\":6600,"
	"\"hist_lo\":9,\"hist\":[2,0,0,1]},"
	"\"faults\":{\"raised\":0,\"handled\":0,\"dropped\":0,\"real\":0}}],"
	"\"contexts\":["
	"{\"id\":\"host_context\",\"devices\":[0,1],\"allocations\":1,\"frees\":1,"
	"\"live_bytes\":0,\"peak_bytes\":100,\"unmaps_coordinated\":2},"
	"{\"id\":\"device:0\",\"devices\":[0],\"allocations\":0,\"frees\":0,\"live_bytes\":0,"
	"\"peak_bytes\":0,\"unmaps_coordinated\":0},"
	"{\"id\":\"device:1\",\"devices\":[1],\"allocations\":1,\"frees\":0,\"live_bytes\":300,"
	"\"peak_bytes\":300,\"unmaps_coordinated\":0}],"
	"\"routing\":{\"as_hip\":1,\"managed_local\":1,\"oversubscribed\":0,\"mapped_all\":0,"
	"\"quota_denied\":3},\"hip_memory\":{\"pool_trims\":0,\"pools_destroyed\":0,\"pool_exports\":0,"
	"\"vmm_reserves\":0,\"vmm_maps\":0,\"vmm_frees\":0},"
	"\"unmaps\":{\"tracked\":4,\"coordinated\":3,\"uncoordinated\":1,\"partial\":0,"
	"\"live_svm_unmapped\":1,\"live_svm_unmapped_bytes\":4096,\"reentrant_skipped\":1,\"refused\":0,\"freed_after_unmap\":0,\"by_hip\":0},"
	"\"errors\":{\"runtime_errors\":2,\"unknown_pointer_frees\":1,\"trace_events_lost\":0},"
	"\"apis\":{\"hipMallocManaged\":{\"calls\":1,\"bytes\":100},\"hipFree\":{\"calls\":1},"
	"\"hipMemCreate\":{\"calls\":1,\"bytes\":300}}}\n";

static void fill(struct hipsvm_policy *p, struct hipsvm_report_meta *m)
{
	struct hipsvm_reply r;

	hipsvm_stats_reset(&st);
	cr_assert_eq(hipsvm_policy_parse("quota=1:1K", p, NULL, 0), 0);
	hipsvm_stats_alloc(&st, HIPSVM_CTX_HOST, 0, 100, HIPSVM_ROUTE_AS_HIP);
	hipsvm_stats_release(&st, HIPSVM_CTX_HOST, 0, 100, true);
	hipsvm_stats_alloc(&st, 1, 1, 300, HIPSVM_ROUTE_MANAGED_LOCAL);
	hipsvm_stats_add(&st.host.unmaps_coordinated, 2);
	hipsvm_stats_add(&st.dev[1].checkpoints_set, 2);
	hipsvm_stats_drain(&st, 1, 600, false);
	hipsvm_stats_drain(&st, 1, 1000, false);
	hipsvm_stats_drain(&st, 1, 5000, true);
	hipsvm_stats_add(&st.quota_denied, 3);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_TRACKED], 4);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_COORDINATED], 3);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_UNCOORDINATED], 1);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_LIVE_SVM], 1);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_LIVE_SVM_BYTES], 4096);
	hipsvm_stats_add(&st.unmap[HIPSVM_UNMAP_REENTRANT_SKIPPED], 1);
	hipsvm_stats_add(&st.error[HIPSVM_ERR_RUNTIME], 2);
	hipsvm_stats_add(&st.error[HIPSVM_ERR_UNKNOWN_POINTER_FREE], 1);
	hipsvm_stats_api(&st, HIPSVM_API_MALLOC_MANAGED, 100);
	hipsvm_stats_api(&st, HIPSVM_API_FREE, 0);
	hipsvm_stats_api(&st, HIPSVM_API_MEM_CREATE, 300);

	memset(&r, 0, sizeof(r));
	r.ntok = 5;
	strcpy(r.tok[0].key, "g0.faults_raised");
	strcpy(r.tok[0].val, "5");
	strcpy(r.tok[1].key, "g0.faults_handled");
	strcpy(r.tok[1].val, "0x4");
	strcpy(r.tok[2].key, "g0.faults_dropped");
	strcpy(r.tok[2].val, "1");
	strcpy(r.tok[3].key, "g0.ring_overflows");	/* not ours */
	strcpy(r.tok[3].val, "9");
	strcpy(r.tok[4].key, "g77.faults_raised");	/* out of range */
	strcpy(r.tok[4].val, "9");
	cr_expect_eq(hipsvm_report_apply_faults(&st, &r), 1);

	memset(m, 0, sizeof(*m));
	m->pid = 42;
	m->program = "/bin/p\"q";
	m->host = "node7";
	m->rank = "3";
	m->hip_visible = "6,7";	/* rocr_visible NULL: written as "" */
	m->duration_ns = 7;
	m->runtime = "sim";
	m->policy = "quota=1:1024";
	m->hook_path = "@hipsvm-sim.42";
	m->hook_state = "connected";
	m->hook_version = 1;
	m->ndev = 2;
	m->pol = p;
}

Test(report, golden_document)
{
	static char buf[16384];
	struct hipsvm_policy p;
	struct hipsvm_report_meta m;
	int n;

	fill(&p, &m);
	n = hipsvm_report_format(&st, &m, buf, sizeof(buf));
	cr_assert_eq(n, (int)strlen(golden), "%s", buf);
	cr_expect_str_eq(buf, golden);
}

Test(report, too_small_is_enospc)
{
	static char buf[16384];
	struct hipsvm_policy p;
	struct hipsvm_report_meta m;
	size_t cap;

	fill(&p, &m);
	for (cap = 0; cap < strlen(golden) + 1; cap += 97)
		cr_expect_eq(hipsvm_report_format(&st, &m, buf, cap), -ENOSPC, "cap %zu", cap);
	cr_expect_eq(hipsvm_report_format(&st, &m, buf, strlen(golden)), -ENOSPC);
	cr_expect_eq(hipsvm_report_format(&st, &m, buf, strlen(golden) + 1), (int)strlen(golden));
}

Test(report, devices_seen_beyond_known_count)
{
	static char buf[16384];
	struct hipsvm_policy p;
	struct hipsvm_report_meta m;

	fill(&p, &m);
	m.ndev = 0;
	hipsvm_stats_alloc(&st, 2, 2, 1, HIPSVM_ROUTE_AS_HIP);
	cr_expect_eq(hipsvm_report_ndev(&st, 0), 3);
	cr_assert_gt(hipsvm_report_format(&st, &m, buf, sizeof(buf)), 0);
	cr_expect(strstr(buf, "{\"index\":2,"));
	cr_expect(strstr(buf, "\"id\":\"device:2\""));
}

Test(report, error_reply_ignored)
{
	struct hipsvm_reply r;

	memset(&r, 0, sizeof(r));
	r.status = -EINVAL;
	r.ntok = 1;
	strcpy(r.tok[0].key, "g0.faults_raised");
	strcpy(r.tok[0].val, "5");
	hipsvm_stats_reset(&st);
	cr_expect_eq(hipsvm_report_apply_faults(&st, &r), 0);
	cr_expect_eq(st.dev[0].faults_raised, 0);
}

Test(stats, drain_median_is_log2_bucket)
{
	hipsvm_stats_reset(&st);
	cr_expect_eq(hipsvm_stats_drain_median(&st.dev[0]), 0);
	hipsvm_stats_drain(&st, 0, 0, false);
	cr_expect_eq(hipsvm_stats_drain_median(&st.dev[0]), 0);
	hipsvm_stats_drain(&st, 0, 3000, false);	/* bucket 2048 */
	hipsvm_stats_drain(&st, 0, 3500, false);
	cr_expect_eq(hipsvm_stats_drain_median(&st.dev[0]), 2048);
	cr_expect_eq(st.dev[0].drain_max, 3500);
	cr_expect_eq(st.dev[0].drain_total, 6500);
	hipsvm_stats_drain(&st, 0, UINT64_MAX, true);
	cr_expect_eq(st.dev[0].drain_hist[HIPSVM_STATS_HIST - 1], 1);
	cr_expect_eq(st.dev[0].drain_timeouts, 1);
}

/* ---- hipsvm_report_save: never through a link, never half a document ---- */

static void slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

Test(report, save_replaces_a_planted_link_not_its_target)
{
	char dir[] = "/tmp/hipsvm-reportsave-XXXXXX", target[64], link[64], buf[64];
	struct stat st;
	int fd;

	cr_assert(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(link, sizeof(link), "%s/report.json", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	cr_assert_eq(write(fd, "precious\n", 9), 9);
	close(fd);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(hipsvm_report_save(link, "{\"a\":1}\n", 8), 0);
	slurp(target, buf, sizeof(buf));
	cr_expect_str_eq(buf, "precious\n", "the link's target is untouched");
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "the link itself was replaced by the report");
	cr_expect_eq(st.st_mode & 0777, 0600);
	slurp(link, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"a\":1}\n");
	cr_expect_eq(entries(dir), 2, "no temporary file left behind");
	unlink(link);
	unlink(target);
	rmdir(dir);
}

Test(report, save_that_fails_leaves_the_old_report_and_no_temporary)
{
	char dir[] = "/tmp/hipsvm-reportsave-XXXXXX", sub[64], buf[64];

	cr_assert(mkdtemp(dir));
	/* a directory at the path: rename refuses, the directory stays */
	snprintf(sub, sizeof(sub), "%s/r.json", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_expect_lt(hipsvm_report_save(sub, "{}\n", 3), 0);
	cr_expect_eq(entries(dir), 1, "only the directory, no temporary");
	rmdir(sub);
	/* an earlier report is replaced whole */
	cr_assert_eq(hipsvm_report_save(sub, "{\"old\":1}\n", 10), 0);
	cr_assert_eq(hipsvm_report_save(sub, "{}\n", 3), 0);
	slurp(sub, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{}\n");
	unlink(sub);
	rmdir(dir);
}
