/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O-free MRP state machines (IEC 62439-2): MRM, MRC and MRA.
 *
 * The core never reads a clock and never touches a socket.  Every entry
 * point takes the current time (microseconds on any monotonic clock) and
 * appends what has to happen to a list of actions; timers are deadlines
 * the caller polls with mrp_sm_next_deadline() and fires with
 * mrp_sm_timer().  Ports are named by their physical index: 0 is the port
 * configured as primary, 1 the one configured as secondary; the current
 * primary (which changes when links fail) is sm->prim.
 */
#ifndef MRP_SM_H
#define MRP_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "mrp_frame.h"

/* Values as in <linux/mrp_bridge.h> */
enum mrp_ring_role {
	MRP_ROLE_DISABLED = 0,
	MRP_ROLE_MRC = 1,
	MRP_ROLE_MRM = 2,
	MRP_ROLE_MRA = 3,
};

enum mrp_port_state {
	MRP_PORT_DISABLED = 0,
	MRP_PORT_BLOCKED = 1,
	MRP_PORT_FORWARDING = 2,
	MRP_PORT_NOT_CONNECTED = 3,
};

enum mrp_port_role {
	MRP_PORT_PRIMARY = 0,
	MRP_PORT_SECONDARY = 1,
};

enum mrp_ring_state {
	MRP_RING_OPEN = 0,
	MRP_RING_CLOSED = 1,
};

enum mrm_state { MRM_AC_STAT1, MRM_PRM_UP, MRM_CHK_RO, MRM_CHK_RC };
enum mrc_state { MRC_AC_STAT1, MRC_DE_IDLE, MRC_PT, MRC_DE, MRC_PT_IDLE };

/* Recovery profile (IEC 62439-2 Ed. 2, tables 59-62).  Times in us. */
struct mrp_profile {
	uint16_t ms;			/* 10, 30, 200 or 500 */
	uint32_t topo_interval_us;	/* TOPchgT */
	uint8_t topo_max;		/* TOPNRmax */
	uint32_t test_short_us;		/* TSTshortT */
	uint32_t test_interval_us;	/* TSTdefaultT */
	uint8_t test_max;		/* TSTNRmax (max_miss) */
	uint32_t link_interval_us;	/* LNKdownT / LNKupT */
	uint8_t link_max;		/* LNKNRmax */
};

/* NULL when ms is not a standard profile */
const struct mrp_profile *mrp_profile_get(unsigned ms);

struct mrp_sm_cfg {
	enum mrp_ring_role role;	/* MRM, MRC or MRA */
	struct mrp_profile prof;
	uint16_t prio;
	uint8_t mac[6];			/* MRP_SA: the bridge's address */
	uint32_t test_period_us;	/* START_TEST period; refreshed at 1/2 */
	bool react_on_link_change;	/* MRM reacts to MRP_LinkChange */
	uint16_t blocked;		/* MRP_Blocked we advertise as MRC */
};

/* Fill defaults for a role and profile (prio 0x8000 MRM, 0xA000 MRA). */
int mrp_sm_cfg_default(struct mrp_sm_cfg *cfg, enum mrp_ring_role role,
		       unsigned profile_ms);
/* Override the profile's TSTdefaultT; TSTshortT is capped at it. */
void mrp_sm_cfg_interval(struct mrp_sm_cfg *cfg, uint32_t us);

enum mrp_timer {
	MRP_T_TOPO,	/* MRM: TopologyChange repetition */
	MRP_T_FDB,	/* MRC: delayed FDB flush */
	MRP_T_LINK,	/* MRC: LinkUp / LinkDown repetition */
	MRP_T_TEST,	/* MRM: end of an additional (short) test */
	MRP_T_WATCH,	/* refresh START_TEST before its period ends */
	MRP_T_NOTC,	/* MRM: ring proved closed without a test report */
	MRP_T_CONFIRM,	/* MRM: a loss report just after closing holds */
	MRP_T__N,
};

enum mrp_act_type {
	MRP_ACT_PORT_STATE,	/* port, a = enum mrp_port_state */
	MRP_ACT_PORT_ROLE,	/* port, a = enum mrp_port_role (unused: the
				 * kernel cannot swap roles, see mrp_sm.c) */
	MRP_ACT_RING_ROLE,	/* a = enum mrp_ring_role (kernel role) */
	MRP_ACT_RING_STATE,	/* a = enum mrp_ring_state */
	MRP_ACT_START_TEST,	/* a interval us, b max_miss, c period us, d monitor */
	MRP_ACT_SEND_TOPO,	/* both ports; a = interval ms */
	MRP_ACT_SEND_LINK,	/* on port; up; a interval ms, b port role, c blocked */
	MRP_ACT_SEND_OPTION,	/* both ports; a = sub-TLV, prio/mac = other MRM */
	MRP_ACT_FLUSH,		/* flush the FDB of both ring ports */
};

struct mrp_action {
	enum mrp_act_type type;
	uint8_t port;
	bool up;
	uint32_t a, b, c, d;
	uint16_t prio;
	uint8_t mac[6];
};

#define MRP_MAX_ACTIONS 32

/*
 * A manager that closed the ring less than this long ago takes a client's
 * MRP_LinkDown for one sent before the ring closed, and does not open the
 * ring on it (its switch's test still catches a new break).  A loss report
 * within that time opens the ring only if no report of the test frames
 * coming back follows within MRP_CONFIRM_US or max-miss test intervals,
 * whichever is longer: a switch driver that reports late replays a loss
 * and regain of the break the manager has just closed, or reports a loss
 * the restarted test has not cleared yet.  Both cover how late software
 * reports a link or a test that recovered meanwhile.
 */
#define MRP_STALE_LINK_US 100000
#define MRP_CONFIRM_US 20000

/*
 * A manager tells a worse one to step back (MRP_TestMgrNAck) at most once
 * in this time: the worse one gives way by itself when it sees our test
 * frames, so a NACK only speeds that up.  Without a limit, every test
 * frame of the other manager queued on the way to us gets a NACK, each one
 * forwarded in software at every node of the ring: 14 nodes fell seconds
 * behind on such a storm and dropped into it again.
 */
#define MRP_NACK_HOLD_US 100000
#define MRP_NACK_SLOTS 4	/* worse managers remembered at once */

struct mrp_actions {
	unsigned n;
	bool overflow;
	struct mrp_action a[MRP_MAX_ACTIONS];
};

struct mrp_sm_stats {
	uint32_t transitions;	/* changes of the ring state, open to closed
				 * and back, as MRP_Transition counts them */
	uint32_t openings;	/* closed ring opened: one per break */
	uint32_t ring_open;	/* loss-of-continuity reports handled */
	uint32_t topo_sent;
	uint32_t link_sent;
	uint32_t option_sent;
	uint32_t flushes;
	uint32_t topo_rx;
	uint32_t link_rx;
	uint32_t test_rx;
	uint32_t option_rx;
	uint32_t ignored_rx;	/* valid frames with nothing to do */
	uint32_t stale_link_rx;	/* LinkDown just after the ring closed */
	uint32_t stale_loss;	/* loss reports of a break already over */
	uint32_t takeovers;	/* MRA became manager */
	uint32_t yields;	/* MRA gave up the manager role */
	uint32_t nack_held;	/* NACKs not sent: MRP_NACK_HOLD_US */
	uint32_t topo_held;	/* TC requests while a series ran */
	uint32_t better_test_rx; /* a better manager's test while managing:
				  * an MRA waits for its NACK */
};

struct mrp_sm {
	struct mrp_sm_cfg cfg;
	bool started;
	bool mrm_mode;		/* behaving as manager (MRM, or MRA as MRM) */
	enum mrm_state mrm_state;
	enum mrc_state mrc_state;
	uint8_t prim;		/* physical index of the current primary */
	bool link[2];
	uint8_t pstate[2];	/* last port state set, enum mrp_port_state */
	int ring_state;		/* last ring state set, -1 none */
	bool add_test;
	bool no_tc;
	bool announce;		/* first ring closure after start: send TC */
	uint8_t topo_left;
	uint8_t link_left;
	bool link_series_up;
	uint64_t closed_at;	/* when the manager last closed the ring */
	bool open_pending;	/* a loss report waits for MRP_T_CONFIRM */
	uint32_t test_interval;	/* current START_TEST interval, 0 none */
	bool test_monitor;
	uint64_t deadline[MRP_T__N];	/* 0 = not armed */
	/* manager seen in MRP_Test frames (or ourselves as MRM) */
	bool have_mgr;
	uint16_t mgr_prio;
	uint8_t mgr_mac[6];
	uint64_t mgr_seen;
	/* the last worse managers told to step back, and when */
	struct {
		uint8_t mac[6];
		uint64_t at;	/* 0: free */
	} nack[MRP_NACK_SLOTS];
	struct mrp_sm_stats st;
};

void mrp_sm_init(struct mrp_sm *sm, const struct mrp_sm_cfg *cfg);
/* Take over the ports: block both, set the role, react to links up. */
void mrp_sm_start(struct mrp_sm *sm, uint64_t now, bool up0, bool up1,
		  struct mrp_actions *out);
/*
 * What the kernel holds for a ring a new daemon takes over (a restart):
 * the links, which ports forward, the ring state and whether the test
 * monitors (an MRA acting as client), and the ports' loss of continuity
 * as last reported.
 */
struct mrp_sm_kstate {
	bool up[2];
	bool fwd[2];
	enum mrp_ring_state ring_state;
	bool monitor;
	bool lost[2];
};

/*
 * Take over the ports as they are, without blocking one that forwards:
 * the state follows from which ports forward and which links are up, the
 * test starts over, and only what changed while nobody watched (a link
 * that came up, continuity lost or regained) acts like the event it
 * stands for.  The ring role must be the kernel's: for another one, use
 * mrp_sm_start().
 */
void mrp_sm_adopt(struct mrp_sm *sm, uint64_t now,
		  const struct mrp_sm_kstate *k, struct mrp_actions *out);
/*
 * New timing for a running ring (profile, interval, max-miss, period,
 * react, blocked of @cfg; role, priority and MAC stay): the test starts
 * over at the new interval, unless an additional test at the short one
 * runs (it ends at the new default).
 */
void mrp_sm_retime(struct mrp_sm *sm, uint64_t now,
		   const struct mrp_sm_cfg *cfg, struct mrp_actions *out);
/* Carrier change of a ring port (duplicates are ignored). */
void mrp_sm_link(struct mrp_sm *sm, uint64_t now, unsigned port, bool up,
		 struct mrp_actions *out);
/* Kernel reports loss of continuity (IFLA_BRPORT_MRP_RING_OPEN 0 -> 1). */
void mrp_sm_ring_open(struct mrp_sm *sm, uint64_t now,
		      struct mrp_actions *out);
/* Kernel reports own test frames back (IFLA_BRPORT_MRP_RING_OPEN 1 -> 0). */
void mrp_sm_test_seen(struct mrp_sm *sm, uint64_t now,
		      struct mrp_actions *out);
/* A valid MRP frame of our domain arrived on a ring port. */
void mrp_sm_frame(struct mrp_sm *sm, uint64_t now, unsigned port,
		  const struct mrp_pdu *pdu, struct mrp_actions *out);
/* Fire every timer whose deadline is <= now. */
void mrp_sm_timer(struct mrp_sm *sm, uint64_t now, struct mrp_actions *out);
/* Earliest armed deadline, 0 if none. */
uint64_t mrp_sm_next_deadline(const struct mrp_sm *sm);

/*
 * A ring port's IFLA_BRPORT_MRP_RING_OPEN flag as mrpd reads it from the
 * kernel's notifications, and what one notification means for the state
 * machine (mrp_loc_notify()).
 */
struct mrp_loc {
	int flag;		/* last flag read */
	unsigned self_notify;	/* echoes of our own FDB flushes to come */
};

enum mrp_loc_verdict {
	MRP_LOC_NONE,		/* nothing new */
	MRP_LOC_OWN_FLUSH,	/* the echo of an own FDB flush */
	MRP_LOC_OLD_NEWS,	/* the flag changed again since: dropped */
	MRP_LOC_OPEN,		/* pass on: mrp_sm_ring_open() */
	MRP_LOC_OPEN_SINCE,	/* the same, on a closed report a loss
				 * overtook */
	MRP_LOC_CLOSED,		/* pass on: mrp_sm_test_seen() */
};

/*
 * A notification of port @p carries @flag.  @flag_now(@arg) returns the
 * flag as the kernel has it now when more notifications wait to be read,
 * else -1; it is called only for a notification that changes the flag.
 * Updates @p.
 */
enum mrp_loc_verdict mrp_loc_notify(struct mrp_loc *p, bool flag,
				    int (*flag_now)(void *arg), void *arg);
const char *mrp_loc_verdict_name(enum mrp_loc_verdict v);

/* Names for display */
const char *mrp_role_name(enum mrp_ring_role r);
const char *mrp_port_state_name(unsigned s);
const char *mrp_mrm_state_name(enum mrm_state s);
const char *mrp_mrc_state_name(enum mrc_state s);
const char *mrp_act_name(enum mrp_act_type t);
/* "MRM", "MRC", or for an MRA "MRA(MRM)" / "MRA(MRC)" */
const char *mrp_sm_mode_name(const struct mrp_sm *sm);
/* Ring state as seen by this node: "open", "closed" or "-" (clients) */
const char *mrp_sm_ring_state_name(const struct mrp_sm *sm);
/* Current state machine state name */
const char *mrp_sm_state_name(const struct mrp_sm *sm);

#endif
