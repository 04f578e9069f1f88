// SPDX-License-Identifier: GPL-2.0
/*
 * mrpctl - control mrpd, or talk to the kernel's bridge MRP API directly.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_bridge.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/mrp_bridge.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mrp_nl.h"
#include "mrp_sm.h"
#include "mrp_util.h"

#define EXIT_USAGE	2
#define EXIT_TIMEOUT	3

static const char *sock_name = MRPD_DEFAULT_SOCKET;
/* seconds mrpd has to answer (a wait: on top of its own timeout) */
static uint32_t reply_timeout = 60;
static bool json;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mrpctl [-s NAME] [-t SECONDS] [-j] COMMAND ...\n"
"\n"
"Rings managed by mrpd (the daemon of this network namespace):\n"
"  mrpctl add BRIDGE ring ID primary PORT secondary PORT role mrm|mrc|mra\n"
"             [profile 10|30|200|500] [prio N] [interval US] [max-miss N]\n"
"             [period US] [react 0|1]\n"
"  mrpctl del BRIDGE ring ID\n"
"  mrpctl show [-j]\n"
"  mrpctl wait BRIDGE ring ID KEY VALUE [timeout MS]   (default 10000)\n"
"     KEY VALUE: ring open|closed, mode manager|client, state NAME,\n"
"     gone 1 (the ring was removed), or\n"
"     at least N of flushes|transitions|topo-rx|ring-open|takeovers|yields\n"
"  mrpctl ping\n"
"\n"
"Interconnections (IEC 62439-2 Ed. 2, RC mode) of rings mrpd runs:\n"
"  mrpctl add BRIDGE interconnection ID ring RID port PORT role mim|mic\n"
"             [mode rc|lc] [profile 200|500] [interval US] [max-miss N]\n"
"             [period US]          (ID 0-65535; lc is refused: no kernel API)\n"
"  mrpctl del BRIDGE interconnection ID\n"
"  mrpctl wait BRIDGE interconnection ID KEY VALUE [timeout MS]\n"
"     KEY VALUE: in open|closed (MIM), state NAME, gone 1, or at least N\n"
"     of transitions|opens|closes|loss-rx|regain-rx|topo-tx|topo-rx|\n"
"     link-tx|link-rx|flushes\n"
"\n"
"Kernel MRP API, without mrpd:\n"
"  mrpctl kernel add BRIDGE ring ID primary PORT secondary PORT [prio N]\n"
"  mrpctl kernel del BRIDGE ring ID\n"
"  mrpctl kernel role BRIDGE ring ID mrm|mrc|mra|disabled\n"
"  mrpctl kernel state BRIDGE ring ID open|closed\n"
"  mrpctl kernel test BRIDGE ring ID interval US max-miss N period US\n"
"             [monitor]\n"
"  mrpctl kernel in-role BRIDGE ring ID in-id N port PORT mim|mic|disabled\n"
"  mrpctl kernel in-state BRIDGE in-id N open|closed\n"
"  mrpctl kernel in-test BRIDGE in-id N interval US max-miss N period US\n"
"  mrpctl kernel port-state PORT forwarding|blocked|disabled\n"
"  mrpctl kernel port-role PORT primary|secondary\n"
"  mrpctl kernel flush PORT\n"
"  mrpctl kernel show [-j]\n"
"\n"
"Loss-of-continuity events (RTM_NEWLINK with IFLA_BRPORT_MRP_RING_OPEN):\n"
"  mrpctl monitor [-j] [--count N] [--timeout MS] [--open] [--changes]\n"
"                 [-- COMMAND ARGS...]\n"
"     --count N     exit after N events          --timeout MS  give up\n"
"     --open        only events reporting open   --changes     only changes\n"
"     -- COMMAND    run COMMAND once listening (race-free triggers)\n"
"\n"
"MRP frames (EtherType 0x88E3) on the interfaces of this namespace:\n"
"  mrpctl capture [-j] [--count N] [--timeout MS] [--in|--out] [PORT...]\n"
"     one line per frame, sent (out) and received (in):\n"
"     TIME IFNAME in|out SRC > DST TYPE seq N len L [sub NAME]\n"
"     PORT...       only these interfaces (default: all)\n"
"     --in, --out   only received, only sent frames\n"
"     --count N     exit after N frames          --timeout MS  give up\n"
"\n"
"Options:\n"
"  -s, --socket NAME   mrpd control socket @NAME (default @mrpd)\n"
"  -t, --reply-timeout SECONDS\n"
"                      give up when mrpd does not answer (default 60; a\n"
"                      wait: on top of its own timeout)\n"
"  -j, --json          JSON output (show, kernel show, monitor, capture)\n"
"  -h, --help          this help     -V, --version   version\n"
"\n"
"Exit status: 0 success, 1 error reported by the kernel or mrpd,\n"
"2 bad arguments, 3 timeout (monitor, wait, capture).  See mrpctl(8).\n");
}

static int usage_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mrpctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see mrpctl --help)\n");
	return EXIT_USAGE;
}

/* ---- daemon commands ---- */

static int daemon_request(const char *line, uint32_t wait_ms)
{
	uint64_t ms = (uint64_t)reply_timeout * 1000 + wait_ms;
	struct timeval tv = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_usec = (suseconds_t)(ms % 1000) * 1000,
	};
	struct sockaddr_un sun;
	socklen_t len = mrp_ctl_addr(sock_name, &sun);
	struct sbuf b;
	char buf[4096];
	int fd, ret = 1;
	size_t n = strlen(line);
	char *end, *body;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, len) < 0) {
		fprintf(stderr, "mrpctl: cannot reach mrpd at @%s: %s "
			"(is mrpd running in this network namespace?)\n",
			sock_name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/*
	 * mrpd may have answered and closed before it read the request (a
	 * caller it does not serve): its answer still waits to be read.
	 */
	if ((send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n ||
	     send(fd, "\n", 1, MSG_NOSIGNAL) != 1) &&
	    errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "mrpctl: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	sb_init(&b);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			fprintf(stderr, "mrpctl: mrpd did not answer in %llu "
				"ms\n", (unsigned long long)ms);
			close(fd);
			sb_free(&b);
			return 1;
		}
		if (r <= 0)
			break;
		sb_printf(&b, "%.*s", (int)r, buf);
		if (b.len >= 3 && !strcmp(b.s + b.len - 3, "\n.\n"))
			break;
	}
	close(fd);
	if (!b.s || b.len < 3 || strcmp(b.s + b.len - 2, ".\n")) {
		fprintf(stderr, "mrpctl: incomplete answer from mrpd\n");
		sb_free(&b);
		return 1;
	}
	b.s[b.len - 2] = 0;	/* drop the terminating "." line */
	end = strchr(b.s, '\n');
	body = end ? end + 1 : b.s + strlen(b.s);
	if (end)
		*end = 0;
	if (!strcmp(b.s, "ok")) {
		/* mrpd passes on what the kernel warned of */
		while (!strncmp(body, "warning: ", 9)) {
			end = strchr(body, '\n');
			fprintf(stderr, "mrpctl: %.*s\n",
				end ? (int)(end - body) : (int)strlen(body),
				body);
			body = end ? end + 1 : body + strlen(body);
		}
		fputs(body, stdout);
		ret = 0;
	} else if (!strncmp(b.s, "err ", 4)) {
		char *msg = strchr(b.s + 4, ' ');

		fprintf(stderr, "mrpctl: %s\n", msg ? msg + 1 : b.s);
		if (atoi(b.s + 4) == ETIMEDOUT)
			ret = EXIT_TIMEOUT;
	} else {
		fprintf(stderr, "mrpctl: unexpected answer: %s\n", b.s);
	}
	sb_free(&b);
	return ret;
}

static int cmd_daemon(int argc, char **argv)
{
	struct sbuf b;
	uint32_t wait_ms;
	int i, ret;

	/* a malformed request is bad usage: say so before asking mrpd */
	if (!strcmp(argv[0], "add") || !strcmp(argv[0], "del") ||
	    !strcmp(argv[0], "wait")) {
		struct mrp_ring_args a;
		char err[300], key[16], val[24];
		uint32_t id, num, ms;
		int e;

		if (mrp_is_in_request(argc, argv)) {
			struct mrp_in_args ia;

			if (!strcmp(argv[0], "add"))
				e = mrp_in_args_parse(argc, argv, &ia, err,
						      sizeof(err));
			else if (!strcmp(argv[0], "del"))
				e = mrp_in_del_args_parse(argc, argv, &id, err,
							  sizeof(err));
			else
				e = mrp_in_wait_args_parse(argc, argv, &id, key,
							   sizeof(key), val,
							   sizeof(val), &num,
							   &ms, err,
							   sizeof(err));
		} else if (!strcmp(argv[0], "add"))
			e = mrp_ring_args_parse(argc, argv, &a, 200, err,
						sizeof(err));
		else if (!strcmp(argv[0], "del"))
			e = mrp_del_args_parse(argc, argv, &id, err,
					       sizeof(err));
		else
			e = mrp_wait_args_parse(argc, argv, &id, key,
						sizeof(key), val, sizeof(val),
						&num, &ms, err, sizeof(err));
		if (e)
			return usage_err("%s", err);
	} else if ((!strcmp(argv[0], "ping") ||
		    !strcmp(argv[0], "version")) && argc > 1) {
		return usage_err("%s takes no argument", argv[0]);
	}
	sb_init(&b);
	if (!strcmp(argv[0], "show")) {
		sb_printf(&b, "show %s", json ? "json" : "text");
		for (i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
				b.len = 0;
				sb_printf(&b, "show json");
			} else {
				sb_free(&b);
				return usage_err("show: unexpected '%s'",
						 argv[i]);
			}
		}
	} else {
		for (i = 0; i < argc; i++) {
			if (strpbrk(argv[i], " \t\r\n") || !argv[i][0]) {
				sb_free(&b);
				return usage_err("bad argument '%s'", argv[i]);
			}
			sb_printf(&b, "%s%s", i ? " " : "", argv[i]);
		}
	}
	if (b.oom || b.len >= MRPD_MAX_LINE) {
		sb_free(&b);
		return usage_err("request too long");
	}
	/* a wait takes its own time to answer */
	wait_ms = 0;
	if (!strcmp(argv[0], "wait")) {
		wait_ms = MRPD_WAIT_DEFAULT_MS;
		for (i = 1; i + 1 < argc; i++)
			if (!strcmp(argv[i], "timeout"))
				mrp_parse_u32(argv[i + 1], MRPD_WAIT_MAX_MS,
					      &wait_ms);
	}
	ret = daemon_request(b.s, wait_ms);
	sb_free(&b);
	return ret;
}

/* ---- kernel commands ---- */

static struct mrp_nl nl;

static int kerr(const char *what, int err)
{
	fprintf(stderr, "mrpctl: %s: %s\n", what, mrp_nl_strerror(&nl, err));
	return 1;
}

/* Success; a warning the kernel sent with its ACK is worth showing. */
static int kdone(void)
{
	if (nl.ext_msg[0])
		fprintf(stderr, "mrpctl: warning: %s\n", nl.ext_msg);
	return 0;
}

static int ifindex_of(const char *name, int *out)
{
	unsigned i = if_nametoindex(name);

	if (!i) {
		fprintf(stderr, "mrpctl: no such interface '%s'\n", name);
		return -1;
	}
	*out = (int)i;
	return 0;
}

/* BRIDGE ring ID -> ifindex, id; returns args consumed or -1 */
static int parse_br_ring(int argc, char **argv, int *br, uint32_t *id)
{
	if (argc < 3 || strcmp(argv[1], "ring")) {
		usage_err("expected BRIDGE ring ID");
		return -1;
	}
	if (!mrp_parse_u32(argv[2], UINT32_MAX, id)) {
		usage_err("bad ring id '%s'", argv[2]);
		return -1;
	}
	if (ifindex_of(argv[0], br))
		return -2;
	return 3;
}

struct find_ring {
	int br;
	uint32_t id;
	bool found;
	struct mrp_nl_ring r;
};

static void find_ring_cb(const struct mrp_nl_ring *r, void *arg)
{
	struct find_ring *f = arg;

	if (r->br_ifindex == f->br && r->ring_id == f->id) {
		f->found = true;
		f->r = *r;
	}
}

static void ifname(int ifindex, char *buf)
{
	if (!ifindex || !if_indextoname((unsigned)ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "%s", ifindex ? "?" : "-");
}

static const char *in_role_name(uint32_t role)
{
	switch (role) {
	case BR_MRP_IN_ROLE_DISABLED: return "disabled";
	case BR_MRP_IN_ROLE_MIC: return "mic";
	case BR_MRP_IN_ROLE_MIM: return "mim";
	}
	return "unknown";
}

/* "mim" "mic" "disabled" -> BR_MRP_IN_ROLE_*, -1 if unknown */
/*
 * interval US max-miss N period US [monitor]: the words of kernel test
 * and (without monitor, @monitor NULL) kernel in-test.  0, or EXIT_USAGE
 * with the reason printed.
 */
static int parse_test_words(const char *cmd, int argc, char **argv,
			    uint32_t *interval, uint32_t *max_miss,
			    uint32_t *period, bool *monitor)
{
	bool have_i = false, have_m = false, have_p = false;
	int i;

	if (monitor)
		*monitor = false;
	for (i = 0; i < argc; i++) {
		const char *k = argv[i];

		if (monitor && !strcmp(k, "monitor")) {
			*monitor = true;
			continue;
		}
		if (i + 1 >= argc)
			return usage_err("kernel %s: missing value for '%s'",
					 cmd, k);
		if (!strcmp(k, "interval")) {
			have_i = mrp_parse_u32(argv[++i], UINT32_MAX, interval);
			if (!have_i)
				return usage_err("bad interval '%s'", argv[i]);
		} else if (!strcmp(k, "max-miss")) {
			have_m = mrp_parse_u32(argv[++i], UINT32_MAX, max_miss);
			if (!have_m)
				return usage_err("bad max-miss '%s'", argv[i]);
		} else if (!strcmp(k, "period")) {
			have_p = mrp_parse_u32(argv[++i], UINT32_MAX, period);
			if (!have_p)
				return usage_err("bad period '%s'", argv[i]);
		} else {
			return usage_err("kernel %s: unknown '%s'", cmd, k);
		}
	}
	if (!have_i || !have_m || !have_p)
		return usage_err("kernel %s: needs interval US max-miss N "
				 "period US", cmd);
	return 0;
}

/*
 * BRIDGE in-id N, of kernel in-state and in-test: the kernel finds the
 * interconnection by its ID alone.  Returns the words taken, or -1
 * (usage); the bridge is looked up by the caller.
 */
static int parse_br_in_id(int argc, char **argv, uint16_t *in_id)
{
	uint32_t u;

	if (argc < 3 || strcmp(argv[1], "in-id")) {
		usage_err("expected BRIDGE in-id N");
		return -1;
	}
	if (!mrp_parse_u32(argv[2], 0xffff, &u)) {
		usage_err("bad in-id '%s' (0-65535)", argv[2]);
		return -1;
	}
	*in_id = (uint16_t)u;
	return 3;
}

static int parse_in_role(const char *s)
{
	if (!strcmp(s, "mim"))
		return BR_MRP_IN_ROLE_MIM;
	if (!strcmp(s, "mic"))
		return BR_MRP_IN_ROLE_MIC;
	if (!strcmp(s, "disabled"))
		return BR_MRP_IN_ROLE_DISABLED;
	return -1;
}

/* No interconnection, no state to tell. */
static const char *in_state_name(const struct mrp_nl_ring *r)
{
	if (!r->i_ifindex)
		return "-";
	return r->in_state == BR_MRP_IN_STATE_CLOSED ? "closed" : "open";
}

static void print_ring(const struct mrp_nl_ring *r, void *arg)
{
	char br[IF_NAMESIZE], p[IF_NAMESIZE], s[IF_NAMESIZE], in[IF_NAMESIZE];
	int *count = arg;

	ifname(r->br_ifindex, br);
	ifname(r->p_ifindex, p);
	ifname(r->s_ifindex, s);
	ifname(r->i_ifindex, in);
	if (json) {
		struct sbuf b;

		sb_init(&b);
		sb_printf(&b, "%s{\"bridge\":", *count ? "," : "");
		sb_json_str(&b, br);
		sb_printf(&b, ",\"bridge_ifindex\":%d,\"ring\":%u,"
			  "\"primary\":", r->br_ifindex, r->ring_id);
		sb_json_str(&b, p);
		sb_printf(&b, ",\"primary_ifindex\":%d,\"secondary\":",
			  r->p_ifindex);
		sb_json_str(&b, s);
		sb_printf(&b, ",\"secondary_ifindex\":%d,\"prio\":%u,"
			  "\"role\":\"%s\",\"ring_state\":\"%s\","
			  "\"test_interval\":%u,\"test_max_miss\":%u,"
			  "\"test_monitor\":%s,\"interconnect_ifindex\":%d,"
			  "\"in_role\":\"%s\",\"in_state\":\"%s\"}",
			  r->s_ifindex, r->prio,
			  mrp_role_name((enum mrp_ring_role)r->ring_role),
			  r->ring_state == MRP_RING_CLOSED ? "closed" : "open",
			  r->test_interval, r->test_max_miss,
			  r->test_monitor ? "true" : "false", r->i_ifindex,
			  in_role_name(r->in_role), in_state_name(r));
		fputs(b.s ? b.s : "", stdout);
		sb_free(&b);
	} else {
		printf("%s ring %u: role %s ring-state %s prio 0x%04x\n", br,
		       r->ring_id,
		       mrp_role_name((enum mrp_ring_role)r->ring_role),
		       r->ring_state == MRP_RING_CLOSED ? "closed" : "open",
		       r->prio);
		printf("  primary %s (%d) secondary %s (%d)\n", p,
		       r->p_ifindex, s, r->s_ifindex);
		printf("  test interval %u us max-miss %u monitor %s\n",
		       r->test_interval, r->test_max_miss,
		       r->test_monitor ? "yes" : "no");
		if (r->i_ifindex)
			printf("  interconnect %s (%d) role %s state %s\n", in,
			       r->i_ifindex, in_role_name(r->in_role),
			       in_state_name(r));
	}
	(*count)++;
}

static int cmd_kernel(int argc, char **argv)
{
	const char *c;
	int br = 0, port = 0, n, err, v;
	uint32_t id = 0, u;

	if (argc < 1)
		return usage_err("kernel: missing command");
	c = argv[0];
	argc--;
	argv++;
	err = mrp_nl_open(&nl, 0);
	if (err) {
		fprintf(stderr, "mrpctl: rtnetlink: %s\n", strerror(-err));
		return 1;
	}

	if (!strcmp(c, "show")) {
		int count = 0;

		if (argc > 1 || (argc == 1 && strcmp(argv[0], "-j") &&
				 strcmp(argv[0], "--json")))
			return usage_err("kernel show: unexpected '%s'",
					 argv[0]);
		if (argc == 1)
			json = true;
		if (json)
			printf("{\"rings\":[");
		err = mrp_nl_dump_rings(&nl, print_ring, &count);
		if (json)
			printf("]}\n");
		else if (!err && !count)
			printf("no MRP instances\n");
		return err ? kerr("dump", err) : kdone();
	}
	if (!strcmp(c, "port-state") || !strcmp(c, "port-role") ||
	    !strcmp(c, "flush")) {
		bool flush = !strcmp(c, "flush");

		if (argc != (flush ? 1 : 2))
			return usage_err("kernel %s: wrong number of "
					 "arguments", c);
		if (ifindex_of(argv[0], &port))
			return 1;
		if (flush) {
			err = mrp_nl_port_flush(&nl, port);
		} else if (c[5] == 's') {
			v = mrp_parse_port_state(argv[1]);
			if (v < 0)
				return usage_err("bad port state '%s' "
						 "(forwarding|blocked|disabled)",
						 argv[1]);
			err = mrp_nl_port_state(&nl, port, (uint32_t)v);
		} else {
			v = mrp_parse_port_role(argv[1]);
			if (v < 0)
				return usage_err("bad port role '%s' "
						 "(primary|secondary)", argv[1]);
			err = mrp_nl_port_role(&nl, port, (uint32_t)v);
		}
		return err ? kerr(c, err) : kdone();
	}

	if (!strcmp(c, "in-state") || !strcmp(c, "in-test")) {
		uint32_t interval, max_miss, period;
		const char *brname = argv[0];
		bool test = !strcmp(c, "in-test");
		uint16_t in_id;

		/* every word checked before the bridge is looked up */
		n = parse_br_in_id(argc, argv, &in_id);
		if (n < 0)
			return EXIT_USAGE;
		argc -= n;
		argv += n;
		if (test && parse_test_words("in-test", argc, argv, &interval,
					     &max_miss, &period, NULL))
			return EXIT_USAGE;
		if (!test && (argc != 1 ||
			      (v = mrp_parse_ring_state(argv[0])) < 0))
			return usage_err("kernel in-state: expected "
					 "open|closed");
		if (ifindex_of(brname, &br))
			return 1;
		if (test)
			err = mrp_nl_start_in_test(&nl, br, in_id, interval,
						   max_miss, period);
		else
			err = mrp_nl_in_state(&nl, br, in_id, (uint32_t)v);
		return err ? kerr(c, err) : kdone();
	}

	n = parse_br_ring(argc, argv, &br, &id);
	if (n == -1)
		return EXIT_USAGE;
	if (n < 0)
		return 1;
	argc -= n;
	argv += n;

	if (!strcmp(c, "add")) {
		int p = 0, s = 0, prio = -1, i;

		for (i = 0; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "primary")) {
				if (ifindex_of(argv[i + 1], &p))
					return 1;
			} else if (!strcmp(argv[i], "secondary")) {
				if (ifindex_of(argv[i + 1], &s))
					return 1;
			} else if (!strcmp(argv[i], "prio")) {
				if (!mrp_parse_u32(argv[i + 1], 0xffff, &u))
					return usage_err("bad prio '%s'",
							 argv[i + 1]);
				prio = (int)u;
			} else {
				return usage_err("kernel add: unknown '%s'",
						 argv[i]);
			}
		}
		if (i != argc || !p || !s)
			return usage_err("kernel add: needs primary PORT "
					 "secondary PORT [prio N]");
		err = mrp_nl_ring_add(&nl, br, id, p, s, prio);
		if (err == -EINVAL && !nl.ext_msg[0])
			fprintf(stderr, "mrpctl: hint: the ring id may exist "
				"already, a port may not belong to the bridge "
				"or be in another ring\n");
		return err ? kerr("add", err) : kdone();
	}
	if (!strcmp(c, "del")) {
		struct find_ring f = { br, id, false, { 0 } };

		if (argc)
			return usage_err("kernel del: unexpected '%s'",
					 argv[0]);
		err = mrp_nl_dump_rings(&nl, find_ring_cb, &f);
		if (err)
			return kerr("dump", err);
		if (!f.found) {
			fprintf(stderr, "mrpctl: no MRP ring %u on that "
				"bridge\n", id);
			return 1;
		}
		err = mrp_nl_ring_del(&nl, br, id, f.r.p_ifindex,
				      f.r.s_ifindex);
		return err ? kerr("del", err) : kdone();
	}
	if (!strcmp(c, "role")) {
		if (argc != 1 || (v = mrp_parse_role(argv[0])) < 0)
			return usage_err("kernel role: expected "
					 "mrm|mrc|mra|disabled");
		err = mrp_nl_ring_role(&nl, br, id, (uint32_t)v);
		return err ? kerr("role", err) : kdone();
	}
	if (!strcmp(c, "state")) {
		if (argc != 1 || (v = mrp_parse_ring_state(argv[0])) < 0)
			return usage_err("kernel state: expected "
					 "open|closed");
		err = mrp_nl_ring_state(&nl, br, id, (uint32_t)v);
		return err ? kerr("state", err) : kdone();
	}
	if (!strcmp(c, "test")) {
		uint32_t interval, max_miss, period;
		bool monitor;

		if (parse_test_words("test", argc, argv, &interval, &max_miss,
				     &period, &monitor))
			return EXIT_USAGE;
		err = mrp_nl_start_test(&nl, br, id, interval, max_miss,
					period, monitor);
		return err ? kerr("test", err) : kdone();
	}
	if (!strcmp(c, "in-role")) {
		/* every word checked before the port is looked up */
		if (argc != 5 || strcmp(argv[0], "in-id") ||
		    strcmp(argv[2], "port"))
			return usage_err("kernel in-role: expected in-id N "
					 "port PORT mim|mic|disabled");
		if (!mrp_parse_u32(argv[1], 0xffff, &u))
			return usage_err("bad in-id '%s' (0-65535)", argv[1]);
		v = parse_in_role(argv[4]);
		if (v < 0)
			return usage_err("kernel in-role: bad role '%s' "
					 "(mim|mic|disabled)", argv[4]);
		if (ifindex_of(argv[3], &port))
			return 1;
		err = mrp_nl_in_role(&nl, br, id, (uint16_t)u, port,
				     (uint32_t)v);
		if (err == -EINVAL && !nl.ext_msg[0])
			fprintf(stderr, "mrpctl: hint: the ring may not exist, "
				"the port may not belong to the bridge or be "
				"in a ring, or the ring may have another "
				"interconnection port (disable it first)\n");
		return err ? kerr("in-role", err) : kdone();
	}
	return usage_err("kernel: unknown command '%s'", c);
}

/* ---- monitor ---- */

/* The flags last seen on a port: any ifindex, as many as there are. */
struct mon_port {
	int ifindex;
	int last, last_in;	/* ring_open, in_open; -1 unknown */
};

struct mon {
	bool only_open, only_changes;
	long count, seen;
	struct mon_port *port;
	size_t nports, cap;
};

/* The port's entry, added (flags unknown) if new; NULL out of memory. */
static struct mon_port *mon_port(struct mon *m, int ifindex)
{
	struct mon_port *p;
	size_t i;

	for (i = 0; i < m->nports; i++)
		if (m->port[i].ifindex == ifindex)
			return &m->port[i];
	if (m->nports == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;

		p = realloc(m->port, cap * sizeof(*p));
		if (!p)
			return NULL;
		m->port = p;
		m->cap = cap;
	}
	p = &m->port[m->nports++];
	p->ifindex = ifindex;
	p->last = p->last_in = -1;
	return p;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void mon_init_cb(const struct mrp_nl_link *l, void *arg)
{
	struct mon *m = arg;
	struct mon_port *p;

	if (l->family != AF_BRIDGE || (!l->has_ring_open && !l->has_in_open))
		return;
	p = mon_port(m, l->ifindex);
	if (!p)
		return;
	if (l->has_ring_open)
		p->last = l->ring_open;
	if (l->has_in_open)
		p->last_in = l->in_open;
}

static void mon_event_cb(const struct mrp_nl_link *l, void *arg)
{
	struct mon *m = arg;
	char master[IF_NAMESIZE];
	bool changed = true;
	struct mon_port *p;

	if (l->family != AF_BRIDGE || l->type != RTM_NEWLINK ||
	    (!l->has_ring_open && !l->has_in_open))
		return;
	if (m->count && m->seen >= m->count)
		return;
	p = mon_port(m, l->ifindex);
	if (p) {
		changed = (l->has_ring_open && p->last != l->ring_open) ||
			  (l->has_in_open && p->last_in != l->in_open);
		if (l->has_ring_open)
			p->last = l->ring_open;
		if (l->has_in_open)
			p->last_in = l->in_open;
	}
	if (m->only_changes && !changed)
		return;
	if (m->only_open && !l->ring_open && !l->in_open)
		return;
	ifname(l->master, master);
	if (json) {
		struct sbuf b;

		sb_init(&b);
		sb_printf(&b, "{\"time\":%.6f,\"ifindex\":%d,\"ifname\":",
			  mono_now(), l->ifindex);
		sb_json_str(&b, l->name);
		sb_printf(&b, ",\"master\":");
		sb_json_str(&b, master);
		sb_printf(&b, ",\"ring_open\":%s,\"in_open\":%s,"
			  "\"changed\":%s}\n",
			  l->ring_open ? "true" : "false",
			  l->in_open ? "true" : "false",
			  changed ? "true" : "false");
		fputs(b.s ? b.s : "", stdout);
		sb_free(&b);
	} else {
		printf("%.6f %s (%d) master %s ring %s in %s%s\n", mono_now(),
		       l->name, l->ifindex, master,
		       l->ring_open ? "open" : "closed",
		       l->in_open ? "open" : "closed",
		       changed ? "" : " (unchanged)");
	}
	fflush(stdout);
	m->seen++;
}

static int cmd_monitor(int argc, char **argv)
{
	struct mon *m = calloc(1, sizeof(*m));
	long timeout = -1;
	double deadline = 0;
	char **cmd = NULL;
	pid_t child = -1;
	int i, err, ret = 0;
	uint32_t u;

	if (!m)
		return 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return usage_err("monitor: -- needs a command"
						 );
			cmd = &argv[i + 1];
			break;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--open")) {
			m->only_open = true;
		} else if (!strcmp(a, "--changes")) {
			m->only_changes = true;
		} else if (!strcmp(a, "--count") || !strcmp(a, "--timeout")) {
			if (i + 1 >= argc ||
			    !mrp_parse_u32(argv[i + 1], 0x7fffffff, &u))
				return usage_err("monitor: %s needs a number",
						 a);
			if (a[2] == 'c')
				m->count = u;
			else
				timeout = u;
			i++;
		} else {
			return usage_err("monitor: unknown option '%s'", a);
		}
	}
	err = mrp_nl_open(&nl, RTMGRP_LINK);
	if (!err) {
		struct mrp_nl req;

		/* baseline for --changes, taken after subscribing */
		err = mrp_nl_open(&req, 0);
		if (!err) {
			err = mrp_nl_dump_links(&req, AF_BRIDGE, mon_init_cb, m);
			mrp_nl_close(&req);
		}
	}
	if (err) {
		fprintf(stderr, "mrpctl: rtnetlink: %s\n", strerror(-err));
		return 1;
	}
	if (timeout >= 0)
		deadline = mono_now() + (double)timeout / 1000.0;
	if (cmd) {
		/* when the trigger ran, on the clock the events are stamped
		 * with: latency measurements subtract the two
		 */
		if (json) {
			struct sbuf b;

			sb_init(&b);
			sb_printf(&b, "{\"time\":%.6f,\"command\":",
				  mono_now());
			sb_json_str(&b, cmd[0]);
			sb_printf(&b, "}\n");
			fputs(b.s ? b.s : "", stdout);
			sb_free(&b);
		} else {
			printf("%.6f command %s\n", mono_now(), cmd[0]);
		}
		fflush(stdout);
		child = fork();
		if (child == 0) {
			execvp(cmd[0], cmd);
			fprintf(stderr, "mrpctl: %s: %s\n", cmd[0],
				strerror(errno));
			_exit(127);
		}
		if (child < 0) {
			fprintf(stderr, "mrpctl: fork: %s\n", strerror(errno));
			return 1;
		}
	}
	while (!m->count || m->seen < m->count) {
		struct pollfd pfd = { mrp_nl_fd(&nl), POLLIN, 0 };
		int wait_ms = -1, r;

		if (timeout >= 0) {
			double left = deadline - mono_now();

			if (left <= 0) {
				fprintf(stderr, "mrpctl: monitor: timeout "
					"after %ld ms (%ld event(s))\n",
					timeout, m->seen);
				ret = EXIT_TIMEOUT;
				break;
			}
			wait_ms = (int)(left * 1000.0) + 1;
		}
		r = poll(&pfd, 1, wait_ms);
		if (r < 0 && errno != EINTR) {
			ret = 1;
			break;
		}
		if (r > 0) {
			err = mrp_nl_read_events(&nl, mon_event_cb, m);
			if (err == -ENOBUFS)
				fprintf(stderr, "mrpctl: monitor: events "
					"lost\n");
			else if (err)
				fprintf(stderr, "mrpctl: monitor: %s\n",
					strerror(-err));
		}
	}
	if (child > 0) {
		int st = 0;

		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "mrpctl: monitor: command %s failed\n",
				cmd[0]);
			if (!ret)
				ret = 1;
		}
	}
	mrp_nl_close(&nl);
	free(m->port);
	free(m);
	return ret;
}

/* ---- capture ---- */

#define CAP_MAX_PORTS	64
#define CAP_RCVBUF	(4 << 20)

struct cap {
	int fd;
	int ports[CAP_MAX_PORTS];	/* ifindexes; none: every interface */
	unsigned nports;
	bool only_in, only_out;
	long count, seen;
};

/*
 * ETH_P_ALL: the kernel hands transmitted frames to ETH_P_ALL taps only.
 * The socket is created with protocol 0 (nothing queued) and bound to
 * ETH_P_ALL once the filter is attached, so no other frame gets in.
 */
static int open_capture_socket(void)
{
	struct sockaddr_ll sll;
	int sz = CAP_RCVBUF;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int e;

	if (fd < 0)
		return -errno;
	/* bursts must not be lost: beyond rmem_max if we may */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	e = mrp_filter_mrp(fd);
	if (!e && bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		e = -errno;
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

static const char *sub_name(unsigned sub)
{
	switch (sub) {
	case MRP_SUB_TEST_MGR_NACK: return "TestMgrNAck";
	case MRP_SUB_TEST_PROPAGATE: return "TestPropagate";
	case MRP_SUB_AUTO_MGR: return "AutoMgr";
	}
	return NULL;
}

/* Whether a parsed frame carries an MRP_SA */
static bool pdu_has_sa(const struct mrp_pdu *p)
{
	switch (p->type) {
	case MRP_TLV_TEST:
	case MRP_TLV_TOPO:
	case MRP_TLV_LINK_DOWN:
	case MRP_TLV_LINK_UP:
		return true;
	case MRP_TLV_OPTION:
		return p->sub_type == MRP_SUB_TEST_MGR_NACK ||
		       p->sub_type == MRP_SUB_TEST_PROPAGATE;
	}
	return false;
}

/* One line for a frame: buf holds its first caplen bytes (>= 14) */
static void cap_format(struct sbuf *b, const struct cap *c,
		       const uint8_t *buf, size_t caplen, size_t len,
		       const struct sockaddr_ll *sll)
{
	char name[IF_NAMESIZE + 1] = "?", src[18], dst[18], sa[18];
	const char *dir = sll->sll_pkttype == PACKET_OUTGOING ? "out" : "in";
	const char *sub = NULL;
	double now = mono_now();
	struct mrp_pdu pdu;
	enum mrp_parse_err pe = mrp_parse(buf, caplen, &pdu);
	bool ok = pe == MRP_PARSE_OK, have_seq = ok && pdu.has_common;
	bool opt = ok && pdu.type == MRP_TLV_OPTION;
	int tlv = caplen > MRP_ETH_HLEN + 2 ? buf[MRP_ETH_HLEN + 2] : -1;
	unsigned seq = pdu.seq;
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = sll->sll_ifindex;
	if (!ioctl(c->fd, SIOCGIFNAME, &ifr))
		snprintf(name, sizeof(name), "%.*s", IFNAMSIZ, ifr.ifr_name);
	mrp_mac_str(buf + 6, src);
	mrp_mac_str(buf, dst);
	mrp_mac_str(pdu.sa, sa);
	if (!ok) {
		uint16_t s = 0;

		have_seq = mrp_find_seq(buf, caplen, &s);
		seq = s;
	}
	if (opt)
		sub = sub_name(pdu.sub_type);
	if (!json) {
		sb_printf(b, "%.6f %s %s %s > %s ", now, name, dir, src, dst);
		if (ok)
			sb_printf(b, "%s", mrp_tlv_name(pdu.type));
		else if (tlv >= 0)
			sb_printf(b, "%d", tlv);
		else
			sb_printf(b, "-");
		if (have_seq)
			sb_printf(b, " seq %u", seq);
		else
			sb_printf(b, " seq -");
		sb_printf(b, " len %zu", len);
		if (opt && sub)
			sb_printf(b, " sub %s", sub);
		else if (opt)
			sb_printf(b, " sub %u", (unsigned)pdu.sub_type);
		if (!ok)
			sb_printf(b, " malformed: %s", mrp_parse_strerror(pe));
		sb_printf(b, "\n");
		return;
	}
	sb_printf(b, "{\"time\":%.6f,\"ifname\":", now);
	sb_json_str(b, name);
	sb_printf(b, ",\"dir\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\"", dir,
		  src, dst);
	if (tlv >= 0)
		sb_printf(b, ",\"type\":\"%s\",\"tlv\":%d",
			  mrp_tlv_name((unsigned)tlv), tlv);
	else
		sb_printf(b, ",\"type\":null,\"tlv\":null");
	if (have_seq)
		sb_printf(b, ",\"seq\":%u", seq);
	else
		sb_printf(b, ",\"seq\":null");
	sb_printf(b, ",\"len\":%zu", len);
	if (opt && sub)
		sb_printf(b, ",\"sub\":\"%s\"", sub);
	else if (opt)
		sb_printf(b, ",\"sub\":\"%u\"", (unsigned)pdu.sub_type);
	if (ok && pdu_has_sa(&pdu))
		sb_printf(b, ",\"sa\":\"%s\"", sa);
	if (!ok)
		sb_printf(b, ",\"error\":\"%s\"", mrp_parse_strerror(pe));
	sb_printf(b, "}\n");
}

static bool cap_wanted(const struct cap *c, const struct sockaddr_ll *sll)
{
	bool out = sll->sll_pkttype == PACKET_OUTGOING;
	unsigned i;

	if ((c->only_in && out) || (c->only_out && !out))
		return false;
	for (i = 0; i < c->nports; i++)
		if (c->ports[i] == sll->sll_ifindex)
			return true;
	return !c->nports;
}

/* Print up to budget queued frames; -1 on a read or write error */
static int cap_drain(struct cap *c, int budget)
{
	uint8_t buf[2048];

	while (budget-- > 0 && (!c->count || c->seen < c->count)) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct sbuf b;
		ssize_t n;
		size_t caplen;

		n = recvfrom(c->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&sll, &sl);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			fprintf(stderr, "mrpctl: capture: %s\n",
				strerror(errno));
			return -1;
		}
		caplen = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf);
		/* the filter lets nothing else in; checked all the same */
		if (caplen < MRP_ETH_HLEN || buf[12] != 0x88 ||
		    buf[13] != 0xe3 || !cap_wanted(c, &sll))
			continue;
		sb_init(&b);
		cap_format(&b, c, buf, caplen, (size_t)n, &sll);
		fputs(b.s ? b.s : "", stdout);
		sb_free(&b);
		if (fflush(stdout) == EOF || ferror(stdout)) {
			fprintf(stderr, "mrpctl: capture: write: %s\n",
				strerror(errno));
			return -1;
		}
		c->seen++;
	}
	return 0;
}

static int cmd_capture(int argc, char **argv)
{
	struct cap c;
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	long timeout = -1;
	double deadline = 0;
	sigset_t mask;
	int i, sfd, ret = 0;
	uint32_t u;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--in")) {
			c.only_in = true;
		} else if (!strcmp(a, "--out")) {
			c.only_out = true;
		} else if (!strcmp(a, "--count") || !strcmp(a, "--timeout")) {
			if (i + 1 >= argc ||
			    !mrp_parse_u32(argv[i + 1], 0x7fffffff, &u))
				return usage_err("capture: %s needs a number",
						 a);
			if (a[2] == 'c')
				c.count = u;
			else
				timeout = u;
			i++;
		} else if (a[0] == '-') {
			return usage_err("capture: unknown option '%s'", a);
		} else if (c.nports == CAP_MAX_PORTS) {
			return usage_err("capture: more than %d interfaces",
					 CAP_MAX_PORTS);
		} else {
			c.ports[c.nports] = (int)if_nametoindex(a);
			if (!c.ports[c.nports]) {
				fprintf(stderr, "mrpctl: capture: no such "
					"interface '%s'\n", a);
				return EXIT_USAGE;
			}
			c.nports++;
		}
	}
	if (c.only_in && c.only_out)
		return usage_err("capture: --in and --out exclude each other");

	/* SIGINT/SIGTERM end the capture cleanly, read with a signalfd */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "mrpctl: signalfd: %s\n", strerror(errno));
		return 1;
	}
	c.fd = open_capture_socket();
	if (c.fd < 0) {
		fprintf(stderr, "mrpctl: capture: packet socket: %s\n",
			strerror(-c.fd));
		close(sfd);
		return 1;
	}
	if (timeout >= 0)
		deadline = mono_now() + (double)timeout / 1000.0;
	for (;;) {
		struct pollfd pfd[2] = { { c.fd, POLLIN, 0 },
					 { sfd, POLLIN, 0 } };
		bool late = false, stop;
		int wait_ms = -1, r;

		if (timeout >= 0) {
			double left = deadline - mono_now();

			late = left <= 0;
			wait_ms = late ? 0 : (int)(left * 1000.0) + 1;
		}
		r = poll(pfd, 2, wait_ms);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "mrpctl: poll: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		stop = r > 0 && (pfd[1].revents & POLLIN);
		/* on a signal, print what was queued before it */
		if (r > 0 && (pfd[0].revents || stop) &&
		    cap_drain(&c, stop ? 1 << 16 : 256) < 0) {
			ret = 1;
			break;
		}
		if ((c.count && c.seen >= c.count) || stop)
			break;
		if (late) {
			fprintf(stderr, "mrpctl: capture: timeout after %ld ms "
				"(%ld frame(s))\n", timeout, c.seen);
			ret = EXIT_TIMEOUT;
			break;
		}
	}
	if (!getsockopt(c.fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) &&
	    st.tp_drops) {
		fprintf(stderr, "mrpctl: capture: %u frames dropped by the "
			"kernel\n", st.tp_drops);
		ret = 1;
	}
	close(c.fd);
	close(sfd);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "reply-timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	/* options before the command only; the rest belongs to it */
	while ((o = getopt_long(argc, argv, "+s:t:jhV", opts, NULL)) != -1) {
		switch (o) {
		case 's': sock_name = optarg; break;
		case 't':
			if (!mrp_parse_u32(optarg, 86400, &reply_timeout) ||
			    !reply_timeout)
				return usage_err("bad reply timeout '%s' "
						 "(1-86400 s)", optarg);
			break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("mrpctl %s\n", MRP_TOOLS_VERSION); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "kernel")) {
		int ret = cmd_kernel(argc - 1, argv + 1);
		mrp_nl_close(&nl);
		return ret;
	}
	if (!strcmp(argv[0], "monitor"))
		return cmd_monitor(argc, argv);
	if (!strcmp(argv[0], "capture"))
		return cmd_capture(argc, argv);
	if (!strcmp(argv[0], "add") || !strcmp(argv[0], "del") ||
	    !strcmp(argv[0], "show") || !strcmp(argv[0], "ping") ||
	    !strcmp(argv[0], "wait") ||
	    !strcmp(argv[0], "version"))
		return cmd_daemon(argc, argv);
	return usage_err("unknown command '%s'", argv[0]);
}
