/*
 * The progress line of a run: elapsed of total, ok operations a second,
 * errors, faults in effect, and how far replication is behind (the
 * replica's lag, or a stopped replica's error; the TiCDC changefeed's
 * checkpoint).
 */
#include "runner/run_state.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"
#include "lib/parse.h"

/* Characters of the progress bar on a terminal. */
#define PROGRESS_BAR 20

/*
 * On TiCDC, the changefeed whose lag the progress line shows: the first
 * the suite's checks name (their `changefeed` option, whatever their
 * kind), else the topology's or "tichaos"; NULL without TiCDC captures.
 */
static const char *cdc_changefeed(const struct state *st)
{
	const char *asked = NULL;

	if (!cluster_ticdc(&st->cluster))
		return NULL;
	for (size_t j = 0; j < st->suite.nchecks && !asked; j++) {
		const struct optval *v = suite_opt(&st->suite.checks[j],
						   "changefeed");

		asked = v && v->set ? v->s : NULL;
	}
	return cluster_changefeed_id(&st->cluster, asked);
}

/*
 * One progress line: elapsed/total, ok operations per second since the
 * last line, errors, faults in effect, replication lag (the local
 * replica's, or the TiCDC changefeed checkpoint's).
 */
void run_progress(struct state *st, int64_t elapsed, int final,
		  struct pace *pace)
{
	uint64_t ok = 0, errors = 0, active = 0;
	char a[32], b[32], lag[400] = "";
	double rate;
	size_t off = 0;

	for (size_t i = 0; i < st->nworkers; i++) {
		ok += run_load(&st->workers[i].ok);
		errors += run_load(&st->workers[i].fail) +
			  run_load(&st->workers[i].info);
	}
	/* Injections that are healed later (kill, pause) and not yet; a
	 * failed one that broke something is healed too. */
	for (size_t i = 0; st->nemesis_started && i < st->suite.nfaults; i++)
		if (fault_type_of(&st->suite.faults[i])->heal)
			active += run_load(&st->nemesis.counts[i].injected) +
				  run_load(&st->nemesis.counts[i].failed_broke) -
				  run_load(&st->nemesis.counts[i].healed) -
				  run_load(&st->nemesis.counts[i].heal_failed);
	for (size_t i = 0; i < st->cluster.ncomps && off < sizeof(lag); i++) {
		const struct component *c = &st->cluster.comps[i];
		struct replica_stop stop;
		long behind;

		if (!c->replicates)
			continue;
		behind = component_lag(&st->cluster, c);
		if (behind < 0 && component_replica_stopped(&st->cluster, c,
							    &stop, NULL) == 1)
			off += (size_t)snprintf(lag + off, sizeof(lag) - off,
						"  %s STOPPED (SQL error %ld)",
						c->name, stop.sql_errno);
		else
			off += (size_t)(behind >= 0
				? snprintf(lag + off, sizeof(lag) - off,
					   "  lag %s %lds", c->name, behind)
				: snprintf(lag + off, sizeof(lag) - off,
					   "  lag %s ?", c->name));
	}
	if (cdc_changefeed(st)) {
		struct changefeed cf;
		int odd;

		/* A TSO's physical part is its milliseconds >> 18; one
		 * ahead of our clock (another host's) is no lag. A
		 * changefeed that is not normal says so, with its error. */
		if (!cluster_changefeed(&st->cluster, cdc_changefeed(st), &cf,
					NULL)) {
			int64_t at = (int64_t)(cf.checkpoint_ts >> 18);

			odd = strcmp(cf.state, "normal") != 0;
			snprintf(lag + off, sizeof(lag) - off, "  lag "
				 "changefeed %s %llds%s%s%s%s%s",
				 cdc_changefeed(st),
				 (long long)(clock_wall_ms() > at
					     ? (clock_wall_ms() - at) / 1000
					     : 0), odd ? " (" : "",
				 odd ? cf.state : "",
				 odd && cf.error[0] ? ": " : "",
				 odd ? cf.error : "", odd ? ")" : "");
		} else {
			snprintf(lag + off, sizeof(lag) - off, "  lag "
				 "changefeed %s ?", cdc_changefeed(st));
		}
	}
	rate = elapsed > pace->at ? (double)(ok - pace->ok) * NS_PER_SEC /
				    (double)(elapsed - pace->at) : 0;
	if (final)
		rate = elapsed > 0 ? (double)ok * NS_PER_SEC / (double)elapsed
				   : 0;
	pace->ok = ok;
	pace->at = elapsed;
	format_duration(elapsed / NS_PER_SEC * NS_PER_SEC, a, sizeof(a));
	format_duration(st->plan.duration_ns, b, sizeof(b));
	if (isatty(2) && !final) {
		char bar[PROGRESS_BAR + 1], text[600];
		int64_t d = st->plan.duration_ns > 0 ? st->plan.duration_ns : 1;
		int full = (int)(elapsed >= d ? PROGRESS_BAR
				 : elapsed * PROGRESS_BAR / d);

		memset(bar, '#', (size_t)full);
		memset(bar + full, '.', (size_t)(PROGRESS_BAR - full));
		bar[PROGRESS_BAR] = '\0';
		snprintf(text, sizeof(text), "%s [%s] %s/%s  %.0f ops/s  "
			 "errors %llu  faults %llu active%s", st->suite.name,
			 bar, a, b, rate, (unsigned long long)errors,
			 (unsigned long long)active, lag);
		log_status(text);
	} else
		log_info("%s %s/%s  %.0f ops/s  errors %llu  faults %llu "
			 "active%s", st->suite.name, a, b, rate,
			 (unsigned long long)errors,
			 (unsigned long long)active, lag);
}
