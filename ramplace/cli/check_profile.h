/* check_profile.h: `ramplace check --profile NEW.db [--baseline OLD.db]` (check_profile.c). */
#ifndef RAMPLACE_CHECK_PROFILE_H
#define RAMPLACE_CHECK_PROFILE_H

#include <stddef.h>
#include "ramplace/error.h"

/* What the move achieved: the relinked firmware's modeled cycles from new_db (exact counts and
 * stall cycles of the QEMU plugin's model=), against baseline_db's (the profile the plans were
 * made from; NULL: not compared), and against what the plans predicted (baseline's cycles less
 * the stall cycles of every planned function). Fails when new_db has no stall cycles, or the
 * two profiles' models differ. */
int check_profile_report(const char *new_db, const char *baseline_db, const char *const *plans, size_t nplans, rp_err *err);

#endif
