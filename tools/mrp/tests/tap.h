/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal test harness: each TEST() prints "ok - name" or "not ok - name". */
#ifndef MRP_TAP_H
#define MRP_TAP_H

#include <stdio.h>

static int tap_pass, tap_fail, tap_cur_fail;
static const char *tap_cur;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			tap_cur_fail++;					\
			fprintf(stderr, "  %s:%d: %s: check failed: %s: ", \
				__FILE__, __LINE__, tap_cur, #cond);	\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	CHECK((long long)(a) == (long long)(b), "%lld != %lld",	\
	      (long long)(a), (long long)(b))

static inline void tap_run(const char *name, void (*fn)(void))
{
	tap_cur = name;
	tap_cur_fail = 0;
	fn();
	if (tap_cur_fail) {
		tap_fail++;
		printf("not ok - %s\n", name);
	} else {
		tap_pass++;
		printf("ok - %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn) tap_run(#fn, fn)

static inline int tap_done(void)
{
	printf("%d passed, %d failed\n", tap_pass, tap_fail);
	return tap_fail ? 1 : 0;
}

#endif
