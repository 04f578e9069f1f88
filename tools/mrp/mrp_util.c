// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrp_in_sm.h"
#include "mrp_sm.h"
#include "mrp_util.h"

bool mrp_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v = 0;
	int base = 10;
	const char *p;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	}
	for (p = s; *p; p++) {
		int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			return false;
		v = v * (unsigned)base + (unsigned)d;
		if (v > max)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

int mrp_parse_role(const char *s)
{
	if (!strcmp(s, "mrm"))
		return MRP_ROLE_MRM;
	if (!strcmp(s, "mrc"))
		return MRP_ROLE_MRC;
	if (!strcmp(s, "mra"))
		return MRP_ROLE_MRA;
	if (!strcmp(s, "disabled"))
		return MRP_ROLE_DISABLED;
	return -1;
}

int mrp_parse_port_state(const char *s)
{
	if (!strcmp(s, "forwarding"))
		return MRP_PORT_FORWARDING;
	if (!strcmp(s, "blocked") || !strcmp(s, "blocking"))
		return MRP_PORT_BLOCKED;
	if (!strcmp(s, "disabled"))
		return MRP_PORT_DISABLED;
	return -1;
}

int mrp_parse_port_role(const char *s)
{
	if (!strcmp(s, "primary"))
		return MRP_PORT_PRIMARY;
	if (!strcmp(s, "secondary"))
		return MRP_PORT_SECONDARY;
	return -1;
}

int mrp_parse_ring_state(const char *s)
{
	if (!strcmp(s, "open"))
		return MRP_RING_OPEN;
	if (!strcmp(s, "closed"))
		return MRP_RING_CLOSED;
	return -1;
}

void mrp_mac_str(const uint8_t mac[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		 mac[2], mac[3], mac[4], mac[5]);
}

void sb_init(struct sbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	sb_init(b);
}

static bool sb_grow(struct sbuf *b, size_t need)
{
	size_t cap;
	char *n;

	if (b->oom)
		return false;
	if (b->len + need + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_json_str(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

socklen_t mrp_ctl_addr(const char *name, struct sockaddr_un *sun)
{
	size_t n = strlen(name);

	if (n > sizeof(sun->sun_path) - 1)
		n = sizeof(sun->sun_path) - 1;
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* abstract namespace: leading NUL, not NUL terminated */
	memcpy(sun->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int mrp_split(char *line, char **argv, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n == max)
			return -1;
		argv[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

int mrp_filter_mrp(int fd)
{
	static struct sock_filter code[] = {
		{ 0x28, 0, 0, 0x0000000c },	/* ldh [12] */
		{ 0x15, 0, 1, 0x000088e3 },	/* jeq #0x88e3 */
		{ 0x06, 0, 0, 0x0000ffff },	/* ret #65535 */
		{ 0x06, 0, 0, 0x00000000 },	/* ret #0 */
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		return -errno;
	return 0;
}

/*
 * The test options rings and interconnections share: interval (us),
 * max-miss and period (us).  1 when k is one of them and val is good, -1
 * when val is bad, 0 when k is another option.
 */
static int test_opt(const char *k, const char *val, uint32_t *interval,
		    uint32_t *max_miss, uint32_t *period)
{
	if (!strcmp(k, "interval"))
		return mrp_parse_u32(val, 10000000, interval) && *interval ?
		       1 : -1;
	if (!strcmp(k, "max-miss"))
		return mrp_parse_u32(val, 255, max_miss) && *max_miss ? 1 : -1;
	if (!strcmp(k, "period"))
		return mrp_parse_u32(val, 3600000000u, period) &&
		       *period >= 1000 ? 1 : -1;
	return 0;
}

int mrp_ring_args_parse(int argc, char **argv, struct mrp_ring_args *a,
			unsigned default_profile, char *err, size_t errlen)
{
	bool have_id = false;
	uint32_t v;
	int i, t;

	memset(a, 0, sizeof(*a));
	a->role = -1;
	a->prio = -1;
	a->react = -1;
	a->nonblocking = -1;
	a->profile = default_profile;
	if (argc < 2) {
		snprintf(err, errlen, "usage: add BRIDGE ring ID primary PORT "
			 "secondary PORT role mrm|mrc|mra [profile 10|30|200|500]"
			 " [prio N] [interval US] [max-miss N] [period US]"
			 " [react 0|1] [non-blocking 0|1] [domain UUID]");
		return -EINVAL;
	}
	if (strlen(argv[1]) >= IF_NAMESIZE) {
		snprintf(err, errlen, "bridge name too long");
		return -EINVAL;
	}
	snprintf(a->br, sizeof(a->br), "%s", argv[1]);
	for (i = 2; i < argc; i += 2) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val) {
			snprintf(err, errlen, "missing value for '%.40s'", k);
			return -EINVAL;
		}
		if (!strcmp(k, "ring")) {
			if (!mrp_parse_u32(val, UINT32_MAX, &a->id))
				goto bad;
			have_id = true;
		} else if (!strcmp(k, "primary") || !strcmp(k, "secondary")) {
			if (strlen(val) >= IF_NAMESIZE)
				goto bad;
			snprintf(k[0] == 'p' ? a->p : a->s, IF_NAMESIZE, "%s",
				 val);
		} else if (!strcmp(k, "role")) {
			a->role = mrp_parse_role(val);
			if (a->role != MRP_ROLE_MRM && a->role != MRP_ROLE_MRC &&
			    a->role != MRP_ROLE_MRA)
				goto bad;
		} else if (!strcmp(k, "profile")) {
			if (!mrp_parse_u32(val, 1000, &v) || !mrp_profile_get(v))
				goto bad;
			a->profile = v;
		} else if (!strcmp(k, "prio")) {
			if (!mrp_parse_u32(val, 0xffff, &v))
				goto bad;
			a->prio = (int)v;
		} else if ((t = test_opt(k, val, &a->interval, &a->max_miss,
					 &a->period))) {
			if (t < 0)
				goto bad;
		} else if (!strcmp(k, "react")) {
			if (!mrp_parse_u32(val, 1, &v))
				goto bad;
			a->react = (int)v;
		} else if (!strcmp(k, "non-blocking")) {
			if (!mrp_parse_u32(val, 1, &v))
				goto bad;
			a->nonblocking = (int)v;
		} else if (!strcmp(k, "domain")) {
			if (!mrp_parse_uuid(val, a->domain))
				goto bad;
			a->has_domain = true;
		} else {
			snprintf(err, errlen, "unknown option '%.40s'", k);
			return -EINVAL;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%.40s' for %s", val, k);
		return -EINVAL;
	}
	if (!have_id || !a->p[0] || !a->s[0] || a->role < 0) {
		snprintf(err, errlen, "add needs ring, primary, secondary and "
			 "role");
		return -EINVAL;
	}
	return 0;
}

void mrp_ring_args_format(const struct mrp_ring_args *a, char *buf,
			  size_t len)
{
	int n = snprintf(buf, len, "%s ring %u primary %s secondary %s role %s "
			 "profile %u", a->br, a->id, a->p, a->s,
			 mrp_role_name((enum mrp_ring_role)a->role),
			 a->profile);

#define ADD(...) do { \
		if (n >= 0 && (size_t)n < len) \
			n += snprintf(buf + n, len - (size_t)n, __VA_ARGS__); \
	} while (0)
	if (a->prio >= 0)
		ADD(" prio %d", a->prio);
	if (a->interval)
		ADD(" interval %u", a->interval);
	if (a->max_miss)
		ADD(" max-miss %u", a->max_miss);
	if (a->period)
		ADD(" period %u", a->period);
	if (a->react >= 0)
		ADD(" react %d", a->react);
	if (a->nonblocking >= 0)
		ADD(" non-blocking %d", a->nonblocking);
	if (a->has_domain) {
		char u[37];

		mrp_uuid_str(a->domain, u);
		ADD(" domain %s", u);
	}
#undef ADD
}

int mrp_del_args_parse(int argc, char **argv, uint32_t *id, char *err,
		       size_t errlen)
{
	if (argc != 4 || strcmp(argv[2], "ring") ||
	    !mrp_parse_u32(argv[3], UINT32_MAX, id)) {
		snprintf(err, errlen, "usage: del BRIDGE ring ID");
		return -EINVAL;
	}
	return 0;
}

/* Keys a client can wait for; counters mean "at least". */
static const char *const wait_words[] = { "ring", "mode", "state", "gone" };
static const char *const wait_counters[] = {
	"flushes", "transitions", "openings", "topo-rx", "ring-open",
	"takeovers", "yields",
};

int mrp_wait_args_parse(int argc, char **argv, uint32_t *id, char *key,
			size_t keylen, char *val, size_t vallen, uint32_t *num,
			uint32_t *timeout_ms, char *err, size_t errlen)
{
	bool word = false, counter = false;
	unsigned i;

	*timeout_ms = MRPD_WAIT_DEFAULT_MS;
	*num = 0;
	if ((argc != 6 && argc != 8) || strcmp(argv[2], "ring") ||
	    !mrp_parse_u32(argv[3], UINT32_MAX, id) ||
	    (argc == 8 && (strcmp(argv[6], "timeout") ||
			   !mrp_parse_u32(argv[7], MRPD_WAIT_MAX_MS,
					  timeout_ms)))) {
		snprintf(err, errlen, "usage: wait BRIDGE ring ID KEY VALUE "
			 "[timeout MS]");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(wait_words) / sizeof(wait_words[0]); i++)
		word |= !strcmp(argv[4], wait_words[i]);
	for (i = 0; i < sizeof(wait_counters) / sizeof(wait_counters[0]); i++)
		counter |= !strcmp(argv[4], wait_counters[i]);
	if ((!word && !counter) || strlen(argv[4]) >= keylen ||
	    strlen(argv[5]) >= vallen) {
		snprintf(err, errlen, "wait: KEY is ring open|closed, mode "
			 "manager|client, state NAME, gone 1, or a counter (flushes, "
			 "transitions, openings, topo-rx, ring-open, takeovers, yields) N");
		return -EINVAL;
	}
	if (counter && !mrp_parse_u32(argv[5], UINT32_MAX, num)) {
		snprintf(err, errlen, "wait: %s needs a number", argv[4]);
		return -EINVAL;
	}
	snprintf(key, keylen, "%s", argv[4]);
	snprintf(val, vallen, "%s", argv[5]);
	return 0;
}

bool mrp_parse_uuid(const char *s, uint8_t out[16])
{
	unsigned i, n = 0;

	if (!s || strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]) ||
		    !isxdigit((unsigned char)s[i + 1]))
			return false;
		hi = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			tolower((unsigned char)s[i]) - 'a' + 10;
		lo = isdigit((unsigned char)s[i + 1]) ? s[i + 1] - '0' :
			tolower((unsigned char)s[i + 1]) - 'a' + 10;
		out[n++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return n == 16;
}

void mrp_uuid_str(const uint8_t u[16], char buf[37])
{
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
		 u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
}

/* ---- interconnections ---- */

bool mrp_is_in_request(int argc, char **argv)
{
	return argc > 2 && !strcmp(argv[2], "interconnection");
}

const char *mrp_in_args_cfg(const struct mrp_in_args *a,
			    struct mrp_in_cfg *cfg)
{
	if (mrp_in_cfg_default(cfg, (enum mrp_in_role)a->role,
			       a->profile) < 0)
		return "bad interconnection role or profile";
	cfg->in_id = (uint16_t)a->id;
	cfg->mode = (enum mrp_in_mode)a->mode;
	if (a->interval)
		mrp_in_cfg_interval(cfg, a->interval);
	if (a->max_miss)
		mrp_in_cfg_max_miss(cfg, (uint8_t)a->max_miss);
	if (a->period)
		cfg->test_period_us = a->period;
	return mrp_in_cfg_error(cfg);
}

#define IN_ADD_USAGE "usage: add BRIDGE interconnection ID ring RID port " \
	"PORT role mim|mic [mode rc|lc] [profile 200|500] [interval US] " \
	"[max-miss N] [period US]"

int mrp_in_args_parse(int argc, char **argv, struct mrp_in_args *a, char *err,
		      size_t errlen)
{
	bool have_ring = false;
	struct mrp_in_cfg cfg;
	const char *why;
	uint32_t v;
	int i, t;

	memset(a, 0, sizeof(*a));
	a->role = -1;
	a->mode = MRP_IN_MODE_RC;
	a->profile = 200;
	if (argc < 4 || strcmp(argv[2], "interconnection")) {
		snprintf(err, errlen, IN_ADD_USAGE);
		return -EINVAL;
	}
	if (strlen(argv[1]) >= IF_NAMESIZE) {
		snprintf(err, errlen, "bridge name too long");
		return -EINVAL;
	}
	snprintf(a->br, sizeof(a->br), "%s", argv[1]);
	if (!mrp_parse_u32(argv[3], 0xffff, &a->id)) {
		snprintf(err, errlen, "bad interconnection ID '%.40s' (0-65535)",
			 argv[3]);
		return -EINVAL;
	}
	for (i = 4; i < argc; i += 2) {
		const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val) {
			snprintf(err, errlen, "missing value for '%.40s'", k);
			return -EINVAL;
		}
		if (!strcmp(k, "ring")) {
			if (!mrp_parse_u32(val, UINT32_MAX, &a->ring))
				goto bad;
			have_ring = true;
		} else if (!strcmp(k, "port")) {
			if (strlen(val) >= IF_NAMESIZE)
				goto bad;
			snprintf(a->port, sizeof(a->port), "%s", val);
		} else if (!strcmp(k, "role")) {
			if (!strcmp(val, "mim"))
				a->role = MRP_IN_ROLE_MIM;
			else if (!strcmp(val, "mic"))
				a->role = MRP_IN_ROLE_MIC;
			else
				goto bad;
		} else if (!strcmp(k, "mode")) {
			if (!strcmp(val, "rc"))
				a->mode = MRP_IN_MODE_RC;
			else if (!strcmp(val, "lc"))
				a->mode = MRP_IN_MODE_LC;
			else
				goto bad;
		} else if (!strcmp(k, "profile")) {
			if (!mrp_parse_u32(val, 1000, &v) ||
			    !mrp_in_profile_get(v))
				goto bad;
			a->profile = v;
		} else if ((t = test_opt(k, val, &a->interval, &a->max_miss,
					 &a->period))) {
			if (t < 0)
				goto bad;
		} else {
			snprintf(err, errlen, "unknown option '%.40s'", k);
			return -EINVAL;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%.40s' for %s", val, k);
		return -EINVAL;
	}
	if (!have_ring || !a->port[0] || a->role < 0) {
		snprintf(err, errlen, "add interconnection needs ring, port "
			 "and role");
		return -EINVAL;
	}
	why = mrp_in_args_cfg(a, &cfg);
	if (why) {
		snprintf(err, errlen, "%s", why);
		return a->mode == MRP_IN_MODE_LC ? -EOPNOTSUPP : -EINVAL;
	}
	return 0;
}

void mrp_in_args_format(const struct mrp_in_args *a, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s interconnection %u ring %u port %s "
			 "role %s mode %s profile %u", a->br, a->id, a->ring,
			 a->port, mrp_in_role_name((enum mrp_in_role)a->role),
			 mrp_in_mode_name((enum mrp_in_mode)a->mode),
			 a->profile);

#define ADD(...) do { \
		if (n >= 0 && (size_t)n < len) \
			n += snprintf(buf + n, len - (size_t)n, __VA_ARGS__); \
	} while (0)
	if (a->interval)
		ADD(" interval %u", a->interval);
	if (a->max_miss)
		ADD(" max-miss %u", a->max_miss);
	if (a->period)
		ADD(" period %u", a->period);
#undef ADD
}

int mrp_in_del_args_parse(int argc, char **argv, uint32_t *id, char *err,
			  size_t errlen)
{
	if (argc != 4 || strcmp(argv[2], "interconnection") ||
	    !mrp_parse_u32(argv[3], 0xffff, id)) {
		snprintf(err, errlen, "usage: del BRIDGE interconnection ID "
			 "(0-65535)");
		return -EINVAL;
	}
	return 0;
}

static const char *const in_wait_words[] = { "in", "state", "gone" };
static const char *const in_wait_counters[] = {
	"transitions", "opens", "closes", "loss-rx", "regain-rx",
	"topo-tx", "topo-rx", "link-tx", "link-rx", "flushes",
};

int mrp_in_wait_args_parse(int argc, char **argv, uint32_t *id, char *key,
			   size_t keylen, char *val, size_t vallen,
			   uint32_t *num, uint32_t *timeout_ms, char *err,
			   size_t errlen)
{
	bool word = false, counter = false;
	unsigned i;

	*timeout_ms = MRPD_WAIT_DEFAULT_MS;
	*num = 0;
	if ((argc != 6 && argc != 8) || strcmp(argv[2], "interconnection") ||
	    !mrp_parse_u32(argv[3], 0xffff, id) ||
	    (argc == 8 && (strcmp(argv[6], "timeout") ||
			   !mrp_parse_u32(argv[7], MRPD_WAIT_MAX_MS,
					  timeout_ms)))) {
		snprintf(err, errlen, "usage: wait BRIDGE interconnection ID "
			 "KEY VALUE [timeout MS]");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(in_wait_words) / sizeof(in_wait_words[0]); i++)
		word |= !strcmp(argv[4], in_wait_words[i]);
	for (i = 0; i < sizeof(in_wait_counters) / sizeof(in_wait_counters[0]);
	     i++)
		counter |= !strcmp(argv[4], in_wait_counters[i]);
	if ((!word && !counter) || strlen(argv[4]) >= keylen ||
	    strlen(argv[5]) >= vallen) {
		snprintf(err, errlen, "wait interconnection: KEY is in "
			 "open|closed, state NAME, gone 1, or a counter "
			 "(transitions, opens, closes, loss-rx, regain-rx, "
			 "topo-tx, topo-rx, link-tx, link-rx, flushes) N");
		return -EINVAL;
	}
	if (!strcmp(argv[4], "in") && strcmp(argv[5], "open") &&
	    strcmp(argv[5], "closed")) {
		snprintf(err, errlen, "wait interconnection: in open|closed");
		return -EINVAL;
	}
	if (counter && !mrp_parse_u32(argv[5], UINT32_MAX, num)) {
		snprintf(err, errlen, "wait: %s needs a number", argv[4]);
		return -EINVAL;
	}
	snprintf(key, keylen, "%s", argv[4]);
	snprintf(val, vallen, "%s", argv[5]);
	return 0;
}

/* ---- config and state files ---- */

bool mrp_ring_args_same(const struct mrp_ring_args *a,
			const struct mrp_ring_args *b)
{
	return a->id == b->id && !strcmp(a->br, b->br);
}

/* Add the ring of line @argv (argv[0] "add") to @c; 0 or why not. */
static const char *conf_ring(struct mrp_conf *c, int argc, char **argv,
			     unsigned default_profile, char *why,
			     size_t whylen)
{
	struct mrp_ring_args *a = &c->a[c->n];
	unsigned i;

	if (c->n >= MRPD_MAX_RINGS) {
		snprintf(why, whylen, "more than %u rings",
			 (unsigned)MRPD_MAX_RINGS);
		return why;
	}
	if (mrp_ring_args_parse(argc, argv, a, default_profile, why, whylen))
		return why;
	for (i = 0; i < c->n; i++) {
		if (mrp_ring_args_same(&c->a[i], a)) {
			snprintf(why, whylen, "ring %u of %s again", a->id,
				 a->br);
			return why;
		}
	}
	c->n++;
	return NULL;
}

bool mrp_in_args_same(const struct mrp_in_args *a,
		      const struct mrp_in_args *b)
{
	return a->id == b->id && !strcmp(a->br, b->br);
}

/* Add the interconnection of line @argv to @c; 0 or why not. */
static const char *conf_in(struct mrp_conf *c, int argc, char **argv,
			   char *why, size_t whylen)
{
	struct mrp_in_args *a = &c->in[c->nin];
	unsigned i;

	if (c->nin >= MRPD_MAX_RINGS) {
		snprintf(why, whylen, "more than %u interconnections",
			 (unsigned)MRPD_MAX_RINGS);
		return why;
	}
	if (mrp_in_args_parse(argc, argv, a, why, whylen))
		return why;
	for (i = 0; i < c->nin; i++) {
		const struct mrp_in_args *o = &c->in[i];

		if (mrp_in_args_same(o, a)) {
			snprintf(why, whylen, "interconnection %u of %s again",
				 a->id, a->br);
			return why;
		}
		if (o->ring == a->ring && !strcmp(o->br, a->br)) {
			snprintf(why, whylen, "ring %u of %s has "
				 "interconnection %u already (one per ring)",
				 a->ring, a->br, o->id);
			return why;
		}
	}
	c->nin++;
	return NULL;
}

/* One line (modified): NULL, or why it is bad. */
static const char *conf_line(struct mrp_conf *c, char *line,
			     unsigned default_profile, char *why,
			     size_t whylen)
{
	char *words[34], **argv = words, *hash = strchr(line, '#');
	int argc;

	if (hash)
		*hash = 0;
	line[strcspn(line, "\r\n")] = 0;
	words[0] = "add";
	argc = mrp_split(line, words + 1, 32);
	if (argc < 0)
		return "too many words";
	if (!argc)
		return NULL;
	/* argv[0] "add" unless the line has it */
	if (strcmp(argv[1], "add"))
		argc++;
	else
		argv++;
	if (mrp_is_in_request(argc, argv))
		return conf_in(c, argc, argv, why, whylen);
	return conf_ring(c, argc, argv, default_profile, why, whylen);
}

int mrp_conf_read(const char *path, struct mrp_conf *c,
		  unsigned default_profile, char *err, size_t errlen)
{
	char line[MRPD_MAX_LINE + 8], why[300];
	unsigned lineno = 0;
	const char *bad = NULL;
	FILE *f = fopen(path, "r");

	memset(c, 0, sizeof(*c));
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while (!bad && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			bad = "line too long";
		else
			bad = conf_line(c, line, default_profile, why,
					sizeof(why));
	}
	fclose(f);
	if (!bad)
		return 0;
	snprintf(err, errlen, "%s:%u: %s", path, lineno, bad);
	memset(c, 0, sizeof(*c));
	return -EINVAL;
}
