/*
 * tichaos run --repeat N, --until-fail: one suite again and again, each
 * iteration a child tichaos (runner/job.h) with a seed of its own, so a
 * flaky failure shows within one command and the seed that shows it is
 * named. Iterations run one after another on the same ports; one TAP
 * stream holds a subtest per iteration, the plan at the end (how many ran
 * is known only then) and a summary; the JUnit file a testsuite per
 * iteration.
 *
 * What is kept: every run that did not pass, whole, and the last run
 * that passed; the directory of a passing run goes once a later one
 * passes too, so 500 iterations leave their failures and one pass to
 * compare them with, not 500 directories.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/suite.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/rand.h"
#include "runner/job.h"
#include "runner/kinds.h"
#include "runner/repeat.h"
#include "runner/runner.h"

/* What the iterations came to, for the summary. */
struct tally {
	int64_t runs, failed, interrupted, skipped;
	struct buf seeds;	/* the failing iterations' seeds */
	char kept[PATH_MAX];	/* the last passing run's directory */
	char stop[128];		/* why it stopped short, or "" */
	int rc;
	int passed;		/* signals passed on to children */
};

/* Run the job to its end, passing signals on. */
static void wait_run(struct job *j, struct tally *t)
{
	for (;;) {
		struct pollfd pf[2];

		job_pass_signals(j, 1, &t->passed);
		job_poll_fds(j, pf);
		if (poll(pf, 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			/* Not to be: stop reading, the child gets EPIPE. */
			close(j->out);
			close(j->err);
			j->out = j->err = -1;
		}
		if (job_read(j, pf))
			break;
	}
	job_finish(j);
}

/* A passing run's directory goes once a later one passed too. */
static void keep_dirs(struct tally *t, const struct job *j, const char *dir)
{
	struct err e = ERR_INIT;

	if (j->code != EXIT_PASS || job_skipped(j) || !dir[0])
		return;
	if (t->kept[0] && proc_remove_tree(t->kept, &e))
		log_warn("%s", e.msg);
	else if (t->kept[0])
		/* The stream named it: say it is gone, and why. */
		printf("  # run directory removed: %s (a later run passed "
		       "too)\n", t->kept);
	snprintf(t->kept, sizeof(t->kept), "%s", dir);
}

/* Iteration `i` of the suite called `name`, with `seed`. */
static void iteration(const char *path, const char *name, int64_t i,
		      uint64_t seed, const struct repeat_options *r,
		      struct tally *t, struct buf *junit, double sum[5])
{
	const char *args[32];
	char seed_text[32], dir[PATH_MAX];
	struct job j;
	struct err e = ERR_INIT;
	int n = 0;

	snprintf(seed_text, sizeof(seed_text), "%llu",
		 (unsigned long long)seed);
	args[n++] = "--seed";
	args[n++] = seed_text;
	for (size_t k = 0; r->pass[k] && n < 28; k++)
		args[n++] = r->pass[k];
	args[n] = NULL;
	job_init(&j, path);
	snprintf(j.name, sizeof(j.name), "%.90s seed %.20s", name,
		 seed_text);
	if (job_start(&j, args, &e)) {
		log_error("%s: %s", j.name, e.msg);
		job_failed(&j, EXIT_INFRA, e.msg);
	} else {
		wait_run(&j, t);
	}
	job_dir(&j, dir, sizeof(dir));
	job_junit(&j, dir, junit, sum);
	job_tap(&j, (int)i, dir);
	keep_dirs(t, &j, dir);
	t->runs++;
	t->rc = job_worse(t->rc, j.code);
	if (j.code == EXIT_INTERRUPTED) {
		t->interrupted++;
		snprintf(t->stop, sizeof(t->stop), "interrupted");
	} else if (job_skipped(&j)) {
		t->skipped++;
		snprintf(t->stop, sizeof(t->stop), "run %lld was skipped, and "
			 "so would every run be", (long long)i);
	} else if (j.code) {
		t->failed++;
		buf_printf(&t->seeds, NULL, " %s", seed_text);
	}
	if (!t->stop[0] && j.code == EXIT_USAGE)
		snprintf(t->stop, sizeof(t->stop), "run %lld was refused (exit "
			 "2), and so would every run be", (long long)i);
	else if (!t->stop[0] && j.code && r->until_fail)
		snprintf(t->stop, sizeof(t->stop), "run %lld failed "
			 "(--until-fail)", (long long)i);
	job_release(&j);
}

/* The plan, the summary and why it stopped short. */
static void summary(const struct tally *t)
{
	printf("1..%lld\n# repeat: %lld run%s, %lld failed", (long long)t->runs,
	       (long long)t->runs, t->runs == 1 ? "" : "s",
	       (long long)t->failed);
	if (t->interrupted)
		printf(", %lld interrupted", (long long)t->interrupted);
	if (t->skipped)
		printf(", %lld skipped", (long long)t->skipped);
	printf("; failing seeds: %s\n", t->seeds.len ? buf_str(&t->seeds) + 1
						    : "none");
	if (t->stop[0])
		printf("# repeat: stopped: %s\n", t->stop);
	fflush(stdout);
}

/* --dry-run: the seeds the iterations would run with. */
static int print_seeds(uint64_t base, const struct repeat_options *r,
		       struct err *e)
{
	if (!r->count) {
		err_set(e, ERR_USAGE, "run: --dry-run with --until-fail needs "
			"--repeat N: without it the runs have no number");
		return EXIT_USAGE;
	}
	if (!base) {
		err_set(e, ERR_USAGE, "run: --dry-run --repeat: the seeds are "
			"drawn as each run starts; --seed (or the suite's "
			"seed:) fixes them");
		return EXIT_USAGE;
	}
	for (int64_t i = 1; i <= r->count; i++)
		printf("iteration %lld: seed %llu\n", (long long)i,
		       (unsigned long long)rand_series_seed(base,
							    (uint64_t)i));
	return EXIT_PASS;
}

int run_repeat(const char *path, const struct repeat_options *r,
	       struct err *e)
{
	struct tally t = { .seeds = BUF_INIT, .rc = EXIT_PASS };
	struct buf junit = BUF_INIT;
	double sum[5] = { 0 };
	char name[128], d[32];
	struct suite s;
	uint64_t base;
	int64_t start;

	if (suite_load(&s, path, &tichaos_kinds, e)) {
		suite_release(&s);
		return EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "%s", s.name ? s.name : "suite");
	base = r->has_seed ? r->seed : s.seed;
	suite_release(&s);
	if (r->dry_run)
		return print_seeds(base, r, e);
	/* A testsuite for each of up to 100000 runs, 1 to 2 KB each. */
	buf_init(&junit, (size_t)1 << 30);
	job_catch_signals();
	printf("TAP version 13\n");
	fflush(stdout);
	start = clock_mono_ns();
	for (int64_t i = 1; !t.stop[0] && (!r->count || i <= r->count); i++) {
		if (job_signals()) {
			snprintf(t.stop, sizeof(t.stop), "interrupted");
			t.rc = EXIT_INTERRUPTED;
			break;
		}
		if (r->budget_ns && clock_mono_ns() - start >= r->budget_ns) {
			snprintf(t.stop, sizeof(t.stop), "the budget of %s is "
				 "spent", format_duration(r->budget_ns, d,
							  sizeof(d)));
			break;
		}
		iteration(path, name, i, base ? rand_series_seed(base,
								 (uint64_t)i)
					       : rand_fresh_seed(), r, &t,
			  &junit, sum);
	}
	summary(&t);
	if (job_write_junit(r->junit, &junit, sum, e))
		t.rc = job_worse(t.rc, EXIT_INFRA);
	buf_release(&junit);
	buf_release(&t.seeds);
	return t.rc;
}
