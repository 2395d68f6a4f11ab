#include "checkers/checker.h"

#include <pthread.h>

extern const struct checker_type checker_append;
extern const struct checker_type checker_bank;
extern const struct checker_type checker_consistency;
extern const struct checker_type checker_ids;
extern const struct checker_type checker_logscan;
extern const struct checker_type checker_progress;
extern const struct checker_type checker_syncpoint;

/* The only place a checker kind is added. */
const struct checker_type *const checker_types[] = {
	&checker_append,
	&checker_bank,
	&checker_consistency,
	&checker_ids,
	&checker_logscan,
	&checker_progress,
	&checker_syncpoint,
	NULL,
};

const struct kind *checker_kind(size_t i)
{
	return i < REGISTRY_LEN(checker_types) ? &checker_types[i]->kind
					       : NULL;
}

/* Filled once: every kind's drawer, and the end after them. */
static struct figure_drawer drawers_all[sizeof(checker_types) /
					sizeof(checker_types[0])];
static pthread_once_t drawers_once = PTHREAD_ONCE_INIT;

static void fill_drawers(void)
{
	size_t k = 0;

	for (size_t n = 0; checker_types[n]; n++)
		if (checker_types[n]->draw)
			drawers_all[k++] = (struct figure_drawer){
				checker_types[n]->kind.name,
				checker_types[n]->draw };
	drawers_all[k] = (struct figure_drawer){ NULL, NULL };
}

const struct figure_drawer *checker_drawers(void)
{
	pthread_once(&drawers_once, fill_drawers);
	return drawers_all;
}
