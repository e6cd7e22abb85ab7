/* plan_internal.h: what the plan's reader (plan.c) and writer (plan_write.c) share: the
 * format's first line. Private to lib/plan. */
#ifndef RAMPLACE_PLAN_INTERNAL_H
#define RAMPLACE_PLAN_INTERNAL_H

#define PLAN_MAGIC "ramplace-plan"
#define PLAN_VERSION 1

#endif
