// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions executed per translation
 * block, for an instruction profile of the guest kernel (scripts/vm
 * --insn-profile). perf in the guest cannot do this: its samples come from a
 * timer interrupt, so code that runs with interrupts off (rrxe's QP lock) is
 * charged to the unlock that ends it.
 *
 * It also samples where the host's time goes: every vCPU publishes the block it
 * is in, and a host thread charges a sample to each vCPU's block every 100 us.
 * A block's time includes what TCG does for it outside the translated code
 * (soft TLB refills, helpers, exits to the main loop), which instruction counts
 * cannot show; a halted vCPU charges its idle loop's last block.
 *
 * When a file req-LABEL appears in the directory given as dir=PATH (the run
 * share, /run/rrxe in the guest), the plugin writes snap-LABEL.txt there: one
 * line "ADDRESS COUNT SAMPLES EXECUTIONS SAMPLES0 SAMPLES1" per kernel block
 * start (hex address, instructions, time samples and times entered so far, and
 * the samples taken on vCPU 0 and on vCPU 1) and one line
 * "user COUNT SAMPLES 0 SAMPLES0 SAMPLES1" for all user-space blocks. The
 * difference of two snapshots is the profile of what ran between them.
 *
 * Only the few calls of QEMU's plugin API that this needs are declared here.
 * All of them are older than the API version declared (4, QEMU 9.2 and
 * later; QEMU loads plugins of an older version than its own).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PLUGIN_API_VERSION 4
#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info;
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
enum { QEMU_PLUGIN_CB_NO_REGS = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
					  int flags, void *userdata);

EXPORT int qemu_plugin_version = PLUGIN_API_VERSION;

/* Kernel addresses on x86-64 start here (the upper half). */
#define KERNEL_START 0xffff800000000000ull

/* One translation of a block; a block translated again gets another. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t executed; /* instructions, updated atomically by the vCPUs */
	uint64_t samples; /* written by the sampling thread only */
	uint64_t samples_on[2]; /* of them, on vCPU 0 and 1 */
	struct block *next;
};

/* The block each vCPU last entered; more vCPUs than this are not sampled. */
#define MAX_VCPUS 64
#define SAMPLE_NS 100000
static struct block *current_block[MAX_VCPUS];

static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[4096];

static void block_executed(unsigned int vcpu_index, void *userdata)
{
	struct block *b = userdata;

	__atomic_fetch_add(&b->executed, b->insns, __ATOMIC_RELAXED);
	if (vcpu_index < MAX_VCPUS)
		__atomic_store_n(&current_block[vcpu_index], b, __ATOMIC_RELAXED);
}

/* Blocks are never freed, so a published pointer stays valid. */
static void *sample_time(void *arg)
{
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += SAMPLE_NS;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		for (int i = 0; i < MAX_VCPUS; i++) {
			struct block *b = __atomic_load_n(&current_block[i], __ATOMIC_RELAXED);

			if (!b)
				continue;
			__atomic_store_n(&b->samples, b->samples + 1, __ATOMIC_RELAXED);
			if (i < 2)
				__atomic_store_n(&b->samples_on[i], b->samples_on[i] + 1,
						 __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		return;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_executed, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* Writes snap-LABEL.txt, via a temporary name so a reader never sees half. */
static void snapshot(const char *label)
{
	char tmp[4200], path[4200];
	uint64_t user = 0, user_samples = 0, user_on[2] = { 0, 0 };
	struct block *b;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.snap-%s.tmp", dir, label);
	snprintf(path, sizeof(path), "%s/snap-%s.txt", dir, label);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&blocks_lock);
	b = blocks;
	pthread_mutex_unlock(&blocks_lock);
	/* The list only grows at its head, so walking from a read head is safe. */
	for (; b; b = b->next) {
		uint64_t n = __atomic_load_n(&b->executed, __ATOMIC_RELAXED);
		uint64_t t = __atomic_load_n(&b->samples, __ATOMIC_RELAXED);
		uint64_t t0 = __atomic_load_n(&b->samples_on[0], __ATOMIC_RELAXED);
		uint64_t t1 = __atomic_load_n(&b->samples_on[1], __ATOMIC_RELAXED);

		if (!n && !t)
			continue;
		if (b->vaddr < KERNEL_START) {
			user += n;
			user_samples += t;
			user_on[0] += t0;
			user_on[1] += t1;
		} else {
			fprintf(f, "%llx %llu %llu %llu %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)n, (unsigned long long)t,
				(unsigned long long)(b->insns ? n / b->insns : 0),
				(unsigned long long)t0, (unsigned long long)t1);
		}
	}
	fprintf(f, "user %llu %llu 0 %llu %llu\n", (unsigned long long)user,
		(unsigned long long)user_samples, (unsigned long long)user_on[0],
		(unsigned long long)user_on[1]);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* Answers each req-LABEL once, checking ten times a second. */
static void *watch_requests(void *arg)
{
	for (;;) {
		struct dirent *de;
		DIR *d;

		usleep(100000);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			char done[4200];

			if (strncmp(de->d_name, "req-", 4))
				continue;
			snprintf(done, sizeof(done), "%s/snap-%s.txt", dir, de->d_name + 4);
			if (access(done, F_OK) != 0)
				snapshot(de->d_name + 4);
		}
		closedir(d);
	}
	return NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info *info, int argc,
			       char **argv)
{
	pthread_t t;

	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
	if (!dir[0]) {
		fprintf(stderr, "tbprof: needs dir=PATH\n");
		return -1;
	}
	if (pthread_create(&t, NULL, watch_requests, NULL))
		return -1;
	pthread_detach(t);
	if (pthread_create(&t, NULL, sample_time, NULL))
		return -1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
	return 0;
}
