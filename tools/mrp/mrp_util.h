/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by mrpd and mrpctl: argument parsing, names,
 * output buffers, the control socket address.
 */
#ifndef MRP_UTIL_H
#define MRP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <net/if.h>
#include <sys/un.h>

#define MRPD_DEFAULT_SOCKET	"mrpd"
/* rings mrpd runs (read at start and at SIGHUP), if the file exists */
#define MRPD_CONFIG		"/etc/mrpd.conf"
/* what a restarted mrpd needs to take its rings over unchanged */
#define MRPD_STATE_DIR		"/run/mrpd"
#define MRPD_MAX_LINE		1024
/* "wait": how long mrpd waits by default, and at most (ms) */
#define MRPD_WAIT_DEFAULT_MS	10000
#define MRPD_WAIT_MAX_MS	3600000
#define MRP_TOOLS_VERSION	"1.0"

/* Strict decimal (or 0x hex) parse; false on junk or > max. */
bool mrp_parse_u32(const char *s, uint32_t max, uint32_t *out);
/* "mrm" "mrc" "mra" "disabled" -> enum mrp_ring_role, -1 if unknown */
int mrp_parse_role(const char *s);
/* "forwarding" "blocked" "disabled" -> enum mrp_port_state, -1 */
int mrp_parse_port_state(const char *s);
/* "primary" "secondary" -> enum mrp_port_role, -1 */
int mrp_parse_port_role(const char *s);
/* "open" "closed" -> enum mrp_ring_state, -1 */
int mrp_parse_ring_state(const char *s);

void mrp_mac_str(const uint8_t mac[6], char buf[18]);

/* Growing string buffer */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void sb_init(struct sbuf *b);
void sb_free(struct sbuf *b);
void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal (with quotes). */
void sb_json_str(struct sbuf *b, const char *s);

/* Abstract unix address "@name" for the control socket. */
socklen_t mrp_ctl_addr(const char *name, struct sockaddr_un *sun);

/* Let only MRP frames (EtherType 0x88E3) into packet socket fd: a
 * classic BPF filter, so that the kernel queues nothing else.  0 or
 * -errno. */
int mrp_filter_mrp(int fd);

/* Split a line into at most max words (modifies line). Returns count,
 * -1 if there are more than max words. */
int mrp_split(char *line, char **argv, int max);

/*
 * Requests to mrpd, parsed alike by mrpd and by mrpctl (which refuses a
 * malformed one as bad usage, exit code 2, before it asks mrpd).  Each
 * returns 0 or -EINVAL with the reason in err.  argv[0] is the command.
 */

/* A ring as configured: `add`'s words, a line of mrpd's config file */
struct mrp_ring_args {
	char br[IF_NAMESIZE], p[IF_NAMESIZE], s[IF_NAMESIZE];
	uint32_t id;
	int role;		/* enum mrp_ring_role */
	unsigned profile;
	int prio;		/* -1: the role's default */
	uint32_t interval, max_miss, period;	/* 0: the profile's */
	int react;		/* -1: default (0) */
	int nonblocking;	/* -1: default (0): a client that blocks */
	bool has_domain;	/* else the default domain, all 0xff */
	uint8_t domain[16];	/* MRP_DomainUUID */
};

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" <-> 16 bytes; false on junk */
bool mrp_parse_uuid(const char *s, uint8_t out[16]);
void mrp_uuid_str(const uint8_t uuid[16], char buf[37]);

/* "add BRIDGE ring ID primary P secondary S role R [options]" */
int mrp_ring_args_parse(int argc, char **argv, struct mrp_ring_args *a,
			unsigned default_profile, char *err, size_t errlen);
/* The words after "add", as mrp_ring_args_parse() reads them back. */
void mrp_ring_args_format(const struct mrp_ring_args *a, char *buf,
			  size_t len);
/* "del BRIDGE ring ID" */
int mrp_del_args_parse(int argc, char **argv, uint32_t *id, char *err,
		       size_t errlen);
/*
 * "wait BRIDGE ring ID KEY VALUE [timeout MS]": KEY ring, mode, state or
 * gone with a word, or a counter with a number (num).
 */
int mrp_wait_args_parse(int argc, char **argv, uint32_t *id, char *key,
			size_t keylen, char *val, size_t vallen, uint32_t *num,
			uint32_t *timeout_ms, char *err, size_t errlen);

/*
 * An interconnection (IEC 62439-2 Ed. 2 MIM or MIC) of a ring mrpd runs:
 * "add BRIDGE interconnection ID ring RID port PORT role mim|mic
 *  [mode rc|lc] [profile 200|500] [interval US] [max-miss N] [period US]"
 */
struct mrp_in_cfg;

struct mrp_in_args {
	char br[IF_NAMESIZE], port[IF_NAMESIZE];
	uint32_t id;		/* MRP_InID, 0-65535 */
	uint32_t ring;		/* the ring's ID */
	int role;		/* enum mrp_in_role: MIM or MIC */
	int mode;		/* enum mrp_in_mode (LC is refused) */
	unsigned profile;	/* 200 or 500 */
	uint32_t interval, max_miss, period;	/* 0: the profile's */
};

/*
 * Parse the words of "add BRIDGE interconnection ..." (argv[0] is the
 * command) and check them with mrp_in_cfg_error(): -EINVAL, or
 * -EOPNOTSUPP for what the bridge cannot run (LC mode), with the reason
 * in err.
 */
int mrp_in_args_parse(int argc, char **argv, struct mrp_in_args *a, char *err,
		      size_t errlen);
/* The state machine's configuration (all but the MAC); NULL or why not. */
const char *mrp_in_args_cfg(const struct mrp_in_args *a,
			    struct mrp_in_cfg *cfg);
/* The words after "add", as mrp_in_args_parse() reads them back. */
void mrp_in_args_format(const struct mrp_in_args *a, char *buf, size_t len);
/* "del BRIDGE interconnection ID" */
int mrp_in_del_args_parse(int argc, char **argv, uint32_t *id, char *err,
			  size_t errlen);
/*
 * "wait BRIDGE interconnection ID KEY VALUE [timeout MS]": KEY in
 * (open|closed), state or gone with a word, or a counter (num).
 */
int mrp_in_wait_args_parse(int argc, char **argv, uint32_t *id, char *key,
			   size_t keylen, char *val, size_t vallen,
			   uint32_t *num, uint32_t *timeout_ms, char *err,
			   size_t errlen);
/* argv is "CMD BRIDGE interconnection ...": an interconnection request */
bool mrp_is_in_request(int argc, char **argv);

/*
 * mrpd's config file and state file: one ring or interconnection per
 * line in the words of `add` (a leading "add" is optional): a line whose
 * second word is "interconnection" is one, any other a ring.  '#' starts
 * a comment.
 */
#define MRPD_MAX_RINGS		64

struct mrp_conf {
	struct mrp_ring_args a[MRPD_MAX_RINGS];
	bool failed[MRPD_MAX_RINGS];	/* mrpd: creating it failed, logged */
	unsigned n;
	/* interconnections: one per ring at most */
	struct mrp_in_args in[MRPD_MAX_RINGS];
	bool in_failed[MRPD_MAX_RINGS];
	unsigned nin;
};

/* Same bridge and ring ID */
bool mrp_ring_args_same(const struct mrp_ring_args *a,
			const struct mrp_ring_args *b);
/* Same bridge and interconnection ID */
bool mrp_in_args_same(const struct mrp_in_args *a,
		      const struct mrp_in_args *b);
/*
 * Read file @path into @c (default_profile for rings without one): 0,
 * -errno when it cannot be opened ("FILE: why" in @err), -EINVAL with
 * "FILE:LINE: why" for a bad line; @c is then empty.
 */
int mrp_conf_read(const char *path, struct mrp_conf *c,
		  unsigned default_profile, char *err, size_t errlen);

#endif
