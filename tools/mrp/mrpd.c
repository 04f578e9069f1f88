// SPDX-License-Identifier: GPL-2.0
/*
 * mrpd - userspace MRP (IEC 62439-2) manager for the Linux bridge.
 *
 * One daemon per network namespace handles every MRP ring of every bridge
 * there.  The bridge (or a switchdev driver under it) sends and checks
 * MRP_Test frames; mrpd runs the MRM/MRC/MRA state machines (mrp_sm.c),
 * sends TopologyChange/LinkChange/Option frames on a packet socket and
 * drives the kernel over rtnetlink (mrp_nl.c).
 *
 * Event loop: epoll over an rtnetlink listener, the packet socket, a
 * timerfd armed at the earliest state machine deadline, a signalfd and an
 * abstract unix control socket ("@mrpd").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <linux/if_bridge.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "mrp_frame.h"
#include "mrp_in_sm.h"
#include "mrp_nl.h"
#include "mrp_sm.h"
#include "mrp_util.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1 << 16)
#endif

#define MAX_CLIENTS	16
/*
 * Clients that may only read (--group) hold at most this many slots, all
 * together, and one uid at most RO_PER_UID: root always finds a slot.
 */
#define RO_CLIENTS	8
#define RO_PER_UID	4

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS	59
#endif
#define MAX_RINGS	MRPD_MAX_RINGS
#define CLIENT_OUT_MAX	(256 * 1024)

struct port {
	int ifindex;
	char name[IF_NAMESIZE];
	uint8_t mac[6];
	bool up;
	struct mrp_loc ro;	/* IFLA_BRPORT_MRP_RING_OPEN; self_notify
				 * counts the notifications our own FDB
				 * flushes cause, still to come */
};

struct counters {
	uint64_t rx, rx_malformed, rx_foreign, tx, tx_err, nl_err;
	uint64_t link_glitches;	/* late link-downs not acted on: the link
				 * was up again (link_up_again()) */
	uint64_t old_news;	/* ring-open notifications not acted on:
				 * the flag had changed again
				 * (ring_open_now()) */
};

/*
 * An interconnection (MIM or MIC) of a ring: the kernel keeps it in the
 * ring's instance (one I-port per instance), so it lives and dies with
 * the ring.  Ports 0 and 1 of its state machine are the ring's.
 */
struct inter {
	struct mrp_in_args args;
	uint16_t id;		/* MRP_InID */
	struct port iport;	/* the interconnection port (ro unused) */
	int in_open[MRP_IN_PORTS];	/* IFLA_BRPORT_MRP_IN_OPEN of ring
					 * ports and I-port, -1 unknown */
	struct mrp_in_sm sm;
	struct counters c;
	bool from_conf;		/* an interconnection of the config file */
	uint64_t created_us;
	char last_err[200];
	char kernel_warn[300];
};

struct ring {
	struct ring *next;
	struct inter *in;	/* its interconnection, NULL if none */
	struct mrp_ring_args args;	/* as configured, kept across restarts */
	bool from_conf;		/* a ring of the config file */
	int br_ifindex;
	char br_name[IF_NAMESIZE];
	uint32_t id;
	struct port port[2];
	struct mrp_sm sm;
	uint16_t seq;
	bool adopted;
	bool was_manager;	/* for logging MRA role changes */
	uint64_t created_us;
	struct counters c;
	char last_err[200];
	char kernel_warn[300];	/* what the kernel warned of, e.g. software */
};

/* What a control client may ask for (peer_access()). */
enum access { ACCESS_NONE, ACCESS_READ, ACCESS_ALL };

struct client {
	int fd;
	enum access access;
	uid_t uid;
	char in[MRPD_MAX_LINE + 1];
	size_t in_len;
	struct sbuf out;
	size_t out_off;
	bool closing;
	/* pending "wait" request */
	bool waiting;
	int w_br;
	uint32_t w_id;
	char w_key[16];
	char w_val[24];
	bool w_in;		/* w_id is an interconnection's */
	uint32_t w_num;
	uint64_t w_deadline;
};

static void client_flush(struct client *c);
static void client_process(struct client *c);

static struct {
	const char *sock_name;
	const char *pidfile;
	const char *logfile;
	bool use_syslog;	/* --syslog */
	const char *config;	/* rings to run (-c, default MRPD_CONFIG) */
	bool config_given;	/* -c: the file must exist */
	const char *state_dir;	/* --state-dir */
	char state_path[PATH_MAX];	/* "" when no state is kept */
	bool state_dirty;	/* rings or interconnections came or went:
				 * write_state() */
	bool conf_retry;	/* a link a missing ring or interconnection
				 * needs changed, or a ring came */
	int ready_fd;		/* -D: tells the parent we are ready */
	bool daemon;
	bool clean_stale;
	bool delete_on_exit;
	const char *ro_group;	/* --group: may show and wait */
	gid_t ro_gid;
	int verbose;
	unsigned default_profile;

	struct mrp_nl req;	/* requests */
	struct mrp_nl ev;	/* RTNLGRP_LINK listener */
	int pkt_fd, timer_fd, sig_fd, ctl_fd, ep_fd;
	struct ring *rings;
	unsigned nrings;
	struct client clients[MAX_CLIENTS];
	struct counters global;	/* frames on no ring port */
	uint64_t bad_requests;
	uint64_t denied;	/* connections and requests refused: the
				 * peer's credentials do not allow them */
	bool stop;
	FILE *log;
} g = {
	.sock_name = MRPD_DEFAULT_SOCKET,
	.config = MRPD_CONFIG,
	.state_dir = MRPD_STATE_DIR,
	.default_profile = 200,
	.pkt_fd = -1, .timer_fd = -1, .sig_fd = -1, .ctl_fd = -1, .ep_fd = -1,
	.ready_fd = -1,
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void logmsg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A log line starts with the wall-clock time (local, with the UTC offset)
 * and, in brackets, CLOCK_MONOTONIC: the clock of the state machines'
 * deadlines, and of the kernel's trace events.  With --syslog, syslog
 * stamps the line; -v lines go at LOG_DEBUG.
 */
static void logmsg(int level, const char *fmt, ...)
{
	FILE *f = g.log ? g.log : stderr;
	char wall[48] = "";
	struct timespec ts;
	struct tm tm;
	va_list ap;
	uint64_t t;

	if (level > g.verbose)
		return;
	va_start(ap, fmt);
	if (g.use_syslog) {
		vsyslog(level ? LOG_DEBUG : LOG_INFO, fmt, ap);
		va_end(ap);
		return;
	}
	t = now_us();
	clock_gettime(CLOCK_REALTIME, &ts);
	if (localtime_r(&ts.tv_sec, &tm)) {
		char zone[8];

		strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%S", &tm);
		strftime(zone, sizeof(zone), "%z", &tm);
		snprintf(wall + strlen(wall), sizeof(wall) - strlen(wall),
			 ".%06ld%s ", ts.tv_nsec / 1000, zone);
	}
	fprintf(f, "%s[%llu.%06llu] ", wall, (unsigned long long)(t / 1000000),
		(unsigned long long)(t % 1000000));
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}

/* Open (SIGHUP: reopen, after a rotation) the -l log file. */
static int log_open(void)
{
	FILE *f;

	if (!g.logfile)
		return 0;
	f = fopen(g.logfile, "a");
	if (!f)
		return -errno;
	if (g.log)
		fclose(g.log);
	g.log = f;
	return 0;
}

#define LOG(...) logmsg(0, __VA_ARGS__)
#define DBG(...) logmsg(1, __VA_ARGS__)

/*
 * A request the kernel accepted may come with a warning, e.g. that the
 * switch's driver left the ring to the bridge's software: keep the last
 * one to show, and log it once.
 */
static void ring_warn(struct ring *r, const char *what)
{
	char w[sizeof(r->kernel_warn)];

	if (!g.req.ext_msg[0])
		return;
	snprintf(w, sizeof(w), "%s: %s", what, g.req.ext_msg);
	if (!strcmp(w, r->kernel_warn))
		return;
	memcpy(r->kernel_warn, w, sizeof(w));
	LOG("%s ring %u: kernel warning: %s", r->br_name, r->id, w);
}

/*
 * Malformed frames are counted, and logged at most MALFORMED_LOG_MAX a
 * second: whoever sends them must not be able to fill the log, nor keep
 * the daemon writing it while the ring needs it.
 */
#define MALFORMED_LOG_MAX 10

static bool malformed_log_ok(uint64_t now)
{
	static uint64_t window;
	static unsigned int n, skipped;

	if (now - window >= 1000000) {
		if (skipped)
			DBG("%u more malformed MRP frames not logged", skipped);
		window = now;
		n = skipped = 0;
	}
	if (n < MALFORMED_LOG_MAX) {
		n++;
		return true;
	}
	skipped++;
	return false;
}

static void ring_err(struct ring *r, const char *what, int err)
{
	r->c.nl_err++;
	snprintf(r->last_err, sizeof(r->last_err), "%s: %s", what,
		 mrp_nl_strerror(&g.req, err));
	LOG("%s ring %u: %s", r->br_name, r->id, r->last_err);
}

/* ---- frame transmission ---- */

/* Send an MRP frame on port p if it is up, counted in c */
static void port_send(const struct port *p, const uint8_t *buf, size_t len,
		      struct counters *c)
{
	struct sockaddr_ll sll;

	if (!p->up || !len)
		return;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = p->ifindex;
	sll.sll_protocol = htons(MRP_ETHERTYPE);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, buf, 6);
	if (sendto(g.pkt_fd, buf, len, 0, (struct sockaddr *)&sll,
		   sizeof(sll)) < 0) {
		c->tx_err++;
		DBG("%s: send failed: %s", p->name, strerror(errno));
		return;
	}
	c->tx++;
}

static void send_frame(struct ring *r, unsigned pi, const uint8_t *buf,
		       size_t len)
{
	port_send(&r->port[pi], buf, len, &r->c);
}

static void fill_tx(struct ring *r, unsigned pi, struct mrp_tx *tx)
{
	memset(tx, 0, sizeof(*tx));
	memcpy(tx->src, r->port[pi].mac, 6);
	memcpy(tx->sa, r->sm.cfg.mac, 6);
	tx->prio = r->sm.cfg.prio;
	tx->domain = r->args.has_domain ? r->args.domain : NULL;
	tx->seq = ++r->seq;
}

/* ---- applying state machine actions ---- */

static int apply(struct ring *r, const struct mrp_actions *acts)
{
	uint8_t buf[MRP_MAX_FRAME];
	struct mrp_tx tx;
	unsigned i, pi;
	int first_err = 0;

	if (acts->overflow)
		LOG("%s ring %u: action list overflow", r->br_name, r->id);
	for (i = 0; i < acts->n; i++) {
		const struct mrp_action *a = &acts->a[i];
		size_t len;
		int err = 0;

		DBG("%s ring %u: %s port=%u a=%u b=%u c=%u d=%u [%s %s]",
		    r->br_name, r->id, mrp_act_name(a->type), a->port, a->a,
		    a->b, a->c, a->d, mrp_sm_mode_name(&r->sm),
		    mrp_sm_state_name(&r->sm));
		switch (a->type) {
		case MRP_ACT_PORT_STATE:
			err = mrp_nl_port_state(&g.req,
						r->port[a->port].ifindex, a->a);
			if (err)
				ring_err(r, "port state", err);
			break;
		case MRP_ACT_PORT_ROLE:
			err = mrp_nl_port_role(&g.req,
					       r->port[a->port].ifindex, a->a);
			if (err)
				ring_err(r, "port role", err);
			break;
		case MRP_ACT_RING_ROLE:
			err = mrp_nl_ring_role(&g.req, r->br_ifindex, r->id,
					       a->a);
			if (err)
				ring_err(r, "ring role", err);
			else
				ring_warn(r, "ring role");
			break;
		case MRP_ACT_RING_STATE:
			err = mrp_nl_ring_state(&g.req, r->br_ifindex, r->id,
						a->a);
			if (err)
				ring_err(r, "ring state", err);
			else
				LOG("%s ring %u: ring %s", r->br_name, r->id,
				    a->a == MRP_RING_CLOSED ? "closed" : "open");
			break;
		case MRP_ACT_START_TEST:
			err = mrp_nl_start_test(&g.req, r->br_ifindex, r->id,
						a->a, a->b, a->c, a->d);
			if (err)
				ring_err(r, "start test", err);
			else
				ring_warn(r, "start test");
			break;
		case MRP_ACT_SEND_TOPO:
			for (pi = 0; pi < 2; pi++) {
				fill_tx(r, pi, &tx);
				len = mrp_build_topo(buf, sizeof(buf), &tx,
						     (uint16_t)a->a);
				send_frame(r, pi, buf, len);
			}
			break;
		case MRP_ACT_SEND_LINK:
			fill_tx(r, a->port, &tx);
			len = mrp_build_link(buf, sizeof(buf), &tx, a->up,
					     (uint16_t)a->b, (uint16_t)a->a,
					     (uint16_t)a->c);
			send_frame(r, a->port, buf, len);
			break;
		case MRP_ACT_SEND_OPTION:
			for (pi = 0; pi < 2; pi++) {
				fill_tx(r, pi, &tx);
				len = mrp_build_option(buf, sizeof(buf), &tx,
						       (enum mrp_subtlv)a->a,
						       a->prio, a->mac);
				send_frame(r, pi, buf, len);
			}
			break;
		case MRP_ACT_FLUSH:
			for (pi = 0; pi < 2; pi++) {
				err = mrp_nl_port_flush(&g.req,
							r->port[pi].ifindex);
				if (err)
					ring_err(r, "fdb flush", err);
				else if (r->port[pi].ro.self_notify < 8)
					/* br_setlink() announces the port */
					r->port[pi].ro.self_notify++;
			}
			DBG("%s ring %u: fdb flushed", r->br_name, r->id);
			break;
		}
		if (err && !first_err)
			first_err = err;
	}
	if (r->sm.cfg.role == MRP_ROLE_MRA && r->sm.mrm_mode != r->was_manager) {
		r->was_manager = r->sm.mrm_mode;
		LOG("%s ring %u: MRA now acts as %s", r->br_name, r->id,
		    r->sm.mrm_mode ? "manager" : "client");
	}
	return first_err;
}

/* ---- rings ---- */

static struct ring *ring_find(int br, uint32_t id)
{
	struct ring *r;

	for (r = g.rings; r; r = r->next)
		if (r->br_ifindex == br && r->id == id)
			return r;
	return NULL;
}

static struct ring *ring_by_port(int ifindex, unsigned *pi)
{
	struct ring *r;

	for (r = g.rings; r; r = r->next) {
		if (r->port[0].ifindex == ifindex) {
			*pi = 0;
			return r;
		}
		if (r->port[1].ifindex == ifindex) {
			*pi = 1;
			return r;
		}
	}
	return NULL;
}

static void ring_unlink(struct ring *r)
{
	struct ring **pp;

	g.state_dirty = true;
	for (pp = &g.rings; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			g.nrings--;
			break;
		}
	}
	free(r->in);
	free(r);
}

/* Current state of the interfaces a ring uses. */
struct link_query {
	int want[3];		/* bridge, port0, port1 */
	struct mrp_nl_link l[3];
	bool found[3];
};

static void link_query_cb(const struct mrp_nl_link *l, void *arg)
{
	struct link_query *q = arg;
	unsigned i;

	for (i = 0; i < 3; i++) {
		if (q->want[i] != l->ifindex)
			continue;
		if (l->family == AF_BRIDGE) {
			/* only the port's MRP flag and state */
			q->l[i].has_ring_open = l->has_ring_open;
			q->l[i].ring_open = l->ring_open;
			q->l[i].has_in_open = l->has_in_open;
			q->l[i].in_open = l->in_open;
			q->l[i].has_br_state = l->has_br_state;
			q->l[i].br_state = l->br_state;
		} else {
			struct mrp_nl_link b = q->l[i];

			q->l[i] = *l;
			q->l[i].has_ring_open = b.has_ring_open;
			q->l[i].ring_open = b.ring_open;
			q->l[i].has_in_open = b.has_in_open;
			q->l[i].in_open = b.in_open;
			q->l[i].has_br_state = b.has_br_state;
			q->l[i].br_state = b.br_state;
			q->found[i] = true;
		}
	}
}

static int query_links(struct link_query *q)
{
	int err;

	memset(q->l, 0, sizeof(q->l));
	memset(q->found, 0, sizeof(q->found));
	err = mrp_nl_dump_links(&g.req, AF_UNSPEC, link_query_cb, q);
	if (!err)
		err = mrp_nl_dump_links(&g.req, AF_BRIDGE, link_query_cb, q);
	return err;
}

/*
 * The port's IFLA_BRPORT_MRP_RING_OPEN as the kernel has it now, or -1
 * when it cannot be read.
 */
static int ring_open_now(const struct port *p)
{
	struct link_query q;

	memset(&q, 0, sizeof(q));
	q.want[1] = p->ifindex;
	if (mrp_nl_dump_links(&g.req, AF_BRIDGE, link_query_cb, &q) ||
	    !q.l[1].has_ring_open)
		return -1;
	return q.l[1].ring_open;
}

/* mrp_loc_notify()'s flag_now: the flag now if more notifications wait. */
static int queued_flag_now(void *arg)
{
	return mrp_nl_queued(&g.ev) != 0 ? ring_open_now(arg) : -1;
}

static bool link_is_up(unsigned flags)
{
	return (flags & IFF_UP) && (flags & IFF_LOWER_UP);
}

/*
 * An own test frame, or the kernel's word that one came back, while the
 * manager is in PRM_UP.  The state machine takes it for a frame sent
 * before the secondary went down and still in flight, and ignores it:
 * the secondary's link-up is what closes the ring.  In case that
 * notification was lost, ask the kernel for the secondary's link and
 * pass on a link-up first if it is up.
 */
static void prm_up_check_link(struct ring *r, uint64_t now,
			      struct mrp_actions *acts)
{
	unsigned s = 1 - r->sm.prim;
	struct link_query q;

	if (!r->sm.mrm_mode || r->sm.mrm_state != MRM_PRM_UP ||
	    r->port[s].up)
		return;
	memset(&q, 0, sizeof(q));
	q.want[1] = r->port[s].ifindex;
	if (query_links(&q) || !q.found[1] || !link_is_up(q.l[1].flags))
		return;
	LOG("%s ring %u: %s link up (notification missed)", r->br_name,
	    r->id, r->port[s].name);
	r->port[s].up = true;
	mrp_sm_link(&r->sm, now, s, true, acts);
}

/*
 * The kernel's word that the manager's test frames stopped coming back,
 * while the manager holds a closed ring.  When one of its own ring ports
 * lost its carrier, that is why, and the link-down must be taken first:
 * the secondary's link going down opens the ring without a topology
 * change (no frame changes its path), the primary's swaps the ports.
 * The port's notification can come second: `ip link set down` stops the
 * switch port in ndo_stop() and sends RTM_NEWLINK only when that returns,
 * and a carrier lost to a cut cable is sent when linkwatch runs, up to a
 * second later, while the driver sends the loss report at once, without
 * RTNL.  Ask the kernel for the ports as they are now: the dump waits for
 * RTNL, so a port going down is down by then.
 */
static void ring_open_check_links(struct ring *r, uint64_t now,
				  struct mrp_actions *acts)
{
	struct link_query q;
	unsigned i;

	if (!r->sm.mrm_mode || r->sm.mrm_state != MRM_CHK_RC)
		return;
	memset(&q, 0, sizeof(q));
	q.want[1] = r->port[0].ifindex;
	q.want[2] = r->port[1].ifindex;
	if (query_links(&q))
		return;
	for (i = 0; i < 2; i++) {
		if (!r->port[i].up || !q.found[1 + i] ||
		    link_is_up(q.l[1 + i].flags))
			continue;
		LOG("%s ring %u: %s link down (before its notification)",
		    r->br_name, r->id, r->port[i].name);
		r->port[i].up = false;
		mrp_sm_link(&r->sm, now, i, false, acts);
	}
}

/*
 * A link-down notification is old news when the link is up again.  The
 * kernel sends the carrier's state when linkwatch runs, and we may read
 * that well after (a busy node reads its socket late); the link-up that
 * followed is still queued behind it.  Acting on it would start a
 * LinkDown series into a ring the manager has closed again meanwhile, and
 * a manager that reacts to link changes opens it a second time for one
 * flap.  The carrier as the kernel has it now (IFF_LOWER_UP is read when
 * the reply is built) decides: up means the flap is over, and if it was
 * long enough to break the ring, the manager saw its test frames stop.
 */
static bool link_up_again(struct ring *r, unsigned i)
{
	struct link_query q;

	memset(&q, 0, sizeof(q));
	q.want[1 + i] = r->port[i].ifindex;
	return !query_links(&q) && q.found[1 + i] &&
	       link_is_up(q.l[1 + i].flags);
}

/*
 * A client repeats MRP_LinkDown while its port is down.  When a repeat is
 * due and the link is up again although we have not read so yet (the
 * kernel reports carrier changes when linkwatch runs, and we may read the
 * socket late), the repeat would reach a ring the manager closed again
 * meanwhile, and a manager that reacts to link changes would open it a
 * second time for one flap.  Take the link-up now instead: the series
 * turns into LinkUp, and the notification, when it comes, changes nothing.
 */
static void link_down_series_check(struct ring *r, uint64_t now,
				   struct mrp_actions *acts)
{
	const struct mrp_sm *sm = &r->sm;
	unsigned i;

	if (sm->mrm_mode || sm->link_series_up || !sm->deadline[MRP_T_LINK] ||
	    sm->deadline[MRP_T_LINK] > now)
		return;
	for (i = 0; i < 2; i++) {
		if (r->port[i].up || !link_up_again(r, i))
			continue;
		LOG("%s ring %u: %s link up (before its notification)",
		    r->br_name, r->id, r->port[i].name);
		r->c.link_glitches++;
		r->port[i].up = true;
		mrp_sm_link(&r->sm, now, i, true, acts);
	}
}

/*
 * Take over the ring ports: from scratch (both blocked, start-up
 * replayed), or, for the kernel instance @k a previous daemon left, as
 * the kernel has them (mrp_sm_adopt()): a restart neither blocks a port
 * that forwards nor announces a topology change that did not happen.
 */
static void ring_start(struct ring *r, const struct link_query *q,
		       const struct mrp_nl_ring *k)
{
	struct mrp_actions acts = { 0 };
	struct mrp_sm_kstate ks;
	unsigned i;

	memset(&ks, 0, sizeof(ks));
	for (i = 0; i < 2; i++) {
		const struct mrp_nl_link *l = &q->l[i + 1];

		snprintf(r->port[i].name, IF_NAMESIZE, "%s", l->name);
		memcpy(r->port[i].mac, l->mac, 6);
		r->port[i].up = link_is_up(l->flags);
		r->port[i].ro.flag = l->has_ring_open ? l->ring_open : 0;
		ks.up[i] = r->port[i].up;
		ks.fwd[i] = l->has_br_state &&
			    l->br_state == BR_STATE_FORWARDING;
		ks.lost[i] = r->port[i].ro.flag == 1;
	}
	if (k && k->ring_role != (uint32_t)r->sm.cfg.role) {
		LOG("%s ring %u: the kernel has role %s, configured %s: "
		    "starting over", r->br_name, r->id,
		    mrp_role_name((enum mrp_ring_role)k->ring_role),
		    mrp_role_name(r->sm.cfg.role));
		k = NULL;
	}
	if (!k) {
		mrp_sm_start(&r->sm, now_us(), r->port[0].up, r->port[1].up,
			     &acts);
		apply(r, &acts);
		return;
	}
	ks.ring_state = k->ring_state == MRP_RING_CLOSED ? MRP_RING_CLOSED :
							   MRP_RING_OPEN;
	ks.monitor = k->test_monitor;
	mrp_sm_adopt(&r->sm, now_us(), &ks, &acts);
	LOG("%s ring %u: adopted as %s in %s (ports %s %s, %s %s)",
	    r->br_name, r->id, mrp_sm_mode_name(&r->sm),
	    mrp_sm_state_name(&r->sm), r->port[0].name,
	    ks.fwd[0] ? "forwarding" : "blocked", r->port[1].name,
	    ks.fwd[1] ? "forwarding" : "blocked");
	apply(r, &acts);
}

static int check_links(struct link_query *q, char *err, size_t errlen,
		       const struct mrp_ring_args *a)
{
	static const char *what[3] = { "bridge", "primary port",
				       "secondary port" };
	const char *names[3] = { a->br, a->p, a->s };
	unsigned i;

	for (i = 0; i < 3; i++) {
		if (!q->found[i]) {
			snprintf(err, errlen, "%s %s does not exist", what[i],
				 names[i]);
			return -ENODEV;
		}
	}
	if (!q->l[0].is_bridge) {
		snprintf(err, errlen, "%s is not a bridge", a->br);
		return -EINVAL;
	}
	for (i = 1; i < 3; i++) {
		if (q->l[i].master != q->want[0]) {
			snprintf(err, errlen, "%s is not a port of %s",
				 names[i], a->br);
			return -EINVAL;
		}
		if (!q->l[i].has_mac) {
			snprintf(err, errlen, "%s has no MAC address",
				 names[i]);
			return -EINVAL;
		}
	}
	if (!q->l[0].has_mac) {
		snprintf(err, errlen, "%s has no MAC address", a->br);
		return -EINVAL;
	}
	return 0;
}

/* The state machine's configuration for a ring's (all but the MAC). */
static int args_cfg(const struct mrp_ring_args *a, struct mrp_sm_cfg *cfg)
{
	if (mrp_sm_cfg_default(cfg, (enum mrp_ring_role)a->role,
			       a->profile) < 0)
		return -1;
	if (a->prio >= 0)
		cfg->prio = (uint16_t)a->prio;
	if (a->interval)
		mrp_sm_cfg_interval(cfg, a->interval);
	if (a->max_miss)
		cfg->prof.test_max = (uint8_t)a->max_miss;
	if (a->period)
		cfg->test_period_us = a->period;
	/*
	 * A manager that reacts to a client's MRP_LinkDown opens the ring
	 * before its test misses the frames.  That is what the standard's
	 * MRM_REACT_ON_LINK_CHANGE is for, where switches forward the frame
	 * in hardware.  Here every client forwards it through its CPU, so it
	 * comes later than the test's loss report (3 ms at profile 10; tens
	 * to hundreds of ms for LinkDown on a 14-switch TCG ring), and may
	 * come after the test frames closed the ring again: the manager then
	 * opens a closed ring.  Unless asked to, let the test decide: a
	 * LinkDown makes the manager test at the short interval.
	 */
	cfg->react_on_link_change = a->react > 0;
	cfg->blocked = a->nonblocking > 0 ? 0 : 1;
	return 0;
}

/* Create a ring, or, given @k, take over that kernel instance. */
static int ring_create(const struct mrp_ring_args *a, const struct mrp_nl_ring *k,
		       char *err, size_t errlen)
{
	bool adopt = k != NULL;
	struct link_query q;
	struct mrp_sm_cfg cfg;
	struct ring *r, *o;
	int e;

	memset(&q, 0, sizeof(q));
	q.want[0] = (int)if_nametoindex(a->br);
	q.want[1] = (int)if_nametoindex(a->p);
	q.want[2] = (int)if_nametoindex(a->s);
	if (!q.want[0] || !q.want[1] || !q.want[2]) {
		snprintf(err, errlen, "%s does not exist",
			 !q.want[0] ? a->br : !q.want[1] ? a->p : a->s);
		return -ENODEV;
	}
	if (q.want[1] == q.want[2]) {
		snprintf(err, errlen, "primary and secondary must differ");
		return -EINVAL;
	}
	if (ring_find(q.want[0], a->id)) {
		snprintf(err, errlen, "ring %u already exists on %s", a->id,
			 a->br);
		return -EEXIST;
	}
	for (o = g.rings; o; o = o->next) {
		unsigned i;

		if (o->in && (o->in->iport.ifindex == q.want[1] ||
			      o->in->iport.ifindex == q.want[2])) {
			snprintf(err, errlen, "%s is the port of interconnection "
				 "%u of %s", o->in->iport.name, o->in->id,
				 o->br_name);
			return -EBUSY;
		}
		for (i = 0; i < 2; i++) {
			if (o->port[i].ifindex == q.want[1] ||
			    o->port[i].ifindex == q.want[2]) {
				snprintf(err, errlen,
					 "%s is already in ring %u of %s",
					 o->port[i].name, o->id, o->br_name);
				return -EBUSY;
			}
		}
	}
	if (g.nrings >= MAX_RINGS) {
		snprintf(err, errlen, "too many rings");
		return -ENOSPC;
	}
	e = query_links(&q);
	if (e) {
		snprintf(err, errlen, "reading links: %s", strerror(-e));
		return e;
	}
	e = check_links(&q, err, errlen, a);
	if (e)
		return e;

	if (args_cfg(a, &cfg) < 0) {
		snprintf(err, errlen, "bad role or profile");
		return -EINVAL;
	}
	memcpy(cfg.mac, q.l[0].mac, 6);

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->args = *a;
	r->br_ifindex = q.want[0];
	snprintf(r->br_name, sizeof(r->br_name), "%s", q.l[0].name);
	r->id = a->id;
	r->port[0].ifindex = q.want[1];
	r->port[1].ifindex = q.want[2];
	r->adopted = adopt;
	r->was_manager = cfg.role != MRP_ROLE_MRC;
	r->created_us = now_us();
	/*
	 * The MRP_SequenceID of the ring's frames starts anywhere, so that a
	 * ring created again, or taken over by a restarted mrpd, does not
	 * repeat the sequence IDs its predecessor sent a moment before:
	 * captures (and receivers that drop repeats) tell the two apart.
	 */
	if (getrandom(&r->seq, sizeof(r->seq), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(r->seq))
		r->seq = (uint16_t)(r->created_us ^ (uint64_t)getpid());
	mrp_sm_init(&r->sm, &cfg);

	if (!adopt) {
		e = mrp_nl_ring_add(&g.req, r->br_ifindex, r->id,
				    r->port[0].ifindex, r->port[1].ifindex,
				    cfg.prio);
		if (e) {
			snprintf(err, errlen, "kernel refused the ring: %s%s",
				 mrp_nl_strerror(&g.req, e),
				 e == -EINVAL && !g.req.ext_msg[0] ?
				 " (ring id in use, port not in the bridge or "
				 "already in a ring?)" : "");
			free(r);
			return e;
		}
	}
	r->next = g.rings;
	g.rings = r;
	g.nrings++;
	g.state_dirty = true;
	if (!adopt)
		ring_warn(r, "ring");
	ring_start(r, &q, k);
	if (r->c.nl_err) {
		/* The kernel refused part of the setup (e.g. the role):
		 * report it and do not leave a half-configured ring.  An
		 * instance taken over stays as it was: deleting it would
		 * make both ports forward. */
		snprintf(err, errlen, "%s", r->last_err);
		if (!adopt)
			mrp_nl_ring_del(&g.req, r->br_ifindex, r->id,
					r->port[0].ifindex,
					r->port[1].ifindex);
		ring_unlink(r);
		return -EIO;
	}
	LOG("%s ring %u %s: %s primary %s secondary %s profile %u prio 0x%04x",
	    r->br_name, r->id, adopt ? "reclaimed" : "added",
	    mrp_role_name(cfg.role), r->port[0].name, r->port[1].name,
	    cfg.prof.ms, cfg.prio);
	if (a->has_domain && cfg.role != MRP_ROLE_MRC)
		LOG("%s ring %u: note: MRP_Test frames carry the default "
		    "domain (the kernel has no attribute for another)",
		    r->br_name, r->id);
	return 0;
}

static void in_delete(struct ring *r, bool kernel);

static void ring_delete(struct ring *r, bool kernel)
{
	if (r->in)
		in_delete(r, kernel);
	if (kernel) {
		int e = mrp_nl_ring_del(&g.req, r->br_ifindex, r->id,
					r->port[0].ifindex,
					r->port[1].ifindex);

		if (e && e != -ENODEV)
			LOG("%s ring %u: delete: %s", r->br_name, r->id,
			    mrp_nl_strerror(&g.req, e));
		/*
		 * Both ports forward now: if one was blocked the topology
		 * changed and what this bridge learned is stale.  Nobody
		 * will tell it (it is no MRC any more): flush now.
		 */
		mrp_nl_port_flush(&g.req, r->port[0].ifindex);
		mrp_nl_port_flush(&g.req, r->port[1].ifindex);
	}
	LOG("%s ring %u removed", r->br_name, r->id);
	ring_unlink(r);
}

/* ---- interconnections ---- */

static void in_err(struct ring *r, const char *what, int err)
{
	struct inter *in = r->in;

	in->c.nl_err++;
	snprintf(in->last_err, sizeof(in->last_err), "%s: %s", what,
		 mrp_nl_strerror(&g.req, err));
	LOG("%s interconnection %u: %s", r->br_name, in->id, in->last_err);
}

static void in_warn(struct ring *r, const char *what)
{
	struct inter *in = r->in;
	char w[sizeof(in->kernel_warn)];

	if (!g.req.ext_msg[0])
		return;
	snprintf(w, sizeof(w), "%s: %s", what, g.req.ext_msg);
	if (!strcmp(w, in->kernel_warn))
		return;
	memcpy(in->kernel_warn, w, sizeof(w));
	LOG("%s interconnection %u: kernel warning: %s", r->br_name, in->id,
	    w);
}

/* Port @pi of the interconnection's state machine: ring ports, I-port */
static struct port *in_port(struct ring *r, unsigned pi)
{
	return pi == MRP_IN_PORT_I ? &r->in->iport : &r->port[pi];
}

/* MRP_PortRole of port @pi in In* frames: the ring's roles as they are */
static uint16_t in_port_role(const struct ring *r, unsigned pi)
{
	if (pi == MRP_IN_PORT_I)
		return 2;	/* interconnection port */
	return r->sm.prim == pi ? 0 : 1;
}

static void in_send(struct ring *r, unsigned pi, const uint8_t *buf,
		    size_t len)
{
	port_send(in_port(r, pi), buf, len, &r->in->c);
}

static void in_fill_tx(struct ring *r, unsigned pi, struct mrp_tx *tx)
{
	memset(tx, 0, sizeof(*tx));
	memcpy(tx->src, in_port(r, pi)->mac, 6);
	memcpy(tx->sa, r->in->sm.cfg.mac, 6);
	tx->domain = r->args.has_domain ? r->args.domain : NULL;
	/* one sender, one MRP_SequenceID: the ring's */
	tx->seq = ++r->seq;
}

/* Carry out what the interconnection's state machine asks for. */
static int in_apply(struct ring *r, const struct mrp_in_actions *acts)
{
	struct inter *in = r->in;
	uint8_t buf[MRP_MAX_FRAME];
	struct mrp_tx tx;
	unsigned i, pi;
	int first_err = 0;

	if (acts->overflow)
		LOG("%s interconnection %u: action list overflow", r->br_name,
		    in->id);
	for (i = 0; i < acts->n; i++) {
		const struct mrp_in_action *a = &acts->a[i];
		size_t len;
		int err = 0;

		DBG("%s interconnection %u: %s port=%u up=%d a=%u b=%u c=%u "
		    "[%s]", r->br_name, in->id, mrp_in_act_name(a->type),
		    a->port, a->up, a->a, a->b, a->c,
		    mrp_in_sm_state_name(&in->sm));
		switch (a->type) {
		case MRP_IN_ACT_ROLE:
			err = mrp_nl_in_role(&g.req, r->br_ifindex, r->id,
					     in->id, in->iport.ifindex, a->a);
			if (err)
				in_err(r, "interconnection role", err);
			else
				in_warn(r, "interconnection role");
			break;
		case MRP_IN_ACT_STATE:
			err = mrp_nl_in_state(&g.req, r->br_ifindex, in->id,
					      a->a);
			if (err)
				in_err(r, "interconnection state", err);
			else
				LOG("%s interconnection %u: %s", r->br_name,
				    in->id, a->a == MRP_IN_CLOSED ? "closed" :
				    "open");
			break;
		case MRP_IN_ACT_PORT_STATE:
			if (a->port >= MRP_IN_PORTS)
				break;
			err = mrp_nl_port_state(&g.req,
						in_port(r, a->port)->ifindex,
						a->a);
			if (err)
				in_err(r, "port state", err);
			break;
		case MRP_IN_ACT_START_TEST:
			/* the kernel takes no interval 0: nothing to stop
			 * (mrp_in_sm never asks for it) */
			if (!a->a)
				break;
			err = mrp_nl_start_in_test(&g.req, r->br_ifindex,
						   in->id, a->a, a->b, a->c);
			if (err)
				in_err(r, "start in test", err);
			else
				in_warn(r, "start in test");
			break;
		case MRP_IN_ACT_SEND_TOPO:
			for (pi = 0; pi < MRP_IN_PORTS; pi++) {
				in_fill_tx(r, pi, &tx);
				len = mrp_build_in_topo(buf, sizeof(buf), &tx,
							in->id,
							(uint16_t)a->a);
				in_send(r, pi, buf, len);
			}
			break;
		case MRP_IN_ACT_SEND_LINK:
			for (pi = 0; pi < MRP_IN_PORTS; pi++) {
				in_fill_tx(r, pi, &tx);
				len = mrp_build_in_link(buf, sizeof(buf), &tx,
							a->up, in->id,
							in_port_role(r, pi),
							(uint16_t)a->a);
				in_send(r, pi, buf, len);
			}
			break;
		case MRP_IN_ACT_FLUSH:
			for (pi = 0; pi < MRP_IN_PORTS; pi++) {
				err = mrp_nl_port_flush(&g.req,
							in_port(r, pi)->ifindex);
				if (err)
					in_err(r, "fdb flush", err);
				else if (pi < 2 && r->port[pi].ro.self_notify < 8)
					/* br_setlink() announces the port */
					r->port[pi].ro.self_notify++;
			}
			DBG("%s interconnection %u: fdb flushed", r->br_name,
			    in->id);
			break;
		}
		if (err && !first_err)
			first_err = err;
	}
	return first_err;
}

/* The ring with interconnection @id on bridge @br */
static struct ring *in_find(int br, uint32_t id)
{
	struct ring *r;

	for (r = g.rings; r; r = r->next)
		if (r->br_ifindex == br && r->in && r->in->id == id)
			return r;
	return NULL;
}

/* The ring whose interconnection port is @ifindex */
static struct ring *in_by_port(int ifindex)
{
	struct ring *r;

	for (r = g.rings; r; r = r->next)
		if (r->in && r->in->iport.ifindex == ifindex)
			return r;
	return NULL;
}

/*
 * The kernel instance of ring @r as the kernel has it: an interconnection
 * a previous mrpd left in it must go before a new one can be set.
 */
struct find_instance {
	int br;
	uint32_t id;
	bool found;
	struct mrp_nl_ring k;
};

static void find_instance_cb(const struct mrp_nl_ring *k, void *arg)
{
	struct find_instance *f = arg;

	if (k->br_ifindex == f->br && k->ring_id == f->id) {
		f->found = true;
		f->k = *k;
	}
}

static void in_disable_stale(struct ring *r)
{
	struct find_instance f;
	int e;

	memset(&f, 0, sizeof(f));
	f.br = r->br_ifindex;
	f.id = r->id;
	if (mrp_nl_dump_rings(&g.req, find_instance_cb, &f) || !f.found ||
	    !f.k.i_ifindex)
		return;
	e = mrp_nl_in_role(&g.req, r->br_ifindex, r->id, 0, f.k.i_ifindex,
			   MRP_IN_ROLE_DISABLED);
	LOG("%s ring %u: stale interconnection (port ifindex %d, role %s) "
	    "%s", r->br_name, r->id, f.k.i_ifindex,
	    mrp_in_role_name((enum mrp_in_role)f.k.in_role),
	    e ? mrp_nl_strerror(&g.req, e) : "disabled");
}

/*
 * Start the state machine of ring @r's new interconnection, with the
 * I-port's link query @q, or, given the kernel's instance @k, take over
 * the interconnection it has (mrp_in_sm_adopt()).
 */
static void in_start(struct ring *r, const struct link_query *q,
		     const struct mrp_nl_ring *k)
{
	struct mrp_in_actions acts = { 0 };
	struct inter *in = r->in;
	struct mrp_in_sm_kstate ks;

	if (!k) {
		in_disable_stale(r);
		mrp_in_sm_start(&in->sm, now_us(), r->port[0].up,
				r->port[1].up, in->iport.up, &acts);
		in_apply(r, &acts);
		return;
	}
	memset(&ks, 0, sizeof(ks));
	ks.up[0] = r->port[0].up;
	ks.up[1] = r->port[1].up;
	ks.up[MRP_IN_PORT_I] = in->iport.up;
	ks.fwd_i = q->l[0].has_br_state &&
		   q->l[0].br_state == BR_STATE_FORWARDING;
	ks.in_state = k->in_state == MRP_IN_CLOSED ? MRP_IN_CLOSED :
						    MRP_IN_OPEN;
	mrp_in_sm_adopt(&in->sm, now_us(), &ks, &acts);
	LOG("%s interconnection %u: adopted in %s (I-port %s %s, kernel's "
	    "state %s)", r->br_name, in->id, mrp_in_sm_state_name(&in->sm),
	    in->iport.name, ks.fwd_i ? "forwarding" : "blocked",
	    ks.in_state == MRP_IN_CLOSED ? "closed" : "open");
	in_apply(r, &acts);
}

/*
 * Add interconnection @a to its ring: set the role, start the machine;
 * or, given the ring's kernel instance @k, take over the interconnection
 * it has, which must be @a's (port and role: the caller checks).
 */
static int in_create(const struct mrp_in_args *a, const struct mrp_nl_ring *k,
		     char *err, size_t errlen)
{
	struct link_query q;
	struct mrp_in_cfg cfg;
	struct inter *in;
	struct ring *r, *o;
	const char *why;
	int br, ip, e;
	unsigned i;

	why = mrp_in_args_cfg(a, &cfg);
	if (why) {
		snprintf(err, errlen, "%s", why);
		return a->mode == MRP_IN_MODE_LC ? -EOPNOTSUPP : -EINVAL;
	}
	br = (int)if_nametoindex(a->br);
	r = br ? ring_find(br, a->ring) : NULL;
	if (!r) {
		snprintf(err, errlen, "no ring %u on %s (add the ring first: "
			 "an interconnection belongs to a ring mrpd runs)",
			 a->ring, a->br);
		return -ENOENT;
	}
	if (r->in) {
		snprintf(err, errlen, "ring %u of %s already has "
			 "interconnection %u (one per ring)", r->id,
			 r->br_name, r->in->id);
		return -EEXIST;
	}
	o = in_find(br, a->id);
	if (o) {
		snprintf(err, errlen, "interconnection %u already exists on "
			 "%s (ring %u)", a->id, r->br_name, o->id);
		return -EEXIST;
	}
	/*
	 * The bridge finds an instance by its interconnection ID alone, and
	 * an instance without one has ID 0: with another ring on the bridge,
	 * IN_STATE and START_IN_TEST for ID 0 may reach that one.
	 */
	for (o = g.rings; o && a->id == 0; o = o->next) {
		if (o != r && o->br_ifindex == br) {
			snprintf(err, errlen, "interconnection ID 0 is "
				 "ambiguous on %s: ring %u has no "
				 "interconnection and the kernel gives it ID 0 "
				 "(use another ID)", r->br_name, o->id);
			return -EINVAL;
		}
	}
	ip = (int)if_nametoindex(a->port);
	if (!ip) {
		snprintf(err, errlen, "port %s does not exist", a->port);
		return -ENODEV;
	}
	for (o = g.rings; o; o = o->next) {
		for (i = 0; i < 2; i++) {
			if (o->port[i].ifindex == ip) {
				snprintf(err, errlen, "%s is already in ring "
					 "%u of %s", o->port[i].name, o->id,
					 o->br_name);
				return -EBUSY;
			}
		}
		if (o->in && o->in->iport.ifindex == ip) {
			snprintf(err, errlen, "%s is already the port of "
				 "interconnection %u of %s", a->port,
				 o->in->id, o->br_name);
			return -EBUSY;
		}
	}
	memset(&q, 0, sizeof(q));
	q.want[0] = ip;
	q.want[1] = r->port[0].ifindex;
	q.want[2] = r->port[1].ifindex;
	e = query_links(&q);
	if (e) {
		snprintf(err, errlen, "reading links: %s", strerror(-e));
		return e;
	}
	if (!q.found[0]) {
		snprintf(err, errlen, "port %s does not exist", a->port);
		return -ENODEV;
	}
	if (q.l[0].master != br) {
		snprintf(err, errlen, "%s is not a port of %s", a->port,
			 r->br_name);
		return -EINVAL;
	}
	if (!q.l[0].has_mac) {
		snprintf(err, errlen, "%s has no MAC address", a->port);
		return -EINVAL;
	}

	in = calloc(1, sizeof(*in));
	if (!in) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	in->args = *a;
	in->id = (uint16_t)a->id;
	in->iport.ifindex = ip;
	snprintf(in->iport.name, IF_NAMESIZE, "%s", q.l[0].name);
	memcpy(in->iport.mac, q.l[0].mac, 6);
	in->iport.up = link_is_up(q.l[0].flags);
	for (i = 0; i < MRP_IN_PORTS; i++) {
		/* q.l[0] is the I-port, 1 and 2 the ring ports */
		const struct mrp_nl_link *l = &q.l[i == MRP_IN_PORT_I ? 0 :
						       i + 1];

		in->in_open[i] = l->has_in_open ? l->in_open : -1;
	}
	in->created_us = now_us();
	memcpy(cfg.mac, r->sm.cfg.mac, 6);
	mrp_in_sm_init(&in->sm, &cfg);
	r->in = in;

	in_start(r, &q, k);
	if (in->c.nl_err) {
		/*
		 * Do not leave half an interconnection in the kernel; one
		 * taken over stays as it was (disabled, the I-port would
		 * forward).
		 */
		snprintf(err, errlen, "%s", in->last_err);
		if (!k)
			mrp_nl_in_role(&g.req, r->br_ifindex, r->id, in->id,
				       ip, MRP_IN_ROLE_DISABLED);
		r->in = NULL;
		free(in);
		return -EIO;
	}
	g.state_dirty = true;
	LOG("%s interconnection %u %s: ring %u port %s role %s mode %s "
	    "profile %u test %u us x %u", r->br_name, in->id,
	    k ? "reclaimed" : "added", r->id, in->iport.name,
	    mrp_in_role_name(cfg.role),
	    mrp_in_mode_name(cfg.mode), cfg.prof.ms,
	    cfg.prof.test_interval_us, cfg.prof.test_max);
	return 0;
}

/*
 * Remove the interconnection of ring @r; @kernel: disable the role in the
 * kernel (which stops the InTest and sets the I-port forwarding as any
 * bridge port), else the kernel already forgot it.
 */
static void in_delete(struct ring *r, bool kernel)
{
	struct inter *in = r->in;

	if (!in)
		return;
	if (kernel) {
		int e = mrp_nl_in_role(&g.req, r->br_ifindex, r->id, in->id,
				       in->iport.ifindex,
				       MRP_IN_ROLE_DISABLED);

		if (e && e != -ENODEV)
			LOG("%s interconnection %u: disable: %s", r->br_name,
			    in->id, mrp_nl_strerror(&g.req, e));
		/* the I-port forwards now: what was learned is stale */
		mrp_nl_port_flush(&g.req, in->iport.ifindex);
	}
	LOG("%s interconnection %u removed", r->br_name, in->id);
	g.state_dirty = true;
	r->in = NULL;
	free(in);
}

/*
 * A notification of port @pi (ring port or I-port) carried
 * IFLA_BRPORT_MRP_IN_OPEN = @flag.  The bridge reports a loss on all
 * three ports, every test interval while the interconnection is closed,
 * and clears a port's flag only when an own InTest comes back through it
 * while the interconnection is open: neither IN_STATE closed nor a new
 * test clears it.  So the three flags are read together: all set is a
 * loss (mrp_in_sm tells a stale one by its timing), a port clearing is
 * the regain.
 */
static void in_open_notify(struct ring *r, unsigned pi, bool flag,
			   uint64_t now, struct mrp_in_actions *acts)
{
	struct inter *in = r->in;

	switch (mrp_in_open_flags(in->in_open, pi, flag)) {
	case 0:
		DBG("%s interconnection %u: %s: InTest back", r->br_name,
		    in->id, in_port(r, pi)->name);
		mrp_in_sm_in_open(&in->sm, now, false, acts);
		break;
	case 1:
		logmsg(2, "%s interconnection %u: %s: InTest lost",
		       r->br_name, in->id, in_port(r, pi)->name);
		mrp_in_sm_in_open(&in->sm, now, true, acts);
		break;
	default:
		break;
	}
}

/* Link events for the interconnections (after the rings took theirs). */
static void in_on_link(const struct mrp_nl_link *l, uint64_t now)
{
	struct ring *r, *next;

	for (r = g.rings; r; r = next) {
		struct mrp_in_actions acts = { 0 };
		struct inter *in = r->in;
		unsigned pi;

		next = r->next;
		if (!in)
			continue;
		if (l->ifindex == in->iport.ifindex)
			pi = MRP_IN_PORT_I;
		else if (l->ifindex == r->port[0].ifindex)
			pi = 0;
		else if (l->ifindex == r->port[1].ifindex)
			pi = 1;
		else
			continue;
		if (l->family == AF_BRIDGE) {
			if (l->type == RTM_NEWLINK && l->has_in_open)
				in_open_notify(r, pi, l->in_open, now, &acts);
		} else if (pi == MRP_IN_PORT_I) {
			struct port *p = &in->iport;
			bool up = link_is_up(l->flags);

			if (l->type == RTM_DELLINK || l->master != r->br_ifindex) {
				/*
				 * br_mrp_port_del(): the bridge deletes the
				 * whole instance, ring and all, when any of
				 * its ports goes
				 */
				LOG("%s interconnection %u: port %s %s: the "
				    "kernel dropped ring %u with it",
				    r->br_name, in->id, p->name,
				    l->type == RTM_DELLINK ? "deleted" :
				    "left the bridge", r->id);
				ring_delete(r, false);
				continue;
			}
			if (l->has_mac)
				memcpy(p->mac, l->mac, 6);
			if (l->name[0])
				snprintf(p->name, IF_NAMESIZE, "%s", l->name);
			if (up != p->up) {
				LOG("%s interconnection %u: %s link %s",
				    r->br_name, in->id, p->name,
				    up ? "up" : "down");
				p->up = up;
				mrp_in_sm_link(&in->sm, now, pi, up, &acts);
			}
		} else if (l->type == RTM_NEWLINK) {
			/* the ring took it: its view of the link */
			mrp_in_sm_link(&in->sm, now, pi, r->port[pi].up,
				       &acts);
		}
		in_apply(r, &acts);
	}
}

/* A valid MRP frame on port @pi of ring @r's interconnection. */
static void in_frame(struct ring *r, unsigned pi, const struct mrp_pdu *pdu,
		     uint64_t now)
{
	struct mrp_in_actions acts = { 0 };

	switch (pdu->type) {
	case MRP_TLV_IN_TEST:
	case MRP_TLV_IN_TOPO:
	case MRP_TLV_IN_LINK_DOWN:
	case MRP_TLV_IN_LINK_UP:
	case MRP_TLV_IN_LINK_STATUS:
		break;
	default:
		return;
	}
	mrp_in_sm_frame(&r->in->sm, now, pi, pdu, &acts);
	in_apply(r, &acts);
}

/* ---- configuration: the config file and the state kept under /run ---- */

static struct mrp_conf conf;	/* the config file as last read */

/* What the kernel instance was made of: bridge, ports, priority, role. */
static bool args_same_instance(const struct mrp_ring_args *a,
			       const struct mrp_ring_args *b)
{
	return mrp_ring_args_same(a, b) && !strcmp(a->p, b->p) &&
	       !strcmp(a->s, b->s) && a->role == b->role &&
	       a->prio == b->prio;
}

static bool args_equal(const struct mrp_ring_args *a, const struct mrp_ring_args *b)
{
	return args_same_instance(a, b) && a->profile == b->profile &&
	       a->interval == b->interval && a->max_miss == b->max_miss &&
	       a->period == b->period && a->react == b->react &&
	       a->nonblocking == b->nonblocking &&
	       a->has_domain == b->has_domain &&
	       (!a->has_domain || !memcmp(a->domain, b->domain, 16));
}

/* A config or state file (mrp_conf_read()), with mrpd's default profile */
static int read_conf(const char *path, struct mrp_conf *c, char *err,
		     size_t errlen)
{
	return mrp_conf_read(path, c, g.default_profile, err, errlen);
}

/*
 * The rings and interconnections this daemon runs, as configured, for
 * the next one to take their kernel instances over with the same
 * configuration.  Written whenever one comes or goes, to a new file
 * renamed over the old.
 */
static void write_state(void)
{
	char tmp[PATH_MAX + 8], line[MRPD_MAX_LINE];
	struct ring *r;
	FILE *f;

	if (!g.state_path[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", g.state_path);
	f = fopen(tmp, "w");
	if (!f) {
		LOG("state %s: %s", tmp, strerror(errno));
		return;
	}
	fprintf(f, "# mrpd %s: the rings and interconnections of this "
		"network namespace, read back by the next mrpd\n",
		MRP_TOOLS_VERSION);
	for (r = g.rings; r; r = r->next) {
		mrp_ring_args_format(&r->args, line, sizeof(line));
		fprintf(f, "%s\n", line);
		if (!r->in)
			continue;
		mrp_in_args_format(&r->in->args, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (fflush(f) || ferror(f)) {
		LOG("state %s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return;
	}
	fclose(f);
	if (rename(tmp, g.state_path)) {
		LOG("state %s: %s", g.state_path, strerror(errno));
		unlink(tmp);
	}
}

/*
 * Where the state goes: one file per network namespace (the kernel
 * instances live there; every namespace has its own mrpd and its own
 * @mrpd socket, but /run is shared).
 */
static void state_path_init(void)
{
	struct stat st;

	if (!g.state_dir[0])
		return;
	if (stat("/proc/self/ns/net", &st)) {
		LOG("state: /proc/self/ns/net: %s: not kept", strerror(errno));
		return;
	}
	if (mkdir(g.state_dir, 0755) && errno != EEXIST) {
		LOG("state: %s: %s: not kept", g.state_dir, strerror(errno));
		return;
	}
	if (snprintf(g.state_path, sizeof(g.state_path), "%s/%s.net%llu",
		     g.state_dir, g.sock_name,
		     (unsigned long long)st.st_ino) >= (int)sizeof(g.state_path)) {
		LOG("state: %s: name too long: not kept", g.state_dir);
		g.state_path[0] = 0;
	}
}

/* ---- kernel instances a previous daemon left ---- */

struct stale {
	struct mrp_nl_ring r[MAX_RINGS];
	unsigned n;
};

static void stale_cb(const struct mrp_nl_ring *r, void *arg)
{
	struct stale *s = arg;

	if (s->n < MAX_RINGS)
		s->r[s->n++] = *r;
}

/* Neither the config nor the state file knows the ring: read the kernel. */
static void guess_args(const struct mrp_nl_ring *k, struct mrp_ring_args *a)
{
	static const unsigned ms[] = { 10, 30, 200, 500 };
	unsigned i;

	a->role = (int)k->ring_role;
	a->prio = k->prio;
	a->react = -1;
	a->profile = g.default_profile;
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		const struct mrp_profile *p = mrp_profile_get(ms[i]);

		if (p->test_interval_us == k->test_interval ||
		    p->test_short_us == k->test_interval) {
			a->profile = ms[i];
			break;
		}
	}
	if (k->test_max_miss &&
	    k->test_max_miss != mrp_profile_get(a->profile)->test_max)
		a->max_miss = k->test_max_miss;
}

/* The interconnection file @c has for ring @r, NULL if none */
static const struct mrp_in_args *conf_in_of(const struct mrp_conf *c,
					    const struct ring *r)
{
	unsigned i;

	for (i = 0; i < c->nin; i++)
		if (c->in[i].ring == r->id && !strcmp(c->in[i].br, r->br_name))
			return &c->in[i];
	return NULL;
}

/*
 * Is @a what the kernel's instance @k has (the I-port and role: the
 * kernel does not tell the interconnection ID)?  Logged when not.
 */
static bool in_matches(const struct ring *r, const struct mrp_in_args *a,
		       const struct mrp_nl_ring *k, const char *file)
{
	char port[IF_NAMESIZE] = "?";

	if ((int)if_nametoindex(a->port) == k->i_ifindex &&
	    a->role == (int)k->in_role)
		return true;
	if_indextoname((unsigned)k->i_ifindex, port);
	LOG("%s ring %u: %s has interconnection %u port %s role %s, the "
	    "kernel port %s role %s: ignored", r->br_name, r->id, file, a->id,
	    a->port, mrp_in_role_name((enum mrp_in_role)a->role), port,
	    mrp_in_role_name((enum mrp_in_role)k->in_role));
	return false;
}

/*
 * Take over the interconnection of ring @r's kernel instance @k, with the
 * config file's configuration, else the state file's (@saved), when it
 * matches the kernel's.  The kernel does not tell the ID: the state
 * file's says which the kernel has, and a config file that names
 * another changed it.  An interconnection of the config file that is not
 * the kernel's is created afresh (conf_create_missing(), the kernel's
 * disabled first); one known to no file is left as it is.
 */
static void in_reclaim(struct ring *r, const struct mrp_nl_ring *k,
		       const struct mrp_conf *saved)
{
	const struct mrp_in_args *c = conf_in_of(&conf, r);
	const struct mrp_in_args *s = conf_in_of(saved, r);
	char err[300];

	if (!k->i_ifindex || k->in_role == MRP_IN_ROLE_DISABLED)
		return;
	if (s && !in_matches(r, s, k, "the state file"))
		s = NULL;
	if (c && !in_matches(r, c, k, "the config file"))
		return;
	if (c && s && c->id != s->id) {
		LOG("%s ring %u: the config file has interconnection %u, the "
		    "kernel %u (the state file's): ignored", r->br_name, r->id,
		    c->id, s->id);
		return;
	}
	if (!c && !s) {
		LOG("%s ring %u: an interconnection in the kernel (port "
		    "ifindex %d) in no file (the kernel does not tell its ID): "
		    "left as it is", r->br_name, r->id, k->i_ifindex);
		return;
	}
	if (in_create(c ? c : s, k, err, sizeof(err))) {
		LOG("%s ring %u: cannot take interconnection %u over (%s): "
		    "left as it is", r->br_name, r->id, (c ? c : s)->id, err);
		return;
	}
	r->in->from_conf = c != NULL;
	LOG("%s interconnection %u: configuration from the %s file",
	    r->br_name, r->in->id, c ? "config" : "state");
}

/*
 * Take over the kernel's MRP instances with their configuration: the
 * config file's for its rings, else the state file's (what the previous
 * daemon ran), else what the kernel tells.  An instance that cannot be
 * taken over stays as it is (a manager's secondary stays blocked): only
 * --clean-stale deletes them, and the roles mrpd cannot run.
 */
static void reclaim(void)
{
	struct mrp_conf *saved = calloc(1, sizeof(*saved));
	struct stale *s = calloc(1, sizeof(*s));
	char err[300] = "";
	unsigned i, j;
	int e;

	if (!s || !saved)
		goto out;
	if (g.state_path[0]) {
		e = read_conf(g.state_path, saved, err, sizeof(err));
		if (e && e != -ENOENT)
			LOG("state: %s: ignored", err);
	}
	e = mrp_nl_dump_rings(&g.req, stale_cb, s);
	if (e)
		LOG("reading MRP instances: %s", mrp_nl_strerror(&g.req, e));
	for (i = 0; i < s->n; i++) {
		const struct mrp_nl_ring *k = &s->r[i];
		const struct mrp_ring_args *c = NULL;
		const char *from = "the kernel";
		struct mrp_ring_args a;
		bool in_conf;

		memset(&a, 0, sizeof(a));
		if (!if_indextoname((unsigned)k->br_ifindex, a.br) ||
		    !if_indextoname((unsigned)k->p_ifindex, a.p) ||
		    !if_indextoname((unsigned)k->s_ifindex, a.s))
			continue;
		a.id = k->ring_id;
		guess_args(k, &a);
		for (j = 0; j < conf.n && !c; j++)
			if (mrp_ring_args_same(&conf.a[j], &a))
				c = &conf.a[j];
		if (c && (strcmp(c->p, a.p) || strcmp(c->s, a.s) ||
			  (c->prio >= 0 && c->prio != a.prio))) {
			/* the config changed what the instance is made of */
			e = mrp_nl_ring_del(&g.req, k->br_ifindex, k->ring_id,
					    k->p_ifindex, k->s_ifindex);
			LOG("%s ring %u: the config file has other ports or "
			    "prio: instance %s", a.br, a.id,
			    e ? mrp_nl_strerror(&g.req, e) : "deleted");
			continue;
		}
		in_conf = c != NULL;
		if (in_conf) {
			from = "the config file";
		} else {
			for (j = 0; j < saved->n && !c; j++)
				if (mrp_ring_args_same(&saved->a[j], &a) &&
				    !strcmp(saved->a[j].p, a.p) &&
				    !strcmp(saved->a[j].s, a.s) &&
				    saved->a[j].role == a.role)
					c = &saved->a[j];
			if (c)
				from = "the state file";
		}
		if (g.clean_stale || k->ring_role == MRP_ROLE_DISABLED) {
			e = mrp_nl_ring_del(&g.req, k->br_ifindex, k->ring_id,
					    k->p_ifindex, k->s_ifindex);
			LOG("%s ring %u: stale instance %s", a.br, k->ring_id,
			    e ? mrp_nl_strerror(&g.req, e) : "deleted");
			continue;
		}
		e = ring_create(c ? c : &a, k, err, sizeof(err));
		if (e) {
			LOG("%s ring %u: cannot take the instance over (%s): "
			    "left as it is", a.br, a.id, err);
			continue;
		}
		g.rings->from_conf = in_conf;
		LOG("%s ring %u: configuration from %s", a.br, a.id, from);
		in_reclaim(g.rings, k, saved);
	}
out:
	free(s);
	free(saved);
}

/* Create the rings of the config file that do not run. */
static void conf_create_rings(bool log_again)
{
	unsigned i;

	for (i = 0; i < conf.n; i++) {
		const struct mrp_ring_args *a = &conf.a[i];
		int br = (int)if_nametoindex(a->br);
		char err[300];
		struct ring *r;

		r = br ? ring_find(br, a->id) : NULL;
		if (r) {
			r->from_conf = true;
			continue;
		}
		if (ring_create(a, NULL, err, sizeof(err))) {
			if (!conf.failed[i] || log_again)
				LOG("%s ring %u (config file): %s", a->br,
				    a->id, err);
			conf.failed[i] = true;
			continue;
		}
		conf.failed[i] = false;
		g.rings->from_conf = true;
	}
}

/* The same for interconnections, once their rings run. */
static void conf_create_ins(bool log_again)
{
	unsigned i;

	for (i = 0; i < conf.nin; i++) {
		const struct mrp_in_args *a = &conf.in[i];
		int br = (int)if_nametoindex(a->br);
		char err[300];
		struct ring *r;

		r = br ? in_find(br, a->id) : NULL;
		if (!r && in_create(a, NULL, err, sizeof(err))) {
			if (!conf.in_failed[i] || log_again)
				LOG("%s interconnection %u (config file): %s",
				    a->br, a->id, err);
			conf.in_failed[i] = true;
			continue;
		}
		conf.in_failed[i] = false;
		r = in_find(br, a->id);
		if (r)
			r->in->from_conf = true;
	}
}

/*
 * Create what the config file has and does not run.  What cannot be
 * created (an interface missing, the ring of an interconnection, say) is
 * tried again when a link of that name changes, when a ring is added,
 * and at SIGHUP.
 */
static void conf_create_missing(bool log_again)
{
	conf_create_rings(log_again);
	conf_create_ins(log_again);
}

static bool conf_pending(const char *name)
{
	unsigned i;

	for (i = 0; i < conf.n; i++)
		if (conf.failed[i] && (!strcmp(conf.a[i].br, name) ||
				       !strcmp(conf.a[i].p, name) ||
				       !strcmp(conf.a[i].s, name)))
			return true;
	for (i = 0; i < conf.nin; i++)
		if (conf.in_failed[i] && (!strcmp(conf.in[i].br, name) ||
					  !strcmp(conf.in[i].port, name)))
			return true;
	return false;
}

static unsigned count_conf_running(void)
{
	unsigned n = 0;
	struct ring *r;

	for (r = g.rings; r; r = r->next)
		n += r->from_conf;
	return n;
}

/*
 * The config file's timing (and a client's blocking, the domain) for a
 * running ring, without starting over.
 */
static void ring_retime(struct ring *r, const struct mrp_ring_args *a)
{
	struct mrp_actions acts = { 0 };
	struct mrp_sm_cfg cfg;

	if (args_cfg(a, &cfg) < 0)
		return;
	r->args = *a;
	mrp_sm_retime(&r->sm, now_us(), &cfg, &acts);
	apply(r, &acts);
}

/*
 * SIGHUP, for the interconnections: one the config file no longer has
 * is deleted, a changed one deleted (and created again with the new
 * file's).  Those added with mrpctl and not in the file are left alone.
 */
static void reload_ins(const struct mrp_conf *n)
{
	struct ring *r;
	unsigned i;

	for (r = g.rings; r; r = r->next) {
		const struct mrp_in_args *a = NULL;

		if (!r->in)
			continue;
		for (i = 0; i < n->nin && !a; i++)
			if (mrp_in_args_same(&n->in[i], &r->in->args))
				a = &n->in[i];
		if (!a && !r->in->from_conf)
			continue;
		if (a && !memcmp(a, &r->in->args, sizeof(*a))) {
			r->in->from_conf = true;
			continue;
		}
		LOG("%s interconnection %u: %s the config file%s", r->br_name,
		    r->in->id, a ? "changed in" : "no longer in",
		    a ? ": re-created" : "");
		in_delete(r, true);
	}
}

/*
 * SIGHUP: read the config file again.  A ring it no longer has is
 * deleted (as by mrpctl del), a new one created, a changed one retimed
 * in place when only its timing changed, else re-created.  Rings added
 * with mrpctl are left alone.  Interconnections likewise, but a changed
 * one is always re-created (reload_ins()).  A file with an error
 * changes nothing.
 */
static void reload_config(void)
{
	struct mrp_conf *n = calloc(1, sizeof(*n));
	struct ring *r, *next;
	char err[300];
	unsigned i;
	int e;

	if (!n || !g.config) {
		free(n);
		return;
	}
	e = read_conf(g.config, n, err, sizeof(err));
	if (e && !(e == -ENOENT && !g.config_given)) {
		LOG("config: %s: not reloaded", err);
		free(n);
		return;
	}
	for (r = g.rings; r; r = next) {
		const struct mrp_ring_args *a = NULL;

		next = r->next;
		for (i = 0; i < n->n && !a; i++)
			if (mrp_ring_args_same(&n->a[i], &r->args))
				a = &n->a[i];
		if (!a) {
			if (r->from_conf) {
				LOG("%s ring %u: no longer in the config file",
				    r->br_name, r->id);
				ring_delete(r, true);
			}
			continue;
		}
		r->from_conf = true;
		if (args_equal(a, &r->args))
			continue;
		if (args_same_instance(a, &r->args)) {
			LOG("%s ring %u: new timing from the config file",
			    r->br_name, r->id);
			ring_retime(r, a);
			continue;
		}
		LOG("%s ring %u: changed in the config file: re-created",
		    r->br_name, r->id);
		ring_delete(r, true);
	}
	reload_ins(n);
	conf = *n;
	free(n);
	conf_create_missing(true);
	LOG("config %s: %u ring(s), %u interconnection(s); %u ring(s) running",
	    g.config, conf.n, conf.nin, g.nrings);
}

/* ---- rtnetlink events ---- */

static void on_link(const struct mrp_nl_link *l, void *arg)
{
	struct ring *r, *next;
	uint64_t now = now_us();

	(void)arg;
	if (l->family == AF_UNSPEC && l->type == RTM_NEWLINK &&
	    conf_pending(l->name))
		g.conf_retry = true;
	for (r = g.rings; r; r = next) {
		struct mrp_actions acts = { 0 };
		unsigned i;

		next = r->next;
		if (l->ifindex == r->br_ifindex) {
			if (l->type == RTM_DELLINK && l->family != AF_BRIDGE) {
				LOG("%s ring %u: bridge deleted", r->br_name,
				    r->id);
				ring_delete(r, false);
			} else if (l->family == AF_UNSPEC && l->has_mac &&
				   memcmp(l->mac, r->sm.cfg.mac, 6)) {
				memcpy(r->sm.cfg.mac, l->mac, 6);
				if (r->in)
					memcpy(r->in->sm.cfg.mac, l->mac, 6);
			}
			continue;
		}
		for (i = 0; i < 2; i++) {
			struct port *p = &r->port[i];

			if (l->ifindex != p->ifindex)
				continue;
			if (l->family == AF_UNSPEC &&
			    (l->type == RTM_DELLINK ||
			     l->master != r->br_ifindex)) {
				LOG("%s ring %u: port %s %s", r->br_name,
				    r->id, p->name,
				    l->type == RTM_DELLINK ? "deleted" :
				    "left the bridge");
				/* the bridge dropped the instance with it */
				ring_delete(r, false);
				goto next_ring;
			}
			if (l->family == AF_BRIDGE) {
				enum mrp_loc_verdict v;
				int was = p->ro.flag;

				if (l->type != RTM_NEWLINK || !l->has_ring_open)
					continue;
				v = mrp_loc_notify(&p->ro, l->ring_open,
						   queued_flag_now, p);
				logmsg(2, "%s: ring-open flag %u (was %d): %s",
				       p->name, l->ring_open, was,
				       mrp_loc_verdict_name(v));
				switch (v) {
				case MRP_LOC_NONE:
				case MRP_LOC_OWN_FLUSH:
					continue;
				case MRP_LOC_OLD_NEWS:
					DBG("%s: MRP ring %s: old news, the "
					    "flag is %d now", p->name,
					    l->ring_open ? "open" : "closed",
					    p->ro.flag);
					r->c.old_news++;
					continue;
				case MRP_LOC_CLOSED:
					DBG("%s: MRP ring closed", p->name);
					prm_up_check_link(r, now, &acts);
					mrp_sm_test_seen(&r->sm, now, &acts);
					break;
				default:
					DBG("%s: MRP ring %s", p->name,
					    mrp_loc_verdict_name(v));
					ring_open_check_links(r, now, &acts);
					mrp_sm_ring_open(&r->sm, now, &acts);
					break;
				}
			} else if (l->type == RTM_NEWLINK) {
				bool up = link_is_up(l->flags);

				if (l->has_mac)
					memcpy(p->mac, l->mac, 6);
				if (l->name[0])
					snprintf(p->name, IF_NAMESIZE, "%s",
						 l->name);
				if (!up && p->up && link_up_again(r, i)) {
					LOG("%s ring %u: %s link down and up "
					    "again, ignored", r->br_name,
					    r->id, p->name);
					r->c.link_glitches++;
					continue;
				}
				if (up != p->up) {
					LOG("%s ring %u: %s link %s",
					    r->br_name, r->id, p->name,
					    up ? "up" : "down");
					p->up = up;
					mrp_sm_link(&r->sm, now, i, up, &acts);
				}
			}
		}
		apply(r, &acts);
next_ring:
		;
	}
	in_on_link(l, now);
}

static void resync(void)
{
	struct { int br; uint32_t id; } keys[MAX_RINGS];
	unsigned n = 0, k;
	struct ring *r;

	/* Events were lost: compare every ring with the kernel. */
	for (r = g.rings; r && n < MAX_RINGS; r = r->next) {
		keys[n].br = r->br_ifindex;
		keys[n++].id = r->id;
	}
	for (k = 0; k < n; k++) {
		struct link_query q;
		unsigned i;

		r = ring_find(keys[k].br, keys[k].id);
		if (!r)
			continue;
		memset(&q, 0, sizeof(q));
		q.want[0] = r->br_ifindex;
		q.want[1] = r->port[0].ifindex;
		q.want[2] = r->port[1].ifindex;
		if (query_links(&q))
			continue;
		if (!q.found[0]) {
			ring_delete(r, false);
			continue;
		}
		for (i = 1; i < 3; i++) {
			struct mrp_nl_link l = q.l[i];

			if (!q.found[i]) {
				memset(&l, 0, sizeof(l));
				l.ifindex = q.want[i];
				l.type = RTM_DELLINK;
				l.family = AF_UNSPEC;
			}
			on_link(&l, NULL);
			if (!ring_find(keys[k].br, keys[k].id))
				break;
			if (q.found[i] && q.l[i].has_ring_open) {
				l.family = AF_BRIDGE;
				l.type = RTM_NEWLINK;
				on_link(&l, NULL);
			}
		}
		/* the interconnection port, as the ring ports */
		r = ring_find(keys[k].br, keys[k].id);
		if (!r || !r->in)
			continue;
		memset(&q, 0, sizeof(q));
		q.want[1] = r->in->iport.ifindex;
		if (query_links(&q))
			continue;
		if (!q.found[1]) {
			memset(&q.l[1], 0, sizeof(q.l[1]));
			q.l[1].ifindex = q.want[1];
			q.l[1].type = RTM_DELLINK;
			q.l[1].family = AF_UNSPEC;
			on_link(&q.l[1], NULL);
			continue;
		}
		on_link(&q.l[1], NULL);
		r = ring_find(keys[k].br, keys[k].id);
		if (r && r->in && q.l[1].has_in_open) {
			q.l[1].family = AF_BRIDGE;
			q.l[1].type = RTM_NEWLINK;
			on_link(&q.l[1], NULL);
		}
	}
}

static void handle_netlink(void)
{
	int e = mrp_nl_read_events(&g.ev, on_link, NULL);

	if (e == -ENOBUFS) {
		LOG("netlink events lost, resynchronising");
		resync();
	} else if (e) {
		LOG("netlink: %s", strerror(-e));
	}
}

/* ---- packets ---- */

static void handle_packet(void)
{
	uint8_t buf[2048];
	int budget;

	for (budget = 0; budget < 256; budget++) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct mrp_actions acts = { 0 };
		struct mrp_pdu pdu;
		enum mrp_parse_err pe;
		struct counters *c;
		const char *name;
		uint64_t now;
		struct ring *r;
		unsigned pi = 0;
		ssize_t n;

		n = recvfrom(g.pkt_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&sll, &sl);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				LOG("packet socket: %s", strerror(errno));
			return;
		}
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		r = ring_by_port(sll.sll_ifindex, &pi);
		if (!r) {
			/* the interconnection port: In* frames only */
			r = in_by_port(sll.sll_ifindex);
			pi = MRP_IN_PORT_I;
		}
		if (!r) {
			g.global.rx_foreign++;
			continue;
		}
		c = pi == MRP_IN_PORT_I ? &r->in->c : &r->c;
		name = pi == MRP_IN_PORT_I ? r->in->iport.name :
					     r->port[pi].name;
		c->rx++;
		if ((size_t)n > sizeof(buf)) {
			c->rx_malformed++;
			continue;
		}
		pe = mrp_parse(buf, (size_t)n, &pdu);
		if (pe != MRP_PARSE_OK) {
			c->rx_malformed++;
			if (malformed_log_ok(now_us()))
				DBG("%s: malformed MRP frame: %s", name,
				    mrp_parse_strerror(pe));
			continue;
		}
		if (pdu.has_common &&
		    memcmp(pdu.domain, r->args.has_domain ? r->args.domain :
			   mrp_domain_default, MRP_UUID_LEN)) {
			c->rx_foreign++;
			continue;
		}
		if (pdu.type != MRP_TLV_TEST && pdu.type != MRP_TLV_IN_TEST)
			DBG("%s: %s seq %u from %02x:%02x:%02x:%02x:%02x:%02x",
			    name, mrp_tlv_name(pdu.type), pdu.seq,
			    pdu.src[0], pdu.src[1], pdu.src[2], pdu.src[3],
			    pdu.src[4], pdu.src[5]);
		now = now_us();
		if (pi == MRP_IN_PORT_I) {
			in_frame(r, pi, &pdu, now);
			continue;
		}
		if (pdu.type == MRP_TLV_TEST)
			prm_up_check_link(r, now, &acts);
		mrp_sm_frame(&r->sm, now, pi, &pdu, &acts);
		apply(r, &acts);
		if (r->in)
			in_frame(r, pi, &pdu, now);
	}
}

/* ---- timers ---- */

static void rearm_timer(void)
{
	struct itimerspec its;
	uint64_t best = 0;
	struct ring *r;

	unsigned i;

	for (r = g.rings; r; r = r->next) {
		uint64_t d = mrp_sm_next_deadline(&r->sm);

		if (d && (!best || d < best))
			best = d;
		d = r->in ? mrp_in_sm_next_deadline(&r->in->sm) : 0;
		if (d && (!best || d < best))
			best = d;
	}
	for (i = 0; i < MAX_CLIENTS; i++) {
		uint64_t d = g.clients[i].w_deadline;

		if (g.clients[i].fd >= 0 && g.clients[i].waiting &&
		    (!best || d < best))
			best = d;
	}
	memset(&its, 0, sizeof(its));
	if (best) {
		its.it_value.tv_sec = (time_t)(best / 1000000);
		its.it_value.tv_nsec = (long)(best % 1000000) * 1000;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(g.timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void handle_timer(void)
{
	uint64_t exp;
	uint64_t now = now_us();
	struct ring *r;

	if (read(g.timer_fd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		LOG("timerfd: %s", strerror(errno));
	for (r = g.rings; r; r = r->next) {
		struct mrp_actions acts = { 0 };

		link_down_series_check(r, now, &acts);
		mrp_sm_timer(&r->sm, now, &acts);
		apply(r, &acts);
		if (r->in) {
			struct mrp_in_actions in_acts = { 0 };

			mrp_in_sm_timer(&r->in->sm, now, &in_acts);
			in_apply(r, &in_acts);
		}
	}
}

/* ---- control socket ---- */

static void show_ring_text(struct sbuf *b, const struct ring *r)
{
	const struct mrp_sm *sm = &r->sm;
	char mac[18], dom[37];
	unsigned i;

	mrp_mac_str(sm->cfg.mac, mac);
	sb_printf(b, "%s ring %u: role %s (%s) state %s ring %s\n",
		  r->br_name, r->id, mrp_role_name(sm->cfg.role),
		  mrp_sm_mode_name(sm), mrp_sm_state_name(sm),
		  mrp_sm_ring_state_name(sm));
	for (i = 0; i < 2; i++) {
		const struct port *p = &r->port[i];

		sb_printf(b, "  %-9s %-15s link %-4s %-10s%s\n",
			  sm->prim == i ? "primary" : "secondary", p->name,
			  p->up ? "up" : "down",
			  mrp_port_state_name(sm->pstate[i]),
			  p->ro.flag == 1 ? " lost-continuity" : "");
	}
	sb_printf(b, "  profile %u ms prio 0x%04x mac %s test %u us x %u "
		  "react %u%s\n",
		  sm->cfg.prof.ms, sm->cfg.prio, mac,
		  sm->cfg.prof.test_interval_us, sm->cfg.prof.test_max,
		  sm->cfg.react_on_link_change, r->adopted ? " (reclaimed)" : "");
	mrp_uuid_str(r->args.has_domain ? r->args.domain : mrp_domain_default,
		     dom);
	sb_printf(b, "  domain %s%s\n", dom,
		  sm->cfg.blocked ? "" : " non-blocking");
	if (sm->have_mgr) {
		char mgr[18];

		mrp_mac_str(sm->mgr_mac, mgr);
		sb_printf(b, "  manager prio 0x%04x mac %s%s\n", sm->mgr_prio,
			  mgr, sm->mrm_mode ? " (this node)" : "");
	} else {
		sb_printf(b, "  manager unknown\n");
	}
	sb_printf(b, "  transitions %u openings %u ring-open %u topo-tx %u "
		  "topo-rx %u "
		  "link-tx %u link-rx %u flushes %u\n",
		  sm->st.transitions, sm->st.openings, sm->st.ring_open,
		  sm->st.topo_sent,
		  sm->st.topo_rx, sm->st.link_sent, sm->st.link_rx,
		  sm->st.flushes);
	sb_printf(b, "  test-rx %u option-tx %u option-rx %u takeovers %u "
		  "yields %u nack-held %u better-test-rx %u topo-held %u\n",
		  sm->st.test_rx, sm->st.option_sent, sm->st.option_rx,
		  sm->st.takeovers, sm->st.yields, sm->st.nack_held,
		  sm->st.better_test_rx, sm->st.topo_held);
	sb_printf(b, "  frames rx %llu malformed %llu foreign %llu tx %llu "
		  "tx-errors %llu netlink-errors %llu\n",
		  (unsigned long long)r->c.rx,
		  (unsigned long long)r->c.rx_malformed,
		  (unsigned long long)r->c.rx_foreign,
		  (unsigned long long)r->c.tx,
		  (unsigned long long)r->c.tx_err,
		  (unsigned long long)r->c.nl_err);
	sb_printf(b, "  link-glitches %llu stale-link-rx %u stale-loss %u "
		  "old-news %llu\n",
		  (unsigned long long)r->c.link_glitches,
		  sm->st.stale_link_rx, sm->st.stale_loss,
		  (unsigned long long)r->c.old_news);
	if (r->last_err[0])
		sb_printf(b, "  last error: %s\n", r->last_err);
	if (r->kernel_warn[0])
		sb_printf(b, "  kernel warning: %s\n", r->kernel_warn);
}

static void show_ring_json(struct sbuf *b, const struct ring *r)
{
	const struct mrp_sm *sm = &r->sm;
	char mac[18], dom[37];
	unsigned i;

	sb_printf(b, "{\"bridge\":");
	sb_json_str(b, r->br_name);
	sb_printf(b, ",\"ring\":%u,\"role\":\"%s\",\"mode\":\"%s\","
		  "\"state\":\"%s\",\"ring_state\":\"%s\",\"profile\":%u,"
		  "\"prio\":%u,", r->id, mrp_role_name(sm->cfg.role),
		  mrp_sm_mode_name(sm), mrp_sm_state_name(sm),
		  mrp_sm_ring_state_name(sm), sm->cfg.prof.ms, sm->cfg.prio);
	mrp_mac_str(sm->cfg.mac, mac);
	mrp_uuid_str(r->args.has_domain ? r->args.domain : mrp_domain_default,
		     dom);
	sb_printf(b, "\"mac\":\"%s\",\"test_interval\":%u,\"max_miss\":%u,"
		  "\"react\":%s,\"reclaimed\":%s,\"non_blocking\":%s,"
		  "\"domain\":\"%s\",\"ports\":[", mac,
		  sm->cfg.prof.test_interval_us, sm->cfg.prof.test_max,
		  sm->cfg.react_on_link_change ? "true" : "false",
		  r->adopted ? "true" : "false",
		  sm->cfg.blocked ? "false" : "true", dom);
	for (i = 0; i < 2; i++) {
		const struct port *p = &r->port[i];

		sb_printf(b, "%s{\"name\":", i ? "," : "");
		sb_json_str(b, p->name);
		sb_printf(b, ",\"ifindex\":%d,\"role\":\"%s\",\"link\":\"%s\","
			  "\"state\":\"%s\",\"lost_continuity\":%s}",
			  p->ifindex, sm->prim == i ? "primary" : "secondary",
			  p->up ? "up" : "down",
			  mrp_port_state_name(sm->pstate[i]),
			  p->ro.flag == 1 ? "true" : "false");
	}
	sb_printf(b, "],\"manager\":");
	if (sm->have_mgr) {
		mrp_mac_str(sm->mgr_mac, mac);
		sb_printf(b, "{\"prio\":%u,\"mac\":\"%s\",\"self\":%s}",
			  sm->mgr_prio, mac, sm->mrm_mode ? "true" : "false");
	} else {
		sb_printf(b, "null");
	}
	sb_printf(b, ",\"transitions\":%u,\"openings\":%u,"
		  "\"counters\":{\"ring_open\":%u,"
		  "\"topo_tx\":%u,\"topo_rx\":%u,\"link_tx\":%u,\"link_rx\":%u,"
		  "\"test_rx\":%u,\"option_tx\":%u,\"option_rx\":%u,"
		  "\"flushes\":%u,\"takeovers\":%u,\"yields\":%u,"
		  "\"nack_held\":%u,\"better_test_rx\":%u,\"topo_held\":%u,"
		  "\"ignored_rx\":%u,\"stale_link_rx\":%u,"
		  "\"stale_loss\":%u,\"rx\":%llu,"
		  "\"rx_malformed\":%llu,"
		  "\"rx_foreign\":%llu,\"tx\":%llu,\"tx_errors\":%llu,"
		  "\"netlink_errors\":%llu,\"link_glitches\":%llu,"
		  "\"old_news\":%llu}",
		  sm->st.transitions, sm->st.openings,
		  sm->st.ring_open, sm->st.topo_sent, sm->st.topo_rx,
		  sm->st.link_sent, sm->st.link_rx, sm->st.test_rx,
		  sm->st.option_sent, sm->st.option_rx, sm->st.flushes,
		  sm->st.takeovers, sm->st.yields, sm->st.nack_held,
		  sm->st.better_test_rx, sm->st.topo_held,
		  sm->st.ignored_rx,
		  sm->st.stale_link_rx, sm->st.stale_loss,
		  (unsigned long long)r->c.rx,
		  (unsigned long long)r->c.rx_malformed,
		  (unsigned long long)r->c.rx_foreign,
		  (unsigned long long)r->c.tx,
		  (unsigned long long)r->c.tx_err,
		  (unsigned long long)r->c.nl_err,
		  (unsigned long long)r->c.link_glitches,
		  (unsigned long long)r->c.old_news);
	sb_printf(b, ",\"last_error\":");
	sb_json_str(b, r->last_err);
	sb_printf(b, ",\"kernel_warning\":");
	sb_json_str(b, r->kernel_warn);
	if (r->in)
		sb_printf(b, ",\"interconnection\":%u}", r->in->id);
	else
		sb_printf(b, ",\"interconnection\":null}");
}

static const char *in_flag_json(int f)
{
	return f < 0 ? "null" : f ? "true" : "false";
}

static void show_in_text(struct sbuf *b, const struct ring *r)
{
	const struct inter *in = r->in;
	const struct mrp_in_sm *sm = &in->sm;
	const struct mrp_in_sm_stats *st = &sm->st;

	sb_printf(b, "%s interconnection %u: ring %u role %s mode %s state %s "
		  "in %s\n", r->br_name, in->id, r->id,
		  mrp_in_role_name(sm->cfg.role), mrp_in_mode_name(sm->cfg.mode),
		  mrp_in_sm_state_name(sm), mrp_in_sm_in_state_name(sm));
	sb_printf(b, "  port      %-15s link %-4s %-10s in-open %d %d %d\n",
		  in->iport.name, in->iport.up ? "up" : "down",
		  mrp_port_state_name(sm->istate), in->in_open[0],
		  in->in_open[1], in->in_open[MRP_IN_PORT_I]);
	sb_printf(b, "  profile %u ms test %u us x %u period %u us\n",
		  sm->cfg.prof.ms, sm->cfg.prof.test_interval_us,
		  sm->cfg.prof.test_max, sm->cfg.test_period_us);
	sb_printf(b, "  transitions %u opens %u closes %u loss-rx %u "
		  "regain-rx %u stale-loss %u\n", st->transitions, st->opens,
		  st->closes, st->loss_rx, st->regain_rx, st->stale_loss);
	sb_printf(b, "  topo-tx %u topo-held %u topo-rx %u link-tx %u "
		  "link-rx %u test-rx %u flushes %u\n", st->topo_sent,
		  st->topo_held, st->topo_rx, st->link_sent, st->link_rx,
		  st->test_rx, st->flushes);
	sb_printf(b, "  link-changes %u ring-link-changes %u other-id-rx %u "
		  "ignored-rx %u\n", st->link_changes, st->ring_link_changes,
		  st->other_id_rx, st->ignored_rx);
	sb_printf(b, "  frames rx %llu malformed %llu foreign %llu tx %llu "
		  "tx-errors %llu netlink-errors %llu\n",
		  (unsigned long long)in->c.rx,
		  (unsigned long long)in->c.rx_malformed,
		  (unsigned long long)in->c.rx_foreign,
		  (unsigned long long)in->c.tx,
		  (unsigned long long)in->c.tx_err,
		  (unsigned long long)in->c.nl_err);
	if (in->last_err[0])
		sb_printf(b, "  last error: %s\n", in->last_err);
	if (in->kernel_warn[0])
		sb_printf(b, "  kernel warning: %s\n", in->kernel_warn);
}

static void show_in_json(struct sbuf *b, const struct ring *r)
{
	const struct inter *in = r->in;
	const struct mrp_in_sm *sm = &in->sm;
	const struct mrp_in_sm_stats *st = &sm->st;

	sb_printf(b, "{\"bridge\":");
	sb_json_str(b, r->br_name);
	sb_printf(b, ",\"in_id\":%u,\"ring\":%u,\"port\":{\"name\":",
		  in->id, r->id);
	sb_json_str(b, in->iport.name);
	sb_printf(b, ",\"ifindex\":%d,\"link\":\"%s\",\"state\":\"%s\"},"
		  "\"role\":\"%s\",\"mode\":\"%s\",\"state\":\"%s\","
		  "\"in_state\":\"%s\",\"profile\":%u,\"test_interval\":%u,"
		  "\"max_miss\":%u,\"period\":%u,"
		  "\"in_open\":{\"primary\":%s,\"secondary\":%s,"
		  "\"interconnection\":%s},\"transitions\":%u,",
		  in->iport.ifindex, in->iport.up ? "up" : "down",
		  mrp_port_state_name(sm->istate),
		  mrp_in_role_name(sm->cfg.role), mrp_in_mode_name(sm->cfg.mode),
		  mrp_in_sm_state_name(sm), mrp_in_sm_in_state_name(sm),
		  sm->cfg.prof.ms, sm->cfg.prof.test_interval_us,
		  sm->cfg.prof.test_max, sm->cfg.test_period_us,
		  in_flag_json(in->in_open[0]), in_flag_json(in->in_open[1]),
		  in_flag_json(in->in_open[MRP_IN_PORT_I]), st->transitions);
	sb_printf(b, "\"counters\":{\"opens\":%u,\"closes\":%u,"
		  "\"loss_rx\":%u,\"regain_rx\":%u,\"stale_loss\":%u,"
		  "\"topo_tx\":%u,\"topo_held\":%u,\"topo_rx\":%u,"
		  "\"link_tx\":%u,\"link_rx\":%u,\"test_rx\":%u,"
		  "\"flushes\":%u,\"link_changes\":%u,"
		  "\"ring_link_changes\":%u,\"other_id_rx\":%u,"
		  "\"ignored_rx\":%u,\"rx\":%llu,\"rx_malformed\":%llu,"
		  "\"rx_foreign\":%llu,\"tx\":%llu,\"tx_errors\":%llu,"
		  "\"netlink_errors\":%llu}",
		  st->opens, st->closes, st->loss_rx, st->regain_rx,
		  st->stale_loss, st->topo_sent, st->topo_held, st->topo_rx,
		  st->link_sent, st->link_rx, st->test_rx, st->flushes,
		  st->link_changes, st->ring_link_changes, st->other_id_rx,
		  st->ignored_rx,
		  (unsigned long long)in->c.rx,
		  (unsigned long long)in->c.rx_malformed,
		  (unsigned long long)in->c.rx_foreign,
		  (unsigned long long)in->c.tx,
		  (unsigned long long)in->c.tx_err,
		  (unsigned long long)in->c.nl_err);
	sb_printf(b, ",\"last_error\":");
	sb_json_str(b, in->last_err);
	sb_printf(b, ",\"kernel_warning\":");
	sb_json_str(b, in->kernel_warn);
	sb_printf(b, "}");
}

static void reply_err(struct sbuf *out, int err, const char *msg)
{
	sb_printf(out, "err %d %s\n.\n", err < 0 ? -err : err, msg);
}

static uint32_t wait_counter(const struct mrp_sm *sm, const char *k)
{
	if (!strcmp(k, "flushes")) return sm->st.flushes;
	if (!strcmp(k, "transitions")) return sm->st.transitions;
	if (!strcmp(k, "openings")) return sm->st.openings;
	if (!strcmp(k, "topo-rx")) return sm->st.topo_rx;
	if (!strcmp(k, "ring-open")) return sm->st.ring_open;
	if (!strcmp(k, "takeovers")) return sm->st.takeovers;
	return sm->st.yields;
}

static bool wait_done(const struct client *c, const struct ring *r)
{
	const struct mrp_sm *sm = &r->sm;

	if (!strcmp(c->w_key, "ring"))
		return !strcmp(mrp_sm_ring_state_name(sm), c->w_val);
	if (!strcmp(c->w_key, "mode"))
		return !strcmp(sm->mrm_mode ? "manager" : "client", c->w_val);
	if (!strcmp(c->w_key, "state"))
		return !strcmp(mrp_sm_state_name(sm), c->w_val);
	return wait_counter(sm, c->w_key) >= c->w_num;
}

static uint32_t in_wait_counter(const struct mrp_in_sm *sm, const char *k)
{
	const struct mrp_in_sm_stats *st = &sm->st;

	if (!strcmp(k, "transitions")) return st->transitions;
	if (!strcmp(k, "opens")) return st->opens;
	if (!strcmp(k, "closes")) return st->closes;
	if (!strcmp(k, "loss-rx")) return st->loss_rx;
	if (!strcmp(k, "regain-rx")) return st->regain_rx;
	if (!strcmp(k, "topo-tx")) return st->topo_sent;
	if (!strcmp(k, "topo-rx")) return st->topo_rx;
	if (!strcmp(k, "link-tx")) return st->link_sent;
	if (!strcmp(k, "link-rx")) return st->link_rx;
	return st->flushes;
}

static bool in_wait_done(const struct client *c, const struct ring *r)
{
	const struct mrp_in_sm *sm = &r->in->sm;

	if (!strcmp(c->w_key, "in"))
		return !strcmp(mrp_in_sm_in_state_name(sm), c->w_val);
	if (!strcmp(c->w_key, "state"))
		return !strcmp(mrp_in_sm_state_name(sm), c->w_val);
	if (!strcmp(c->w_key, "gone"))
		return false;
	return in_wait_counter(sm, c->w_key) >= c->w_num;
}

/* Answer the clients whose condition holds or whose time is up. */
static void check_waits(void)
{
	uint64_t now = now_us();
	unsigned i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &g.clients[i];
		struct ring *r;

		if (c->fd < 0 || !c->waiting)
			continue;
		r = c->w_in ? in_find(c->w_br, c->w_id) :
			      ring_find(c->w_br, c->w_id);
		if (!r && !strcmp(c->w_key, "gone")) {
			sb_printf(&c->out, "ok\n.\n");
		} else if (!r) {
			reply_err(&c->out, ENOENT, c->w_in ?
				  "the interconnection went away" :
				  "the ring went away");
		} else if (c->w_in ? in_wait_done(c, r) : wait_done(c, r)) {
			sb_printf(&c->out, "ok\n.\n");
		} else if (now >= c->w_deadline) {
			reply_err(&c->out, ETIMEDOUT, "timeout");
		} else {
			continue;
		}
		c->waiting = false;
		client_flush(c);
		/* serve requests that arrived while waiting */
		if (c->fd >= 0)
			client_process(c);
	}
}

static int parse_wait(struct client *c, int argc, char **argv, char *err,
		      size_t errlen)
{
	uint32_t timeout;
	unsigned br;
	bool found;
	int e;

	c->w_in = mrp_is_in_request(argc, argv);
	if (c->w_in)
		e = mrp_in_wait_args_parse(argc, argv, &c->w_id, c->w_key,
					   sizeof(c->w_key), c->w_val,
					   sizeof(c->w_val), &c->w_num,
					   &timeout, err, errlen);
	else
		e = mrp_wait_args_parse(argc, argv, &c->w_id, c->w_key,
					sizeof(c->w_key), c->w_val,
					sizeof(c->w_val), &c->w_num, &timeout,
					err, errlen);
	if (e)
		return e;
	br = if_nametoindex(argv[1]);
	found = br && (c->w_in ? in_find((int)br, c->w_id) :
			ring_find((int)br, c->w_id));
	if (!strcmp(argv[4], "gone") && !found) {
		c->w_br = (int)br;	/* answered right away */
		c->w_deadline = now_us();
		c->waiting = true;
		return 0;
	}
	if (!found) {
		snprintf(err, errlen, "no %s %u on %.20s",
			 c->w_in ? "interconnection" : "ring", c->w_id,
			 argv[1]);
		return -ENOENT;
	}
	c->w_br = (int)br;
	c->w_deadline = now_us() + (uint64_t)timeout * 1000;
	c->waiting = true;
	return 0;
}

static void handle_request(struct client *c, char *line)
{
	char *argv[32];
	char err[300];
	int argc, e;
	struct ring *r;

	argc = mrp_split(line, argv, 32);
	if (argc <= 0) {
		g.bad_requests++;
		reply_err(&c->out, EINVAL, argc < 0 ? "too many words" :
			  "empty request");
		return;
	}
	if ((!strcmp(argv[0], "add") || !strcmp(argv[0], "del")) &&
	    c->access != ACCESS_ALL) {
		g.denied++;
		DBG("control: %s refused to uid %u", argv[0],
		    (unsigned)c->uid);
		snprintf(err, sizeof(err), "permission denied: %s needs root "
			 "(uid %u may only show and wait)", argv[0],
			 (unsigned)c->uid);
		reply_err(&c->out, EPERM, err);
		return;
	}
	if (!strcmp(argv[0], "ping")) {
		sb_printf(&c->out, "ok\npong\n.\n");
	} else if (!strcmp(argv[0], "version")) {
		sb_printf(&c->out, "ok\nmrpd %s\n.\n", MRP_TOOLS_VERSION);
	} else if (!strcmp(argv[0], "add") && mrp_is_in_request(argc, argv)) {
		struct mrp_in_args a;

		e = mrp_in_args_parse(argc, argv, &a, err, sizeof(err));
		if (!e)
			e = in_create(&a, NULL, err, sizeof(err));
		r = e ? NULL : in_find((int)if_nametoindex(a.br), a.id);
		if (e) {
			g.bad_requests++;
			reply_err(&c->out, e, err);
		} else if (r && r->in->kernel_warn[0]) {
			sb_printf(&c->out, "ok\nwarning: %s\n.\n",
				  r->in->kernel_warn);
		} else {
			sb_printf(&c->out, "ok\n.\n");
		}
	} else if (!strcmp(argv[0], "del") && mrp_is_in_request(argc, argv)) {
		uint32_t id;
		unsigned br;

		if (mrp_in_del_args_parse(argc, argv, &id, err, sizeof(err))) {
			g.bad_requests++;
			reply_err(&c->out, EINVAL, err);
			return;
		}
		br = if_nametoindex(argv[1]);
		r = br ? in_find((int)br, id) : NULL;
		if (!r) {
			snprintf(err, sizeof(err), "no interconnection %u on "
				 "%.20s", id, argv[1]);
			reply_err(&c->out, ENOENT, err);
			return;
		}
		in_delete(r, true);
		sb_printf(&c->out, "ok\n.\n");
	} else if (!strcmp(argv[0], "add")) {
		struct mrp_ring_args a;

		e = mrp_ring_args_parse(argc, argv, &a, g.default_profile, err,
					sizeof(err));
		if (!e)
			e = ring_create(&a, NULL, err, sizeof(err));
		/* an interconnection of the config file may wait for it */
		g.conf_retry |= !e;
		if (e) {
			g.bad_requests++;
			reply_err(&c->out, e, err);
		} else if (g.rings->kernel_warn[0]) {
			/* ring_create() put the new ring first */
			sb_printf(&c->out, "ok\nwarning: %s\n.\n",
				  g.rings->kernel_warn);
		} else {
			sb_printf(&c->out, "ok\n.\n");
		}
	} else if (!strcmp(argv[0], "wait")) {
		e = parse_wait(c, argc, argv, err, sizeof(err));
		if (e) {
			g.bad_requests++;
			reply_err(&c->out, e, err);
		}
		/* answered by check_waits(), possibly right away */
	} else if (!strcmp(argv[0], "del")) {
		uint32_t id;
		unsigned br;

		if (mrp_del_args_parse(argc, argv, &id, err, sizeof(err))) {
			g.bad_requests++;
			reply_err(&c->out, EINVAL, err);
			return;
		}
		br = if_nametoindex(argv[1]);
		r = br ? ring_find((int)br, id) : NULL;
		if (!r) {
			snprintf(err, sizeof(err), "no ring %u on %.20s", id,
				 argv[1]);
			reply_err(&c->out, ENOENT, err);
			return;
		}
		ring_delete(r, true);
		sb_printf(&c->out, "ok\n.\n");
	} else if (!strcmp(argv[0], "show")) {
		bool json = argc > 1 && !strcmp(argv[1], "json");

		if (argc > 2 || (argc == 2 && !json &&
				 strcmp(argv[1], "text"))) {
			g.bad_requests++;
			reply_err(&c->out, EINVAL, "usage: show [json|text]");
			return;
		}
		sb_printf(&c->out, "ok\n");
		if (json) {
			sb_printf(&c->out, "{\"rings\":[");
			for (r = g.rings; r; r = r->next) {
				show_ring_json(&c->out, r);
				if (r->next)
					sb_printf(&c->out, ",");
			}
			sb_printf(&c->out, "],\"interconnections\":[");
			e = 0;
			for (r = g.rings; r; r = r->next) {
				if (!r->in)
					continue;
				if (e++)
					sb_printf(&c->out, ",");
				show_in_json(&c->out, r);
			}
			sb_printf(&c->out, "],\"unknown_port_frames\":%llu,"
				  "\"bad_requests\":%llu,"
				  "\"denied_requests\":%llu}\n",
				  (unsigned long long)g.global.rx_foreign,
				  (unsigned long long)g.bad_requests,
				  (unsigned long long)g.denied);
		} else {
			if (!g.rings)
				sb_printf(&c->out, "no rings\n");
			for (r = g.rings; r; r = r->next)
				show_ring_text(&c->out, r);
			for (r = g.rings; r; r = r->next)
				if (r->in)
					show_in_text(&c->out, r);
		}
		sb_printf(&c->out, ".\n");
	} else {
		g.bad_requests++;
		reply_err(&c->out, EINVAL, "unknown command (try: add, del, "
			  "show, wait, ping, version)");
	}
}

static void client_close(struct client *c)
{
	epoll_ctl(g.ep_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	sb_free(&c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void client_flush(struct client *c)
{
	struct epoll_event ev = { 0 };

	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.s + c->out_off,
				 c->out.len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out.len) {
		sb_free(&c->out);
		c->out_off = 0;
		if (c->closing) {
			client_close(c);
			return;
		}
	} else if (c->out.len > CLIENT_OUT_MAX) {
		client_close(c);	/* not reading its answers */
		return;
	}
	ev.events = EPOLLIN | (c->out.len ? EPOLLOUT : 0);
	ev.data.ptr = c;
	epoll_ctl(g.ep_fd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Serve the complete request lines buffered for c. */
static void client_process(struct client *c)
{
	char *nl;

	while (c->fd >= 0 && !c->waiting &&
	       (nl = memchr(c->in, '\n', c->in_len))) {
		size_t used = (size_t)(nl - c->in) + 1;

		*nl = 0;
		if (nl > c->in && nl[-1] == '\r')
			nl[-1] = 0;
		handle_request(c, c->in);
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
		c->in[c->in_len] = 0;
	}
	if (c->fd >= 0 && c->in_len >= MRPD_MAX_LINE) {
		g.bad_requests++;
		reply_err(&c->out, E2BIG, "request line too long");
		c->closing = true;
		c->waiting = false;
		c->in_len = 0;
	}
	if (c->fd >= 0)
		client_flush(c);
}

static void client_read(struct client *c)
{
	ssize_t n;

	if (c->in_len >= MRPD_MAX_LINE) {
		client_process(c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, MRPD_MAX_LINE - c->in_len,
		 MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		client_close(c);
		return;
	}
	if (n < 0)
		return;
	c->in_len += (size_t)n;
	c->in[c->in_len] = 0;
	if (memchr(c->in, 0, c->in_len)) {
		g.bad_requests++;
		reply_err(&c->out, EINVAL, "NUL byte in request");
		c->closing = true;
		c->waiting = false;
		c->in_len = 0;
		client_flush(c);
		return;
	}
	client_process(c);
}

/*
 * What the peer of a control connection may do, from its credentials as
 * they were when it connected (SO_PEERCRED, SO_PEERGROUPS): root may do
 * everything, members of --group may read, nobody else anything.
 *
 * A capability cannot be proven this way: CAP_NET_ADMIN read from
 * /proc/PID/status describes the process as it is now, and a process
 * that connects, hands the socket to a child and then executes a
 * privileged program would pass.  So only root changes rings.
 */
static enum access peer_access(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t groups[64];
	unsigned i;

	*uid = (uid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    len != sizeof(cr))
		return ACCESS_NONE;
	*uid = cr.uid;
	if (cr.uid == 0)
		return ACCESS_ALL;
	if (!g.ro_group)
		return ACCESS_NONE;
	if (cr.gid == g.ro_gid)
		return ACCESS_READ;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return ACCESS_NONE;	/* more than 64 groups: not checked */
	for (i = 0; i < len / sizeof(groups[0]); i++)
		if (groups[i] == g.ro_gid)
			return ACCESS_READ;
	return ACCESS_NONE;
}

/* Answer a connection we do not serve, and close it. */
static void refuse_client(int fd, int err, const char *msg)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "err %d %s\n.\n", err, msg);

	(void)!write(fd, line, (size_t)n);
	close(fd);
}

static void accept_client(void)
{
	struct epoll_event ev = { 0 };
	int fd = accept4(g.ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	unsigned i, ro = 0, ro_uid = 0;
	enum access access;
	uid_t uid;

	if (fd < 0)
		return;
	access = peer_access(fd, &uid);
	if (access == ACCESS_NONE) {
		g.denied++;
		DBG("control: uid %d refused", (int)uid);
		refuse_client(fd, EPERM, g.ro_group ?
			      "permission denied: mrpd answers root, and "
			      "the members of its --group for show and wait" :
			      "permission denied: mrpd answers root only");
		return;
	}
	for (i = 0; i < MAX_CLIENTS; i++) {
		const struct client *o = &g.clients[i];

		if (o->fd >= 0 && o->access == ACCESS_READ) {
			ro++;
			ro_uid += o->uid == uid;
		}
	}
	if (access == ACCESS_READ && (ro >= RO_CLIENTS ||
				      ro_uid >= RO_PER_UID)) {
		g.denied++;
		refuse_client(fd, EBUSY, "too many clients");
		return;
	}
	for (i = 0; i < MAX_CLIENTS; i++) {
		if (g.clients[i].fd < 0) {
			struct client *c = &g.clients[i];

			memset(c, 0, sizeof(*c));
			c->fd = fd;
			c->access = access;
			c->uid = uid;
			ev.events = EPOLLIN;
			ev.data.ptr = c;
			if (epoll_ctl(g.ep_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
				close(fd);
				c->fd = -1;
			}
			return;
		}
	}
	refuse_client(fd, EBUSY, "too many clients");
}

/* ---- setup ---- */

enum { TAG_NL = 1, TAG_PKT, TAG_TIMER, TAG_SIG, TAG_CTL };

static int add_fd(int fd, int tag)
{
	struct epoll_event ev = { 0 };

	ev.events = EPOLLIN;
	ev.data.u64 = (uint64_t)tag;
	return epoll_ctl(g.ep_fd, EPOLL_CTL_ADD, fd, &ev);
}

static int open_packet_socket(void)
{
	int prio = 7;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			htons(MRP_ETHERTYPE));
	int e;

	if (fd < 0)
		return -errno;
	e = mrp_filter_mrp(fd);
	if (e) {
		close(fd);
		return e;
	}
	setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio));
	return fd;
}

static int open_control_socket(void)
{
	struct sockaddr_un sun;
	socklen_t len = mrp_ctl_addr(g.sock_name, &sun);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, len) < 0 || listen(fd, 8) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mrpd [options]\n"
"Userspace MRP (IEC 62439-2) manager for Linux bridges; one per network\n"
"namespace.  Configure rings with mrpctl(8).\n"
"\n"
"  -D, --daemon            fork to the background once ready\n"
"  -p, --pidfile FILE      write the daemon's pid to FILE\n"
"  -c, --config FILE       rings to run, read at start and at SIGHUP\n"
"                          (default " MRPD_CONFIG ", if it exists)\n"
"  -l, --log FILE          append the log to FILE (default stderr);\n"
"                          SIGHUP reopens it\n"
"      --syslog            log to syslog (daemon facility) instead\n"
"      --state-dir DIR     keep the rings' configuration there for the\n"
"                          next mrpd (default " MRPD_STATE_DIR "; \"\" none)\n"
"  -s, --socket NAME       control socket @NAME (default @mrpd)\n"
"  -P, --profile MS        default recovery profile 10|30|200|500\n"
"                          (default 200)\n"
"      --clean-stale       delete MRP instances found at start instead\n"
"                          of reclaiming them\n"
"      --delete-on-exit    delete the kernel instances on exit (default:\n"
"                          keep them, so that a manager's secondary\n"
"                          stays blocked; only mrpctl del removes a ring)\n"
"      --keep-on-exit      the default, accepted for old scripts\n"
"  -g, --group GROUP       members of GROUP may show and wait (only root\n"
"                          may add and delete rings)\n"
"  -v, --verbose           log every action (twice: more)\n"
"  -V, --version           print the version\n"
"  -h, --help              this help\n");
}

/*
 * systemd's readiness protocol (sd_notify(3)): a datagram of
 * "VAR=value" lines to the unix socket NOTIFY_SOCKET names, a path or,
 * with a leading '@', an abstract name.  Without it, nothing is sent.
 */
static void notify(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	char msg[512];
	socklen_t len;
	va_list ap;
	size_t n;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	n = strlen(path);
	if (n >= sizeof(sun.sun_path))
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = 0;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (struct sockaddr *)&sun, len) < 0)
		LOG("NOTIFY_SOCKET %s: %s", path, strerror(errno));
	close(fd);
}

static void cleanup(void)
{
	struct ring *r;
	unsigned i;

	while ((r = g.rings))
		ring_delete(r, g.delete_on_exit);
	for (i = 0; i < MAX_CLIENTS; i++)
		if (g.clients[i].fd >= 0)
			client_close(&g.clients[i]);
	mrp_nl_close(&g.req);
	mrp_nl_close(&g.ev);
	if (g.pkt_fd >= 0)
		close(g.pkt_fd);
	if (g.ctl_fd >= 0)
		close(g.ctl_fd);
	if (g.pidfile)
		unlink(g.pidfile);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "daemon", no_argument, NULL, 'D' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "config", required_argument, NULL, 'c' },
		{ "syslog", no_argument, NULL, 'L' },
		{ "state-dir", required_argument, NULL, 'R' },
		{ "socket", required_argument, NULL, 's' },
		{ "profile", required_argument, NULL, 'P' },
		{ "clean-stale", no_argument, NULL, 'C' },
		{ "keep-on-exit", no_argument, NULL, 'K' },
		{ "delete-on-exit", no_argument, NULL, 'E' },
		{ "group", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	sigset_t mask;
	unsigned i;
	uint32_t v;
	int o, e;

	while ((o = getopt_long(argc, argv, "Dp:l:c:s:P:g:vVh", opts, NULL)) != -1) {
		switch (o) {
		case 'D': g.daemon = true; break;
		case 'p': g.pidfile = optarg; break;
		case 'l': g.logfile = optarg; break;
		case 'c': g.config = optarg; g.config_given = true; break;
		case 'L': g.use_syslog = true; break;
		case 'R': g.state_dir = optarg; break;
		case 's': g.sock_name = optarg; break;
		case 'P':
			if (!mrp_parse_u32(optarg, 1000, &v) ||
			    !mrp_profile_get(v)) {
				fprintf(stderr, "mrpd: bad profile '%s' "
					"(10, 30, 200 or 500)\n", optarg);
				return 2;
			}
			g.default_profile = v;
			break;
		case 'C': g.clean_stale = true; break;
		case 'K': g.delete_on_exit = false; break;
		case 'E': g.delete_on_exit = true; break;
		case 'g': {
			const struct group *gr = getgrnam(optarg);

			if (gr) {
				g.ro_gid = gr->gr_gid;
			} else if (mrp_parse_u32(optarg, UINT32_MAX - 1, &v)) {
				g.ro_gid = (gid_t)v;
			} else {
				fprintf(stderr, "mrpd: no group '%s'\n",
					optarg);
				return 2;
			}
			g.ro_group = optarg;
			break;
		}
		case 'v': g.verbose++; break;
		case 'V': printf("mrpd %s\n", MRP_TOOLS_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (g.logfile && g.use_syslog) {
		fprintf(stderr, "mrpd: --log and --syslog exclude each other\n");
		return 2;
	}
	if (g.config[0]) {
		char err[400];

		e = read_conf(g.config, &conf, err, sizeof(err));
		if (e == -EINVAL || (e && g.config_given)) {
			fprintf(stderr, "mrpd: %s\n", err);
			return 2;
		}
	}
	e = log_open();
	if (e) {
		fprintf(stderr, "mrpd: %s: %s\n", g.logfile, strerror(-e));
		return 1;
	}
	if (g.use_syslog)
		openlog("mrpd", LOG_PID, LOG_DAEMON);
	for (i = 0; i < MAX_CLIENTS; i++)
		g.clients[i].fd = -1;

	g.ctl_fd = open_control_socket();
	if (g.ctl_fd < 0) {
		fprintf(stderr, "mrpd: control socket @%s: %s%s\n",
			g.sock_name, strerror(-g.ctl_fd),
			g.ctl_fd == -EADDRINUSE ?
			" (is another mrpd running in this network namespace?)"
			: "");
		return 1;
	}
	e = mrp_nl_open(&g.req, 0);
	if (!e)
		e = mrp_nl_open(&g.ev, RTMGRP_LINK);
	if (e) {
		fprintf(stderr, "mrpd: rtnetlink: %s\n", strerror(-e));
		return 1;
	}
	g.pkt_fd = open_packet_socket();
	if (g.pkt_fd < 0) {
		fprintf(stderr, "mrpd: packet socket: %s\n",
			strerror(-g.pkt_fd));
		return 1;
	}
	if (g.daemon) {
		int fd, ready[2];
		pid_t pid;
		char c;

		if (pipe2(ready, O_CLOEXEC)) {
			fprintf(stderr, "mrpd: pipe: %s\n", strerror(errno));
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "mrpd: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid > 0) {
			/*
			 * Return once the daemon is ready: its rings taken
			 * over and the config file's created, and the control
			 * socket answering.  A daemon that fails on the way
			 * closes the pipe without a word.
			 */
			close(ready[1]);
			if (read(ready[0], &c, 1) != 1) {
				fprintf(stderr, "mrpd: the daemon failed to "
					"start (see its log)\n");
				_exit(1);
			}
			if (g.pidfile) {
				FILE *f = fopen(g.pidfile, "w");

				if (f) {
					fprintf(f, "%d\n", (int)pid);
					fclose(f);
				}
			}
			_exit(0);
		}
		close(ready[0]);
		g.ready_fd = ready[1];
		setsid();
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);	/* the log goes to -l FILE */
			if (fd > 2)
				close(fd);
		}
	} else if (g.pidfile) {
		FILE *f = fopen(g.pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	/*
	 * signalfd and epoll are created after fork(): epoll registers on
	 * the signal wait queue of the process that adds the signalfd, so a
	 * parent's registration would never wake the daemon.
	 */
	g.timer_fd = timerfd_create(CLOCK_MONOTONIC,
				    TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	g.sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	g.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (g.timer_fd < 0 || g.sig_fd < 0 || g.ep_fd < 0 ||
	    add_fd(mrp_nl_fd(&g.ev), TAG_NL) || add_fd(g.pkt_fd, TAG_PKT) ||
	    add_fd(g.timer_fd, TAG_TIMER) || add_fd(g.sig_fd, TAG_SIG) ||
	    add_fd(g.ctl_fd, TAG_CTL)) {
		LOG("setup: %s", strerror(errno));
		return 1;
	}

	state_path_init();
	reclaim();
	i = g.nrings;
	conf_create_missing(false);
	write_state();
	g.state_dirty = false;

	LOG("mrpd %s started (socket @%s, %u ring(s) reclaimed, %u of %u "
	    "in the config file running)", MRP_TOOLS_VERSION, g.sock_name, i,
	    count_conf_running(), conf.n);
	notify("READY=1\nMAINPID=%d\nSTATUS=%u ring(s), %u reclaimed",
	       (int)getpid(), g.nrings, i);
	if (g.ready_fd >= 0) {
		if (write(g.ready_fd, "1", 1) != 1)
			LOG("telling the parent we are ready: %s",
			    strerror(errno));
		close(g.ready_fd);
		g.ready_fd = -1;
	}

	while (!g.stop) {
		struct epoll_event evs[16];
		int n, k;

		check_waits();
		rearm_timer();
		n = epoll_wait(g.ep_fd, evs, 16, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			LOG("epoll: %s", strerror(errno));
			break;
		}
		for (k = 0; k < n; k++) {
			uint64_t tag = evs[k].data.u64;

			if (tag == TAG_NL) {
				handle_netlink();
			} else if (tag == TAG_PKT) {
				handle_packet();
			} else if (tag == TAG_TIMER) {
				handle_timer();
			} else if (tag == TAG_SIG) {
				struct signalfd_siginfo si;

				if (read(g.sig_fd, &si, sizeof(si)) <= 0)
					continue;
				if (si.ssi_signo != SIGHUP) {
					g.stop = true;
					continue;
				}
				e = log_open();
				LOG("SIGHUP: log %s, reading %s",
				    e ? strerror(-e) : "reopened",
				    g.config[0] ? g.config : "no config");
				notify("RELOADING=1");
				reload_config();
				notify("READY=1\nSTATUS=%u ring(s)",
				       g.nrings);
			} else if (tag == TAG_CTL) {
				accept_client();
			} else {
				struct client *c = evs[k].data.ptr;

				if (c->fd < 0)
					continue;
				if (evs[k].events & (EPOLLERR | EPOLLHUP) &&
				    !(evs[k].events & EPOLLIN)) {
					client_close(c);
					continue;
				}
				if (evs[k].events & EPOLLOUT)
					client_flush(c);
				if (c->fd >= 0 && (evs[k].events & EPOLLIN))
					client_read(c);
			}
		}
		if (g.conf_retry) {
			g.conf_retry = false;
			conf_create_missing(false);
		}
		if (g.state_dirty && !g.stop) {
			g.state_dirty = false;
			write_state();
		}
	}
	LOG("mrpd exiting (%s kernel instances)",
	    g.delete_on_exit ? "deleting" : "keeping");
	notify("STOPPING=1");
	if (g.delete_on_exit && g.state_path[0])
		unlink(g.state_path);
	cleanup();
	return 0;
}
