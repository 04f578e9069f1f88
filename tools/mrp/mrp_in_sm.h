/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O-free MRP interconnection state machines (IEC 62439-2 Ed. 2): the
 * Media Redundancy Interconnection Manager (MIM) and Client (MIC), in RC
 * mode (ring check: the MIM's MRP_InTest frames go through both rings).
 *
 * Same style as mrp_sm.h: no clock, no socket.  Every entry point takes
 * the current time in microseconds and appends actions to a list; timers
 * are deadlines polled with mrp_in_sm_next_deadline() and fired with
 * mrp_in_sm_timer().  Ports are 0 and 1 for the ring ports (as configured
 * primary and secondary) and MRP_IN_PORT_I for the interconnection port.
 *
 * The bridge sends and checks the MIM's MRP_InTest frames itself once it
 * has the MIM role and a START_IN_TEST, and reports their loss and regain
 * with IFLA_BRPORT_MRP_IN_OPEN (mrp_in_sm_in_open()).  The machines set
 * the interconnection state (IN_STATE), block and unblock the
 * interconnection port, and send MRP_InTopologyChange (MIM) and
 * MRP_InLinkDown / MRP_InLinkUp (MIC).
 *
 * LC mode (link check, MRP_InLinkStatusPoll) has no kernel API: a
 * configuration that asks for it is refused by mrp_in_cfg_error().
 */
#ifndef MRP_IN_SM_H
#define MRP_IN_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "mrp_frame.h"
#include "mrp_sm.h"	/* enum mrp_port_state */

/* Values as in <linux/mrp_bridge.h> */
enum mrp_in_role {
	MRP_IN_ROLE_DISABLED = 0,
	MRP_IN_ROLE_MIC = 1,
	MRP_IN_ROLE_MIM = 2,
};

enum mrp_in_state {
	MRP_IN_OPEN = 0,
	MRP_IN_CLOSED = 1,
};

enum mrp_in_mode {
	MRP_IN_MODE_RC = 0,	/* ring check: MRP_InTest */
	MRP_IN_MODE_LC = 1,	/* link check: not supported */
};

/* Port index of the interconnection port; 0 and 1 are the ring ports. */
#define MRP_IN_PORT_I 2
#define MRP_IN_PORTS 3

enum mim_state { MIM_AC_STAT1, MIM_CHK_IO, MIM_CHK_IC };
enum mic_state { MIC_AC_STAT1, MIC_PT, MIC_IP_IDLE };

/* Interconnection recovery profile (see mrp_in_sm.c).  Times in us. */
struct mrp_in_profile {
	uint16_t ms;			/* 200 or 500 */
	uint32_t topo_interval_us;	/* MRP_IN_TOPchgT */
	uint8_t topo_max;		/* MRP_IN_TOPNRmax */
	uint32_t test_interval_us;	/* MRP_IN_TSTdefaultT */
	uint8_t test_max;		/* MRP_IN_TSTNRmax (max-miss) */
	uint32_t link_interval_us;	/* MRP_IN_LNKdownT / MRP_IN_LNKupT */
	uint8_t link_max;		/* MRP_IN_LNKNRmax */
};

/* NULL when ms is not an interconnection profile */
const struct mrp_in_profile *mrp_in_profile_get(unsigned ms);

struct mrp_in_cfg {
	uint16_t in_id;			/* MRP_InID */
	enum mrp_in_mode mode;		/* MRP_IN_MODE_RC only */
	enum mrp_in_role role;		/* MIM or MIC */
	struct mrp_in_profile prof;
	uint8_t mac[6];			/* MRP_SA: the bridge's address */
	uint32_t test_period_us;	/* START_IN_TEST period; refreshed at 1/2 */
	bool react_on_link_change;	/* MIM opens on MRP_InLinkDown */
};

/* Defaults for a role and profile: RC mode, in_id 0, period 10 s. */
int mrp_in_cfg_default(struct mrp_in_cfg *cfg, enum mrp_in_role role,
		       unsigned profile_ms);
/* Override the profile's MRP_IN_TSTdefaultT and MRP_IN_TSTNRmax. */
void mrp_in_cfg_interval(struct mrp_in_cfg *cfg, uint32_t us);
void mrp_in_cfg_max_miss(struct mrp_in_cfg *cfg, uint8_t max_miss);
/* Why @cfg cannot run, NULL when it can. */
const char *mrp_in_cfg_error(const struct mrp_in_cfg *cfg);

enum mrp_in_timer {
	MRP_IN_T_TOPO,	/* MIM: InTopologyChange repetition */
	MRP_IN_T_LINK,	/* MIC: InLinkUp / InLinkDown repetition */
	MRP_IN_T_FDB,	/* MIC: delayed FDB flush */
	MRP_IN_T_WATCH,	/* MIM: refresh START_IN_TEST before its period ends */
	MRP_IN_T__N,
};

/*
 * A list of its own, not more mrp_act_type values: the ring's actions
 * are switched over exhaustively by mrpd, and these go to other requests
 * (keyed by the interconnection ID) and other ports.
 */
enum mrp_in_act_type {
	MRP_IN_ACT_ROLE,	/* a = enum mrp_in_role: IFLA_BRIDGE_MRP_IN_ROLE
				 * (the caller adds ring ID, in_id, I-port) */
	MRP_IN_ACT_STATE,	/* a = enum mrp_in_state: IN_STATE */
	MRP_IN_ACT_PORT_STATE,	/* port (MRP_IN_PORT_I), a = enum mrp_port_state */
	MRP_IN_ACT_START_TEST,	/* a interval us, b max_miss, c period us:
				 * START_IN_TEST; a 0 stops it */
	MRP_IN_ACT_SEND_TOPO,	/* MRP_InTopologyChange on the ring ports and
				 * the I-port; a = interval ms */
	MRP_IN_ACT_SEND_LINK,	/* MRP_InLinkUp (up) / InLinkDown on the ring
				 * ports and the I-port, each with its own
				 * port role; a = interval ms */
	MRP_IN_ACT_FLUSH,	/* flush the FDB of ring ports and I-port */
};

struct mrp_in_action {
	enum mrp_in_act_type type;
	uint8_t port;
	bool up;
	uint32_t a, b, c;
};

#define MRP_IN_MAX_ACTIONS 16

struct mrp_in_actions {
	unsigned n;
	bool overflow;
	struct mrp_in_action a[MRP_IN_MAX_ACTIONS];
};

struct mrp_in_sm_stats {
	uint32_t transitions;	/* IN_STATE changes after the first, as the
				 * bridge's MRP_Transition in InTest counts */
	uint32_t opens;		/* MIM: closed interconnection opened */
	uint32_t closes;	/* MIM: open interconnection closed */
	uint32_t loss_rx;	/* MIM: kernel reported InTest lost */
	uint32_t regain_rx;	/* MIM: kernel reported InTest back */
	uint32_t stale_loss;	/* MIM: loss reports too early to be true */
	uint32_t topo_sent;
	uint32_t topo_held;	/* MIM: TC requests while a series ran */
	uint32_t topo_rx;
	uint32_t link_sent;
	uint32_t link_rx;
	uint32_t test_rx;	/* MRP_InTest of our interconnection */
	uint32_t link_changes;	/* carrier changes of the I-port */
	uint32_t ring_link_changes;
	uint32_t flushes;
	uint32_t other_id_rx;	/* In* frames of another interconnection */
	uint32_t ignored_rx;	/* frames with nothing to do */
};

struct mrp_in_sm {
	struct mrp_in_cfg cfg;
	bool started;
	enum mim_state mim_state;
	enum mic_state mic_state;
	bool link[MRP_IN_PORTS];
	uint8_t istate;		/* I-port state last set, enum mrp_port_state */
	int in_state;		/* IN_STATE last set, -1 none */
	uint8_t topo_left;
	uint8_t link_left;
	bool link_series_up;
	uint32_t test_interval;	/* current START_IN_TEST interval, 0 none */
	uint64_t checked_at;	/* MIM: when it last took CHK_IC */
	uint64_t deadline[MRP_IN_T__N];	/* 0 = not armed */
	struct mrp_in_sm_stats st;
};

/* -1 (and an inert machine) when mrp_in_cfg_error() refuses @cfg. */
int mrp_in_sm_init(struct mrp_in_sm *sm, const struct mrp_in_cfg *cfg);
/*
 * Take the role: set it, block the I-port (the bridge sets it forwarding
 * with the role), MIM: interconnection open; then the links as they are.
 */
void mrp_in_sm_start(struct mrp_in_sm *sm, uint64_t now, bool up0, bool up1,
		     bool up_i, struct mrp_in_actions *out);
/*
 * What the kernel holds for an interconnection a new daemon takes over
 * (a restart): the links of the ring ports and the I-port, whether the
 * I-port forwards, the instance's IN_STATE.
 */
struct mrp_in_sm_kstate {
	bool up[MRP_IN_PORTS];
	bool fwd_i;
	enum mrp_in_state in_state;
};

/*
 * Take over the I-port as it is, the role being the kernel's already:
 * the state follows from the I-port's state (and the MIM's from
 * IN_STATE), nothing is announced, a MIM that checks restarts its test,
 * and only what the I-port's link did while nobody watched acts as the
 * event it stands for.  A loss of continuity the bridge reported is not
 * acted on: the bridge never clears the flags of a closed
 * interconnection, and reports a real loss again every interval.
 */
void mrp_in_sm_adopt(struct mrp_in_sm *sm, uint64_t now,
		     const struct mrp_in_sm_kstate *k,
		     struct mrp_in_actions *out);
/* Carrier change of a ring port or the I-port (duplicates ignored). */
void mrp_in_sm_link(struct mrp_in_sm *sm, uint64_t now, unsigned port,
		    bool up, struct mrp_in_actions *out);
/*
 * MIM: the bridge reports its InTest frames lost (@open, the ports'
 * IFLA_BRPORT_MRP_IN_OPEN set) or back (cleared).  Repeats are harmless.
 * A loss reported less than max-miss test intervals after the MIM took
 * the interconnection for closed is stale (see mrp_in_sm.c) and ignored;
 * the bridge repeats a real one every interval.
 */
void mrp_in_sm_in_open(struct mrp_in_sm *sm, uint64_t now, bool open,
		       struct mrp_in_actions *out);
/*
 * What a notification of port @pi (0, 1 or MRP_IN_PORT_I) carrying
 * IFLA_BRPORT_MRP_IN_OPEN = @flag means, given the three ports' flags
 * as last read (@flags, -1 unknown; updated): 1 a loss to pass to
 * mrp_in_sm_in_open(open=true), every time all three are set after it;
 * 0 a regain (open=false), the port's flag went from 1 to 0; -1
 * nothing.  The bridge sets all three on a loss but clears only the
 * port an own InTest came back through, and only while the
 * interconnection is open: one port's changes alone say nothing.
 */
int mrp_in_open_flags(int flags[MRP_IN_PORTS], unsigned pi, bool flag);
/* A valid MRP frame arrived on port (0, 1 or MRP_IN_PORT_I). */
void mrp_in_sm_frame(struct mrp_in_sm *sm, uint64_t now, unsigned port,
		     const struct mrp_pdu *pdu, struct mrp_in_actions *out);
/* Fire every timer whose deadline is <= now. */
void mrp_in_sm_timer(struct mrp_in_sm *sm, uint64_t now,
		     struct mrp_in_actions *out);
/* Earliest armed deadline, 0 if none. */
uint64_t mrp_in_sm_next_deadline(const struct mrp_in_sm *sm);

/* Names for display */
const char *mrp_in_role_name(enum mrp_in_role r);
const char *mrp_in_mode_name(enum mrp_in_mode m);
const char *mrp_mim_state_name(enum mim_state s);
const char *mrp_mic_state_name(enum mic_state s);
const char *mrp_in_act_name(enum mrp_in_act_type t);
/* Current state machine state name */
const char *mrp_in_sm_state_name(const struct mrp_in_sm *sm);
/* "open", "closed" (MIM) or "-" (MIC) */
const char *mrp_in_sm_in_state_name(const struct mrp_in_sm *sm);

#endif
