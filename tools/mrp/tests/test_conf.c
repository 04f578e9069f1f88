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

/* A line's second word tells an interconnection from a ring. */
static void interconnections_read(void)
{
	CHECK_EQ(conf_of("br0 interconnection 5 ring 1 port i0 role mim\n"
			 "br0 ring 1 primary p0 secondary p1 role mrc\n"
			 "add br1 interconnection 0 ring 2 port i1 role mic "
			 "profile 500 # MIC\n"), 0);
	CHECK_EQ(C.n, 1);
	CHECK_EQ(C.nin, 2);
	CHECK(!strcmp(C.in[0].br, "br0") && C.in[0].id == 5 &&
	      C.in[0].ring == 1 && !strcmp(C.in[0].port, "i0") &&
	      C.in[0].role == MRP_IN_ROLE_MIM && C.in[0].profile == 200 &&
	      C.in[0].mode == MRP_IN_MODE_RC, "first, before its ring");
	CHECK(!strcmp(C.in[1].br, "br1") && C.in[1].id == 0 &&
	      C.in[1].ring == 2 && C.in[1].role == MRP_IN_ROLE_MIC &&
	      C.in[1].profile == 500, "second, with add and a comment");
	CHECK(!strcmp(C.a[0].br, "br0") && C.a[0].id == 1, "the ring");
	/* the same ID on another bridge, another ring of the same bridge */
	CHECK_EQ(conf_of("br0 interconnection 5 ring 1 port i0 role mim\n"
			 "br1 interconnection 5 ring 1 port i0 role mim\n"
			 "br0 interconnection 6 ring 2 port i1 role mic\n"), 0);
	CHECK_EQ(C.nin, 3);
}

static void interconnection_errors(void)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *why;
	} t[] = {
		{ "br0 ring 1 primary p0 secondary p1 role mrc\n"
		  "br0 interconnection 5 ring 1 port i0 role mrm\n",
		  2, "bad value 'mrm' for role" },
		{ "\nbr0 interconnection 5 ring 1 port i0 role mim mode lc\n",
		  2, "interconnection mode LC" },
		{ "br0 interconnection 70000 ring 1 port i0 role mim\n",
		  1, "bad interconnection ID '70000'" },
		{ "add br0 interconnection 5 ring 1 role mim\n",
		  1, "add interconnection needs ring, port and role" },
		{ "br0 interconnection\n", 1, "usage: add BRIDGE "
		  "interconnection ID ring RID port PORT role mim|mic" },
		{ "br0 interconnection 5 ring 1 port i0 role mim profile 10\n",
		  1, "bad value '10' for profile" },
		{ "br0 interconnection 5 ring 1 port i0 role mim\n"
		  "br0 interconnection 5 ring 2 port i1 role mic\n",
		  2, "interconnection 5 of br0 again" },
		{ "br0 interconnection 5 ring 1 port i0 role mim\n"
		  "# another\n"
		  "add br0 interconnection 6 ring 1 port i1 role mic\n",
		  3, "ring 1 of br0 has interconnection 5 already "
		  "(one per ring)" },
	};
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_EQ(conf_of(t[i].text), -EINVAL);
		CHECK(err_at(t[i].line, t[i].why), "%u: %s", i, err);
		CHECK(C.n == 0 && C.nin == 0, "%u: nothing kept", i);
	}
}

static void interconnections_at_most(void)
{
	struct sbuf b;
	unsigned i;

	sb_init(&b);
	for (i = 0; i <= MRPD_MAX_RINGS; i++)
		sb_printf(&b, "br0 interconnection %u ring %u port i%u "
			  "role mic\n", i, i, i);
	CHECK_EQ(conf_of(b.s), -EINVAL);
	CHECK(err_at(MRPD_MAX_RINGS + 1, "more than 64 interconnections"),
	      "%s", err);
	sb_free(&b);
}

/*
 * The state file's line for an interconnection, every option set, as
 * mrpd writes it (mrp_in_args_format()): read back the same.
 */
static void interconnection_state_round_trip(void)
{
	char req[] = "add br7 interconnection 65535 ring 4000000000 port "
		     "eth12 role mic mode rc profile 500 interval 30000 "
		     "max-miss 4 period 2000000";
	char line[MRPD_MAX_LINE], text[MRPD_MAX_LINE + 200], *argv[40];
	struct mrp_ring_args r;
	struct mrp_in_args a;
	int argc;

	argc = mrp_split(req, argv, 40);
	CHECK_EQ(mrp_in_args_parse(argc, argv, &a, err, sizeof(err)), 0);
	mrp_in_args_format(&a, line, sizeof(line));
	snprintf(text, sizeof(text), "# mrpd: state\n%s\n", line);
	{
		char ring[] = "add br7 ring 4000000000 primary p0 secondary "
			      "p1 role mra prio 0x1000";

		argc = mrp_split(ring, argv, 40);
		CHECK_EQ(mrp_ring_args_parse(argc, argv, &r, 200, err,
					     sizeof(err)), 0);
		mrp_ring_args_format(&r, line, sizeof(line));
		strncat(text, line, sizeof(text) - strlen(text) - 2);
		strcat(text, "\n");
	}
	CHECK_EQ(conf_of(text), 0);
	CHECK(C.n == 1 && C.nin == 1, "one of each: %u %u", C.n, C.nin);
	CHECK(!memcmp(&C.in[0], &a, sizeof(a)), "interconnection read back: "
	      "%s", text);
	CHECK(!memcmp(&C.a[0], &r, sizeof(r)), "ring read back: %s", text);
	CHECK(a.interval == 30000 && a.max_miss == 4 && a.period == 2000000 &&
	      a.profile == 500 && a.role == MRP_IN_ROLE_MIC, "every option");
}

int main(void)
{
	RUN(rings_read);
	RUN(ring_errors);
	RUN(interconnections_read);
	RUN(interconnection_errors);
	RUN(interconnections_at_most);
	RUN(interconnection_state_round_trip);
	return tap_done();
}
