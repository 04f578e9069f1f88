// SPDX-License-Identifier: GPL-2.0
/*
 * mrpd's config and state files (mrp_conf_read()): lines that are read,
 * lines that are refused with FILE:LINE, what mrpd writes read back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrp_in_sm.h"
#include "mrp_sm.h"
#include "mrp_util.h"
#include "tap.h"

static char path[64];
static struct mrp_conf C;
static char err[400];

/* Write @text to a new file and read it back: mrp_conf_read()'s value */
static int conf_of(const char *text)
{
	FILE *f;
	int fd, e;

	snprintf(path, sizeof(path), "/tmp/test_conf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	fputs(text, f);
	fclose(f);
	err[0] = 0;
	e = mrp_conf_read(path, &C, 200, err, sizeof(err));
	unlink(path);
	return e;
}

/* @err is "FILE:@line: @why..." */
static int err_at(unsigned line, const char *why)
{
	char want[300];

	snprintf(want, sizeof(want), "%s:%u: %s", path, line, why);
	return !strncmp(err, want, strlen(want));
}

static void rings_read(void)
{
	CHECK_EQ(conf_of("# comment\n\n  \t\n"
			 "br0 ring 1 primary p0 secondary p1 role mrc # x\n"
			 "add br1 ring 2 primary p2 secondary p3 role mrm "
			 "profile 10\r\n"), 0);
	CHECK_EQ(C.n, 2);
	CHECK(!strcmp(C.a[0].br, "br0") && C.a[0].id == 1 &&
	      !strcmp(C.a[0].s, "p1") && C.a[0].role == MRP_ROLE_MRC &&
	      C.a[0].profile == 200, "first ring: default profile");
	CHECK(!strcmp(C.a[1].br, "br1") && C.a[1].id == 2 &&
	      C.a[1].profile == 10 && C.a[1].role == MRP_ROLE_MRM,
	      "second ring, with add and CRLF");
	CHECK_EQ(mrp_conf_read("/nonexistent/mrpd.conf", &C, 200, err,
			       sizeof(err)), -ENOENT);
}

static void ring_errors(void)
{
	char big[MRPD_MAX_LINE + 64];
	struct sbuf b;
	unsigned i;

	CHECK_EQ(conf_of("br0 ring 1 primary p0 secondary p1 role mrc\n"
			 "\n"
			 "br0 ring 2 primary p0 secondary p1 role manager\n"),
		 -EINVAL);
	CHECK(err_at(3, "bad value 'manager' for role"), "%s", err);
	CHECK_EQ(C.n, 0);
	CHECK_EQ(conf_of("br0 ring 1 primary p0 secondary p1 role mrc\n"
			 "add br0 ring 1 primary p2 secondary p3 role mrm\n"),
		 -EINVAL);
	CHECK(err_at(2, "ring 1 of br0 again"), "%s", err);
	memset(big, 'x', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = 0;
	CHECK_EQ(conf_of(big), -EINVAL);
	CHECK(err_at(1, "line too long"), "%s", err);
	CHECK_EQ(conf_of("br0 ring 1 a b c d e f g h i j k l m n o p q r s t "
			 "u v w x y z 1 2 3 4 5 6 7\n"), -EINVAL);
	CHECK(err_at(1, "too many words"), "%s", err);
	sb_init(&b);
	for (i = 0; i <= MRPD_MAX_RINGS; i++)
		sb_printf(&b, "br0 ring %u primary p0 secondary p1 role mrc\n",
			  i);
	CHECK_EQ(conf_of(b.s), -EINVAL);
	CHECK(err_at(MRPD_MAX_RINGS + 1, "more than 64 rings"), "%s", err);
	sb_free(&b);
}

int main(void)
{
	RUN(rings_read);
	RUN(ring_errors);
	return tap_done();
}
