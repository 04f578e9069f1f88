// SPDX-License-Identifier: GPL-2.0
/*
 * MRP state machines: MRM, MRC and MRA, as event -> actions functions.
 *
 * The transitions follow IEC 62439-2 (MRM states AC_STAT1, PRM_UP, CHK_RO,
 * CHK_RC; MRC states AC_STAT1, DE_IDLE, PT, DE, PT_IDLE).  The Linux bridge
 * (or the switch under it) sends and checks MRP_Test frames; it tells us
 * about lost and regained continuity, which drive the MRM the way missing
 * and received test frames drive it in the standard.
 */
#include <string.h>

#include "mrp_sm.h"

static const struct mrp_profile profiles[] = {
	{ 10, 500, 3, 500, 1000, 3, 1000, 4 },
	{ 30, 500, 3, 1000, 3500, 3, 1000, 4 },
	{ 200, 10000, 3, 10000, 20000, 3, 20000, 4 },
	{ 500, 20000, 3, 30000, 50000, 5, 20000, 4 },
};

const struct mrp_profile *mrp_profile_get(unsigned ms)
{
	unsigned i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (profiles[i].ms == ms)
			return &profiles[i];
	return NULL;
}

int mrp_sm_cfg_default(struct mrp_sm_cfg *cfg, enum mrp_ring_role role,
		       unsigned profile_ms)
{
	const struct mrp_profile *p = mrp_profile_get(profile_ms);

	memset(cfg, 0, sizeof(*cfg));
	if (!p)
		return -1;
	if (role != MRP_ROLE_MRM && role != MRP_ROLE_MRC &&
	    role != MRP_ROLE_MRA)
		return -1;
	cfg->role = role;
	cfg->prof = *p;
	cfg->prio = role == MRP_ROLE_MRA ? 0xA000 : 0x8000;
	cfg->test_period_us = 10 * 1000 * 1000;
	cfg->react_on_link_change = true;
	cfg->blocked = 1;
	return 0;
}

void mrp_sm_cfg_interval(struct mrp_sm_cfg *cfg, uint32_t us)
{
	cfg->prof.test_interval_us = us;
	/* the additional tests after a change are never the slower ones */
	if (cfg->prof.test_short_us > us)
		cfg->prof.test_short_us = us;
}

/* ---- names ---- */

const char *mrp_role_name(enum mrp_ring_role r)
{
	switch (r) {
	case MRP_ROLE_DISABLED: return "disabled";
	case MRP_ROLE_MRC: return "mrc";
	case MRP_ROLE_MRM: return "mrm";
	case MRP_ROLE_MRA: return "mra";
	}
	return "?";
}

const char *mrp_port_state_name(unsigned s)
{
	switch (s) {
	case MRP_PORT_DISABLED: return "disabled";
	case MRP_PORT_BLOCKED: return "blocked";
	case MRP_PORT_FORWARDING: return "forwarding";
	case MRP_PORT_NOT_CONNECTED: return "not-connected";
	}
	return "?";
}

const char *mrp_mrm_state_name(enum mrm_state s)
{
	switch (s) {
	case MRM_AC_STAT1: return "AC_STAT1";
	case MRM_PRM_UP: return "PRM_UP";
	case MRM_CHK_RO: return "CHK_RO";
	case MRM_CHK_RC: return "CHK_RC";
	}
	return "?";
}

const char *mrp_mrc_state_name(enum mrc_state s)
{
	switch (s) {
	case MRC_AC_STAT1: return "AC_STAT1";
	case MRC_DE_IDLE: return "DE_IDLE";
	case MRC_PT: return "PT";
	case MRC_DE: return "DE";
	case MRC_PT_IDLE: return "PT_IDLE";
	}
	return "?";
}

const char *mrp_act_name(enum mrp_act_type t)
{
	switch (t) {
	case MRP_ACT_PORT_STATE: return "port-state";
	case MRP_ACT_PORT_ROLE: return "port-role";
	case MRP_ACT_RING_ROLE: return "ring-role";
	case MRP_ACT_RING_STATE: return "ring-state";
	case MRP_ACT_START_TEST: return "start-test";
	case MRP_ACT_SEND_TOPO: return "send-topo";
	case MRP_ACT_SEND_LINK: return "send-link";
	case MRP_ACT_SEND_OPTION: return "send-option";
	case MRP_ACT_FLUSH: return "flush";
	}
	return "?";
}

const char *mrp_sm_mode_name(const struct mrp_sm *sm)
{
	if (sm->cfg.role == MRP_ROLE_MRA)
		return sm->mrm_mode ? "MRA(MRM)" : "MRA(MRC)";
	return sm->cfg.role == MRP_ROLE_MRM ? "MRM" : "MRC";
}

const char *mrp_sm_state_name(const struct mrp_sm *sm)
{
	return sm->mrm_mode ? mrp_mrm_state_name(sm->mrm_state) :
			      mrp_mrc_state_name(sm->mrc_state);
}

const char *mrp_sm_ring_state_name(const struct mrp_sm *sm)
{
	if (!sm->mrm_mode)
		return "-";
	return sm->mrm_state == MRM_CHK_RC ? "closed" : "open";
}

/* ---- helpers ---- */

static struct mrp_action *emit(struct mrp_actions *out, enum mrp_act_type t)
{
	static struct mrp_action sink;
	struct mrp_action *a;

	if (out->n >= MRP_MAX_ACTIONS) {
		out->overflow = true;
		memset(&sink, 0, sizeof(sink));
		return &sink;
	}
	a = &out->a[out->n++];
	memset(a, 0, sizeof(*a));
	a->type = t;
	return a;
}

static uint16_t us_to_ms(uint64_t us)
{
	uint64_t ms = us / 1000;

	return ms > 0xffff ? 0xffff : (uint16_t)ms;
}

#define P(sm) ((sm)->prim)
#define S(sm) ((uint8_t)(1 - (sm)->prim))

static void port_state(struct mrp_sm *sm, unsigned port,
		       enum mrp_port_state st, struct mrp_actions *out)
{
	struct mrp_action *a = emit(out, MRP_ACT_PORT_STATE);

	a->port = (uint8_t)port;
	a->a = st;
	sm->pstate[port] = (uint8_t)st;
}

/*
 * The primary becomes secondary and vice versa.  This stays internal: the
 * kernel cannot swap the roles of an instance's ports (IFLA_BRIDGE_MRP_
 * PORT_ROLE on one port makes the instance point at that port for both
 * roles and forget the other one), and it only uses them for the
 * MRP_PortRole field of test frames.
 */
static void swap_ports(struct mrp_sm *sm, struct mrp_actions *out)
{
	(void)out;
	sm->prim = S(sm);
}

static void ring_state(struct mrp_sm *sm, enum mrp_ring_state st,
		       struct mrp_actions *out)
{
	if (sm->ring_state == (int)st)
		return;
	/* MRP_Transition: every change, not the first state set */
	if (sm->ring_state >= 0)
		sm->st.transitions++;
	sm->ring_state = st;
	emit(out, MRP_ACT_RING_STATE)->a = st;
}

static void topo_req(struct mrp_sm *sm, uint64_t now, uint32_t time_us,
		     struct mrp_actions *out);

static void set_mrm_state(struct mrp_sm *sm, enum mrm_state s,
			  struct mrp_actions *out)
{
	sm->mrm_state = s;
	if (s != MRM_CHK_RC) {
		sm->open_pending = false;
		sm->deadline[MRP_T_CONFIRM] = 0;
	}
	ring_state(sm, s == MRM_CHK_RC ? MRP_RING_CLOSED : MRP_RING_OPEN, out);
}

static void arm(struct mrp_sm *sm, enum mrp_timer t, uint64_t when)
{
	sm->deadline[t] = when ? when : 1;
}

static void disarm(struct mrp_sm *sm, enum mrp_timer t)
{
	sm->deadline[t] = 0;
}

static void emit_test(struct mrp_sm *sm, uint64_t now,
		      struct mrp_actions *out)
{
	struct mrp_action *a = emit(out, MRP_ACT_START_TEST);

	a->a = sm->test_interval;
	a->b = sm->cfg.prof.test_max;
	a->c = sm->cfg.test_period_us;
	a->d = sm->test_monitor;
	arm(sm, MRP_T_WATCH, now + sm->cfg.test_period_us / 2);
}

/* Ask the kernel to send MRP_Test frames at interval (MRM behaviour). */
static void test_req(struct mrp_sm *sm, uint64_t now, uint32_t interval,
		     struct mrp_actions *out)
{
	if (interval != sm->test_interval || sm->test_monitor) {
		sm->test_interval = interval;
		sm->test_monitor = false;
		emit_test(sm, now, out);
	}
	arm(sm, MRP_T_TEST, now + interval);
}

/*
 * The same, and start the kernel's test over even if its interval did not
 * change: the bridge's software test then counts its misses from zero.
 */
static void test_restart(struct mrp_sm *sm, uint64_t now, uint32_t interval,
			 struct mrp_actions *out)
{
	sm->test_interval = interval;
	sm->test_monitor = false;
	emit_test(sm, now, out);
	arm(sm, MRP_T_TEST, now + interval);
}

/* Ask the kernel to watch for a better manager's MRP_Test (MRA as MRC). */
static void test_monitor_req(struct mrp_sm *sm, uint64_t now,
			     struct mrp_actions *out)
{
	sm->test_interval = sm->cfg.prof.test_interval_us;
	sm->test_monitor = true;
	emit_test(sm, now, out);
	disarm(sm, MRP_T_TEST);
}

static void flush(struct mrp_sm *sm, struct mrp_actions *out)
{
	sm->st.flushes++;
	emit(out, MRP_ACT_FLUSH);
}

static void send_topo(struct mrp_sm *sm, uint64_t interval_us,
		      struct mrp_actions *out)
{
	sm->st.topo_sent++;
	emit(out, MRP_ACT_SEND_TOPO)->a = us_to_ms(interval_us);
}

/*
 * MRM: announce a topology change.  time_us 0 means "now": one frame with
 * interval 0 and an immediate flush.  Otherwise TOPNRmax + 1 frames go out
 * TOPchgT apart with a decreasing interval, and the MRM flushes its own
 * FDB together with the last one (interval 0).
 */
static void topo_req(struct mrp_sm *sm, uint64_t now, uint32_t time_us,
		     struct mrp_actions *out)
{
	/*
	 * A series that runs goes on (IEC 62439-2 TopologyChangeReq: only
	 * when the TC timer is not running): started over at every change
	 * of a flapping link, it would put the clients' flush off for as
	 * long as the link flaps.  "Now" (time 0) always goes out.
	 */
	if (time_us && sm->deadline[MRP_T_TOPO]) {
		sm->st.topo_held++;
		return;
	}
	send_topo(sm, (uint64_t)time_us * sm->cfg.prof.topo_max, out);
	if (!time_us) {
		disarm(sm, MRP_T_TOPO);
		flush(sm, out);
		return;
	}
	sm->topo_left = sm->cfg.prof.topo_max ? sm->cfg.prof.topo_max - 1 : 0;
	arm(sm, MRP_T_TOPO, now + sm->cfg.prof.topo_interval_us);
}

static void send_link(struct mrp_sm *sm, bool up, struct mrp_actions *out)
{
	struct mrp_action *a = emit(out, MRP_ACT_SEND_LINK);

	a->port = P(sm);
	a->up = up;
	a->a = us_to_ms((uint64_t)sm->link_left *
			sm->cfg.prof.link_interval_us);
	/*
	 * MRP_PortRole: the role of the port the frame leaves by, as
	 * microchip-ung/mrp and INET send it: the primary (the series
	 * goes out on the port that is still up).
	 */
	a->b = MRP_PORT_PRIMARY;
	a->c = sm->cfg.blocked;
	sm->st.link_sent++;
}

/* MRC: start a LinkUp / LinkDown series on the primary port. */
static void link_req(struct mrp_sm *sm, uint64_t now, bool up,
		     struct mrp_actions *out)
{
	sm->link_left = sm->cfg.prof.link_max;
	sm->link_series_up = up;
	send_link(sm, up, out);
	arm(sm, MRP_T_LINK, now + sm->cfg.prof.link_interval_us);
}

static void fdb_flush_in(struct mrp_sm *sm, uint64_t now, uint16_t ms,
			 struct mrp_actions *out)
{
	if (!ms) {
		disarm(sm, MRP_T_FDB);
		flush(sm, out);
		return;
	}
	arm(sm, MRP_T_FDB, now + (uint64_t)ms * 1000);
}

static void set_self_mgr(struct mrp_sm *sm, uint64_t now)
{
	sm->have_mgr = true;
	sm->mgr_prio = sm->cfg.prio;
	memcpy(sm->mgr_mac, sm->cfg.mac, 6);
	sm->mgr_seen = now;
}

/* ---- setup ---- */

void mrp_sm_init(struct mrp_sm *sm, const struct mrp_sm_cfg *cfg)
{
	memset(sm, 0, sizeof(*sm));
	sm->cfg = *cfg;
	sm->ring_state = -1;
	sm->pstate[0] = sm->pstate[1] = MRP_PORT_FORWARDING;
	sm->mrm_mode = cfg->role == MRP_ROLE_MRM || cfg->role == MRP_ROLE_MRA;
}

/* What starting and adopting both begin with: no link, no timer, no test. */
static void sm_reset(struct mrp_sm *sm)
{
	unsigned i;

	sm->started = true;
	sm->prim = 0;
	sm->link[0] = sm->link[1] = false;
	for (i = 0; i < MRP_T__N; i++)
		sm->deadline[i] = 0;
	sm->test_interval = 0;
	sm->test_monitor = false;
	sm->add_test = false;
	sm->no_tc = false;
	sm->mrm_state = MRM_AC_STAT1;
	sm->mrc_state = MRC_AC_STAT1;
	sm->link_left = sm->cfg.prof.link_max;
}

void mrp_sm_start(struct mrp_sm *sm, uint64_t now, bool up0, bool up1,
		  struct mrp_actions *out)
{
	sm_reset(sm);
	sm->mrm_mode = sm->cfg.role != MRP_ROLE_MRC;
	sm->announce = sm->mrm_mode;

	/*
	 * The role first: a client's blocked ports pass MRP frames only
	 * once the kernel (and a switch that offloads the ring) knows it
	 * is a client.  Blocked the other way round, a client joining a
	 * closed ring drops the manager's test frames for as long as the
	 * two requests are apart, and on a busy node that opened the ring.
	 */
	emit(out, MRP_ACT_RING_ROLE)->a = sm->cfg.role;
	port_state(sm, 0, MRP_PORT_BLOCKED, out);
	port_state(sm, 1, MRP_PORT_BLOCKED, out);
	if (sm->mrm_mode) {
		sm->ring_state = -1;
		set_mrm_state(sm, MRM_AC_STAT1, out);
		set_self_mgr(sm, now);
	}
	if (up0)
		mrp_sm_link(sm, now, 0, true, out);
	if (up1)
		mrp_sm_link(sm, now, 1, true, out);
}

void mrp_sm_adopt(struct mrp_sm *sm, uint64_t now,
		  const struct mrp_sm_kstate *k, struct mrp_actions *out)
{
	bool fwd[2];
	unsigned i;

	sm_reset(sm);
	sm->announce = false;
	sm->closed_at = 0;
	sm->mrm_mode = sm->cfg.role == MRP_ROLE_MRM ||
		       (sm->cfg.role == MRP_ROLE_MRA && !k->monitor);
	sm->ring_state = (int)k->ring_state;

	/* A port cannot forward on a link that is down: block it now. */
	for (i = 0; i < 2; i++) {
		fwd[i] = k->fwd[i] && k->up[i];
		sm->pstate[i] = k->fwd[i] ? MRP_PORT_FORWARDING :
					    MRP_PORT_BLOCKED;
		if (k->fwd[i] && !fwd[i])
			port_state(sm, i, MRP_PORT_BLOCKED, out);
	}
	if (fwd[0] != fwd[1])
		sm->prim = fwd[0] ? 0 : 1;

	/*
	 * The links the state stands for: both when both ports forward,
	 * the primary's when one does, none when none does.  A link up
	 * beyond those is replayed below as the event it is.
	 */
	if (fwd[0] && fwd[1]) {
		sm->link[0] = sm->link[1] = true;
	} else if (fwd[0] || fwd[1]) {
		sm->link[P(sm)] = true;
		/* a manager closes on the secondary's link alone */
		if (sm->mrm_mode && k->up[S(sm)])
			sm->link[S(sm)] = true;
	}

	if (sm->mrm_mode) {
		enum mrm_state st = MRM_AC_STAT1;

		set_self_mgr(sm, now);
		if (fwd[0] && fwd[1])
			st = MRM_CHK_RO;
		else if (sm->link[0] && sm->link[1])
			st = MRM_CHK_RC;
		else if (fwd[0] || fwd[1])
			st = MRM_PRM_UP;
		/* from nothing forwarding to a closed ring: announce it */
		sm->announce = st == MRM_AC_STAT1;
		set_mrm_state(sm, st, out);
		if (st != MRM_AC_STAT1)
			test_restart(sm, now, sm->cfg.prof.test_interval_us,
				     out);
	} else {
		if (fwd[0] && fwd[1])
			sm->mrc_state = MRC_PT_IDLE;
		else if (fwd[0] || fwd[1])
			sm->mrc_state = MRC_DE_IDLE;
		if (sm->cfg.role == MRP_ROLE_MRA)
			test_monitor_req(sm, now, out);
	}

	for (i = 0; i < 2; i++)
		if (k->up[i] && !sm->link[i])
			mrp_sm_link(sm, now, i, true, out);

	/*
	 * Continuity as last reported.  A switch reports changes only, so
	 * what it reported while nobody read it is acted on now: a loss
	 * opens a closed ring (a monitoring MRA takes over), a regain
	 * closes an open one.
	 */
	if (sm->mrm_mode && sm->mrm_state == MRM_CHK_RC &&
	    (k->lost[0] || k->lost[1]))
		mrp_sm_ring_open(sm, now, out);
	else if (sm->mrm_mode && sm->mrm_state == MRM_CHK_RO &&
		 !k->lost[0] && !k->lost[1])
		mrp_sm_test_seen(sm, now, out);
	else if (!sm->mrm_mode && sm->cfg.role == MRP_ROLE_MRA &&
		 (k->lost[0] || k->lost[1]))
		mrp_sm_ring_open(sm, now, out);
}

void mrp_sm_retime(struct mrp_sm *sm, uint64_t now,
		   const struct mrp_sm_cfg *cfg, struct mrp_actions *out)
{
	sm->cfg.prof = cfg->prof;
	sm->cfg.test_period_us = cfg->test_period_us;
	sm->cfg.react_on_link_change = cfg->react_on_link_change;
	sm->cfg.blocked = cfg->blocked;
	if (!sm->started || !sm->test_interval)
		return;
	if (sm->test_monitor)
		test_monitor_req(sm, now, out);
	else if (sm->mrm_mode && !sm->add_test)
		test_restart(sm, now, sm->cfg.prof.test_interval_us, out);
}

/* ---- MRM ---- */

static void mrm_link(struct mrp_sm *sm, uint64_t now, unsigned port, bool up,
		     struct mrp_actions *out)
{
	bool on_prim = port == P(sm);
	uint32_t topo = sm->cfg.prof.topo_interval_us;
	uint32_t tst = sm->cfg.prof.test_interval_us;

	switch (sm->mrm_state) {
	case MRM_AC_STAT1:
		if (!up)
			break;
		if (!on_prim)
			swap_ports(sm, out);
		port_state(sm, P(sm), MRP_PORT_FORWARDING, out);
		test_req(sm, now, tst, out);
		set_mrm_state(sm, MRM_PRM_UP, out);
		break;
	case MRM_PRM_UP:
		if (!up && on_prim) {
			/* The kernel test keeps running: nothing can be
			 * sent on links that are down. */
			disarm(sm, MRP_T_TEST);
			port_state(sm, P(sm), MRP_PORT_BLOCKED, out);
			set_mrm_state(sm, MRM_AC_STAT1, out);
		} else if (up && !on_prim) {
			sm->no_tc = true;
			/*
			 * The ring is taken as closed before any test frame
			 * came back.  The kernel's test counted misses all the
			 * time the ring was open: unless it starts over, it
			 * reports a loss at its next interval, while the
			 * client behind the link that came up still blocks it.
			 */
			test_restart(sm, now, tst, out);
			sm->closed_at = now;
			set_mrm_state(sm, MRM_CHK_RC, out);
			/*
			 * Before mrpd took them over the ports forwarded as
			 * plain bridge ports (br_mrp_add() sets them so):
			 * blocking the secondary the first time changes the
			 * topology, and the clients must hear about it.
			 */
			if (sm->announce) {
				sm->announce = false;
				topo_req(sm, now, sm->cfg.prof.topo_interval_us,
					 out);
			}
			/*
			 * The kernel reports test frames only while the ring
			 * state is open, so "test received in CHK_RC" (which
			 * clears no_tc) may never be reported: if no loss of
			 * continuity shows up within the detection time the
			 * ring is closed, and later openings need a
			 * TopologyChange again.
			 */
			arm(sm, MRP_T_NOTC, now + (uint64_t)tst *
			    (sm->cfg.prof.test_max + 2u));
		}
		break;
	case MRM_CHK_RO:
		if (up)
			break;
		if (on_prim) {
			swap_ports(sm, out);
			port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
			test_req(sm, now, tst, out);
			topo_req(sm, now, topo, out);
			set_mrm_state(sm, MRM_PRM_UP, out);
		} else {
			port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
			set_mrm_state(sm, MRM_PRM_UP, out);
		}
		break;
	case MRM_CHK_RC:
		if (up)
			break;
		if (on_prim) {
			swap_ports(sm, out);
			port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
			port_state(sm, P(sm), MRP_PORT_FORWARDING, out);
			test_req(sm, now, tst, out);
			topo_req(sm, now, topo, out);
		}
		sm->st.openings++;
		set_mrm_state(sm, MRM_PRM_UP, out);
		break;
	}
}

/* Own MRP_Test frames came back: the ring is closed. */
static void mrm_test_seen(struct mrp_sm *sm, uint64_t now,
			  struct mrp_actions *out)
{
	uint32_t tst = sm->cfg.prof.test_interval_us;

	switch (sm->mrm_state) {
	case MRM_AC_STAT1:
		break;
	case MRM_PRM_UP:
		/*
		 * The secondary's link is down: none of our test frames can
		 * come round to a ring port.  One that does was sent before
		 * the link went down and was still in flight (tens of ms on
		 * rings whose nodes forward them in software); taking it for
		 * a closed ring opened the ring a second time when the
		 * client's MRP_LinkDown came in.  The secondary coming up
		 * closes the ring (mrm_link()).
		 */
		break;
	case MRM_CHK_RO:
		port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
		sm->no_tc = false;
		test_req(sm, now, tst, out);
		topo_req(sm, now, sm->cfg.react_on_link_change ?
			 sm->cfg.prof.topo_interval_us : 0, out);
		sm->closed_at = now;
		set_mrm_state(sm, MRM_CHK_RC, out);
		break;
	case MRM_CHK_RC:
		sm->no_tc = false;
		break;
	}
}

/* Own MRP_Test frames stopped coming back: the ring is open. */
static void mrm_ring_open(struct mrp_sm *sm, uint64_t now,
			  struct mrp_actions *out)
{
	uint32_t tst = sm->cfg.prof.test_interval_us;

	if (sm->mrm_state != MRM_CHK_RC) {
		sm->add_test = false;
		test_req(sm, now, tst, out);
		return;
	}
	port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
	sm->add_test = false;
	if (!sm->no_tc)
		topo_req(sm, now, sm->cfg.prof.topo_interval_us, out);
	test_req(sm, now, tst, out);
	sm->st.openings++;
	set_mrm_state(sm, MRM_CHK_RO, out);
}

/* MRP_LinkDown / MRP_LinkUp from a client. */
static void mrm_link_frame(struct mrp_sm *sm, uint64_t now, bool link_up,
			   bool blocked, struct mrp_actions *out)
{
	const struct mrp_profile *pr = &sm->cfg.prof;
	bool react = sm->cfg.react_on_link_change;

	switch (sm->mrm_state) {
	case MRM_AC_STAT1:
		break;
	case MRM_PRM_UP:
		if (blocked) {
			if (sm->add_test)
				break;
			sm->add_test = true;
			test_req(sm, now, pr->test_interval_us, out);
		} else {
			if (!link_up)
				break;
			if (!sm->add_test) {
				sm->add_test = true;
				test_req(sm, now, pr->test_short_us, out);
			}
			topo_req(sm, now, 0, out);
		}
		break;
	case MRM_CHK_RO:
		if (link_up && blocked) {
			if (!sm->add_test) {
				sm->add_test = true;
				test_req(sm, now, pr->test_short_us, out);
			}
			break;
		}
		if (!link_up) {
			if (!sm->add_test) {
				sm->add_test = true;
				test_req(sm, now, pr->test_short_us, out);
			}
			break;
		}
		/* LinkUp from a client that cannot block: close now */
		port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
		if (!sm->add_test) {
			sm->add_test = true;
			test_req(sm, now, pr->test_short_us, out);
		} else {
			test_req(sm, now, pr->test_interval_us, out);
		}
		topo_req(sm, now, 0, out);
		sm->closed_at = now;
		set_mrm_state(sm, MRM_CHK_RC, out);
		break;
	case MRM_CHK_RC:
		if (!react) {
			if (blocked && !sm->add_test) {
				sm->add_test = true;
				test_req(sm, now, pr->test_short_us, out);
			}
			break;
		}
		if (!link_up && now - sm->closed_at < MRP_STALE_LINK_US) {
			/*
			 * The ring closed a moment ago, so every link was up
			 * then: this LinkDown is most likely older than that,
			 * from a client that heard of its link late (software
			 * clients lag their switch by tens of ms).  Opening
			 * on it would open the ring a second time for one
			 * break.  A new break stops the test frames, and the
			 * switch reports it after max-miss intervals.
			 */
			sm->st.stale_link_rx++;
			break;
		}
		if (!link_up) {
			/* a client lost a link: open the ring right away */
			port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
			sm->st.openings++;
			topo_req(sm, now, 0, out);
			set_mrm_state(sm, MRM_CHK_RO, out);
		} else {
			topo_req(sm, now, 0, out);
		}
		break;
	}
}

/* ---- MRC ---- */

/*
 * A client that cannot block (MRP_Blocked 0, "non-blocking MRC" in IEC
 * 62439-2) forwards on its secondary as soon as the link is up, and says
 * so in its MRP_LinkUp: the manager blocks its own secondary at once.
 */
static void nonblocking_up(struct mrp_sm *sm, struct mrp_actions *out)
{
	if (!sm->cfg.blocked)
		port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
}

static void mrc_link(struct mrp_sm *sm, uint64_t now, unsigned port, bool up,
		     struct mrp_actions *out)
{
	bool on_prim = port == P(sm);

	switch (sm->mrc_state) {
	case MRC_AC_STAT1:
		if (!up)
			break;
		if (!on_prim)
			swap_ports(sm, out);
		port_state(sm, P(sm), MRP_PORT_FORWARDING, out);
		sm->mrc_state = MRC_DE_IDLE;
		break;
	case MRC_DE_IDLE:
		if (up && !on_prim) {
			nonblocking_up(sm, out);
			link_req(sm, now, true, out);
			sm->mrc_state = MRC_PT;
		} else if (!up && on_prim) {
			port_state(sm, P(sm), MRP_PORT_BLOCKED, out);
			sm->mrc_state = MRC_AC_STAT1;
		}
		break;
	case MRC_PT:
		if (up)
			break;
		if (on_prim)
			swap_ports(sm, out);
		/* the port that went down is the secondary now */
		port_state(sm, P(sm), MRP_PORT_FORWARDING, out);
		port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
		link_req(sm, now, false, out);
		sm->mrc_state = MRC_DE;
		break;
	case MRC_DE:
		if (up && !on_prim) {
			nonblocking_up(sm, out);
			link_req(sm, now, true, out);
			sm->mrc_state = MRC_PT;
		} else if (!up && on_prim) {
			sm->link_left = sm->cfg.prof.link_max;
			disarm(sm, MRP_T_LINK);
			port_state(sm, P(sm), MRP_PORT_BLOCKED, out);
			sm->mrc_state = MRC_AC_STAT1;
		}
		break;
	case MRC_PT_IDLE:
		if (up)
			break;
		if (on_prim)
			swap_ports(sm, out);
		port_state(sm, S(sm), MRP_PORT_BLOCKED, out);
		link_req(sm, now, false, out);
		sm->mrc_state = MRC_DE;
		break;
	}
}

static void mrc_topo(struct mrp_sm *sm, uint64_t now, uint16_t interval_ms,
		     struct mrp_actions *out)
{
	switch (sm->mrc_state) {
	case MRC_AC_STAT1:
		break;
	case MRC_DE_IDLE:
	case MRC_PT_IDLE:
		fdb_flush_in(sm, now, interval_ms, out);
		break;
	case MRC_PT:
		sm->link_left = sm->cfg.prof.link_max;
		disarm(sm, MRP_T_LINK);
		port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
		fdb_flush_in(sm, now, interval_ms, out);
		sm->mrc_state = MRC_PT_IDLE;
		break;
	case MRC_DE:
		sm->link_left = sm->cfg.prof.link_max;
		disarm(sm, MRP_T_LINK);
		fdb_flush_in(sm, now, interval_ms, out);
		sm->mrc_state = MRC_DE_IDLE;
		break;
	}
}

/* ---- MRA ---- */

/* MRA acting as MRM gives way to a better manager. */
static void mra_yield(struct mrp_sm *sm, uint64_t now, uint16_t prio,
		      const uint8_t mac[6], struct mrp_actions *out)
{
	struct mrp_action *a;

	if (sm->mrm_state == MRM_CHK_RC)
		port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
	disarm(sm, MRP_T_TOPO);
	disarm(sm, MRP_T_TEST);
	sm->add_test = false;
	sm->link_left = sm->cfg.prof.link_max;

	a = emit(out, MRP_ACT_SEND_OPTION);
	a->a = MRP_SUB_TEST_PROPAGATE;
	a->prio = prio;
	memcpy(a->mac, mac, 6);
	sm->st.option_sent++;

	switch (sm->mrm_state) {
	case MRM_AC_STAT1: sm->mrc_state = MRC_AC_STAT1; break;
	case MRM_PRM_UP: sm->mrc_state = MRC_DE_IDLE; break;
	case MRM_CHK_RO:
	case MRM_CHK_RC: sm->mrc_state = MRC_PT_IDLE; break;
	}
	sm->mrm_mode = false;
	sm->have_mgr = true;
	sm->mgr_prio = prio;
	memcpy(sm->mgr_mac, mac, 6);
	sm->mgr_seen = now;
	sm->st.yields++;
	test_monitor_req(sm, now, out);
}

/* MRA acting as MRC: the manager's test frames stopped; become MRM. */
static void mra_takeover(struct mrp_sm *sm, uint64_t now,
			 struct mrp_actions *out)
{
	enum mrm_state ns = MRM_AC_STAT1;

	disarm(sm, MRP_T_LINK);
	disarm(sm, MRP_T_FDB);
	sm->link_left = sm->cfg.prof.link_max;
	switch (sm->mrc_state) {
	case MRC_AC_STAT1: ns = MRM_AC_STAT1; break;
	case MRC_DE_IDLE:
	case MRC_DE: ns = MRM_PRM_UP; break;
	case MRC_PT: ns = MRM_CHK_RC; break;
	case MRC_PT_IDLE: ns = MRM_CHK_RO; break;
	}
	sm->mrm_mode = true;
	sm->add_test = false;
	sm->no_tc = false;
	set_self_mgr(sm, now);
	sm->st.takeovers++;
	set_mrm_state(sm, ns, out);
	if (ns != MRM_AC_STAT1)
		test_req(sm, now, sm->cfg.prof.test_short_us, out);
}

/*
 * Whether a NACK to the manager @mac went out less than MRP_NACK_HOLD_US
 * ago; if not, one goes now: remember it, in the oldest slot.
 */
static bool nack_held(struct mrp_sm *sm, uint64_t now, const uint8_t mac[6])
{
	unsigned i, old = 0;

	for (i = 0; i < MRP_NACK_SLOTS; i++) {
		if (sm->nack[i].at && !memcmp(sm->nack[i].mac, mac, 6)) {
			if (now - sm->nack[i].at < MRP_NACK_HOLD_US)
				return true;
			old = i;
			break;
		}
		if (sm->nack[i].at < sm->nack[old].at)
			old = i;
	}
	memcpy(sm->nack[old].mac, mac, 6);
	sm->nack[old].at = now;
	return false;
}

/*
 * Another manager's MRP_Test while this node manages (an MRM, or an MRA
 * acting as one).  A worse one is told to step back (MRP_TestMgrNAck
 * addressed to it).  A better one is not given way to here: an MRA steps
 * down on the MRP_TestMgrNAck the better manager addresses to it (IEC
 * 62439-2, as microchip-ung/mrp and INET do), which makes one manager
 * the others' word, not each node's view of the frames that reached it.
 */
static void mgr_test_frame(struct mrp_sm *sm, uint64_t now,
			   const struct mrp_pdu *pdu, struct mrp_actions *out)
{
	if (sm->mrm_mode) {
		struct mrp_action *a;

		if (mrp_better(pdu->prio, pdu->sa, sm->cfg.prio, sm->cfg.mac)) {
			sm->st.better_test_rx++;
			return;
		}
		/* tell the worse manager to step back */
		if (nack_held(sm, now, pdu->sa)) {
			sm->st.nack_held++;
			return;
		}
		a = emit(out, MRP_ACT_SEND_OPTION);
		a->a = MRP_SUB_TEST_MGR_NACK;
		a->prio = pdu->prio;
		memcpy(a->mac, pdu->sa, 6);
		sm->st.option_sent++;
	}
}

/* ---- entry points ---- */

void mrp_sm_link(struct mrp_sm *sm, uint64_t now, unsigned port, bool up,
		 struct mrp_actions *out)
{
	if (!sm->started || port > 1 || sm->link[port] == up)
		return;
	sm->link[port] = up;
	if (sm->mrm_mode)
		mrm_link(sm, now, port, up, out);
	else
		mrc_link(sm, now, port, up, out);
}

void mrp_sm_ring_open(struct mrp_sm *sm, uint64_t now,
		      struct mrp_actions *out)
{
	if (!sm->started)
		return;
	sm->st.ring_open++;
	if (sm->cfg.role == MRP_ROLE_MRA && !sm->mrm_mode) {
		mra_takeover(sm, now, out);
		return;
	}
	if (!sm->mrm_mode)
		return;
	if (sm->mrm_state == MRM_CHK_RC &&
	    now - sm->closed_at < MRP_STALE_LINK_US) {
		/* Maybe the break just closed, reported late: see
		 * MRP_STALE_LINK_US.
		 */
		if (!sm->open_pending) {
			uint64_t wait = (uint64_t)sm->cfg.prof.test_interval_us *
					sm->cfg.prof.test_max;

			sm->open_pending = true;
			arm(sm, MRP_T_CONFIRM, now + (wait > MRP_CONFIRM_US ?
						      wait : MRP_CONFIRM_US));
		}
		return;
	}
	mrm_ring_open(sm, now, out);
}

void mrp_sm_test_seen(struct mrp_sm *sm, uint64_t now,
		      struct mrp_actions *out)
{
	if (!sm->started || !sm->mrm_mode)
		return;
	if (sm->open_pending) {
		sm->open_pending = false;
		disarm(sm, MRP_T_CONFIRM);
		sm->st.stale_loss++;
	}
	mrm_test_seen(sm, now, out);
}

void mrp_sm_frame(struct mrp_sm *sm, uint64_t now, unsigned port,
		  const struct mrp_pdu *pdu, struct mrp_actions *out)
{
	bool own;

	if (!sm->started || port > 1)
		return;
	own = !memcmp(pdu->sa, sm->cfg.mac, 6);

	switch (pdu->type) {
	case MRP_TLV_TEST:
		sm->st.test_rx++;
		if (own) {
			/* our own test frame came around (when the bridge
			 * passes them up): same meaning as the kernel's
			 * continuity report */
			if (sm->mrm_mode)
				mrm_test_seen(sm, now, out);
			break;
		}
		if (!sm->mrm_mode) {
			sm->have_mgr = true;
			sm->mgr_prio = pdu->prio;
			memcpy(sm->mgr_mac, pdu->sa, 6);
			sm->mgr_seen = now;
		}
		mgr_test_frame(sm, now, pdu, out);
		break;
	case MRP_TLV_TOPO:
		sm->st.topo_rx++;
		if (!sm->mrm_mode)
			mrc_topo(sm, now, pdu->interval, out);
		else if (!own)
			/*
			 * Another manager's (an MRA's while they elect one):
			 * the paths changed for this node's FDB too; INET's
			 * MRM and MRA flush as well.
			 */
			fdb_flush_in(sm, now, pdu->interval, out);
		else
			sm->st.ignored_rx++;
		break;
	case MRP_TLV_LINK_DOWN:
	case MRP_TLV_LINK_UP:
		sm->st.link_rx++;
		if (sm->mrm_mode && !own)
			mrm_link_frame(sm, now, pdu->type == MRP_TLV_LINK_UP,
				       pdu->blocked != 0, out);
		else
			sm->st.ignored_rx++;
		break;
	case MRP_TLV_OPTION:
		sm->st.option_rx++;
		if (own || sm->cfg.role != MRP_ROLE_MRA)
			break;
		if (pdu->sub_type == MRP_SUB_TEST_MGR_NACK && sm->mrm_mode &&
		    !memcmp(pdu->other_sa, sm->cfg.mac, 6)) {
			mra_yield(sm, now, pdu->prio, pdu->sa, out);
		} else if (pdu->sub_type == MRP_SUB_TEST_PROPAGATE &&
			   sm->mrm_mode && sm->mrm_state != MRM_AC_STAT1 &&
			   !memcmp(pdu->other_sa, sm->cfg.mac, 6)) {
			/*
			 * An MRA gave way to us and opened the port it had
			 * blocked as manager: announce the topology change.
			 */
			topo_req(sm, now, sm->cfg.prof.topo_interval_us, out);
		} else if (pdu->sub_type == MRP_SUB_TEST_PROPAGATE &&
			   !sm->mrm_mode) {
			sm->have_mgr = true;
			sm->mgr_prio = pdu->other_prio;
			memcpy(sm->mgr_mac, pdu->other_sa, 6);
			sm->mgr_seen = now;
		}
		break;
	default:
		sm->st.ignored_rx++;
		break;
	}
}

static void timer_fire(struct mrp_sm *sm, enum mrp_timer t, uint64_t now,
		       struct mrp_actions *out)
{
	const struct mrp_profile *pr = &sm->cfg.prof;

	switch (t) {
	case MRP_T_TOPO:
		if (sm->topo_left > 0) {
			send_topo(sm, (uint64_t)sm->topo_left *
				  pr->topo_interval_us, out);
			sm->topo_left--;
			arm(sm, MRP_T_TOPO, now + pr->topo_interval_us);
		} else {
			flush(sm, out);
			send_topo(sm, 0, out);
		}
		break;
	case MRP_T_FDB:
		flush(sm, out);
		break;
	case MRP_T_LINK:
		if (sm->link_left > 0) {
			sm->link_left--;
			send_link(sm, sm->link_series_up, out);
			arm(sm, MRP_T_LINK, now + pr->link_interval_us);
		} else {
			sm->link_left = pr->link_max;
			if (sm->link_series_up) {
				port_state(sm, S(sm), MRP_PORT_FORWARDING, out);
				sm->mrc_state = MRC_PT_IDLE;
			} else {
				sm->mrc_state = MRC_DE_IDLE;
			}
		}
		break;
	case MRP_T_TEST:
		if (sm->mrm_state == MRM_AC_STAT1)
			break;
		sm->add_test = false;
		/* the additional (short) test is over: back to TSTdefaultT */
		if (sm->mrm_mode && !sm->test_monitor &&
		    sm->test_interval != pr->test_interval_us) {
			sm->test_interval = pr->test_interval_us;
			emit_test(sm, now, out);
		}
		break;
	case MRP_T_WATCH:
		if (sm->test_interval)
			emit_test(sm, now, out);
		break;
	case MRP_T_NOTC:
		/* a loss report waiting for MRP_T_CONFIRM is a loss */
		if (sm->mrm_mode && sm->mrm_state == MRM_CHK_RC &&
		    !sm->open_pending)
			sm->no_tc = false;
		break;
	case MRP_T_CONFIRM:
		/* no word of the test frames coming back: a new break */
		if (sm->open_pending && sm->mrm_mode &&
		    sm->mrm_state == MRM_CHK_RC) {
			sm->open_pending = false;
			mrm_ring_open(sm, now, out);
		}
		break;
	case MRP_T__N:
		break;
	}
}

void mrp_sm_timer(struct mrp_sm *sm, uint64_t now, struct mrp_actions *out)
{
	unsigned guard;

	if (!sm->started)
		return;
	/* Fire in deadline order; a timer may re-arm itself. */
	for (guard = 0; guard < 64; guard++) {
		int best = -1;
		unsigned i;

		for (i = 0; i < MRP_T__N; i++) {
			if (!sm->deadline[i] || sm->deadline[i] > now)
				continue;
			if (best < 0 || sm->deadline[i] < sm->deadline[best])
				best = (int)i;
		}
		if (best < 0)
			return;
		sm->deadline[best] = 0;
		timer_fire(sm, (enum mrp_timer)best, now, out);
	}
}

uint64_t mrp_sm_next_deadline(const struct mrp_sm *sm)
{
	uint64_t best = 0;
	unsigned i;

	for (i = 0; i < MRP_T__N; i++)
		if (sm->deadline[i] && (!best || sm->deadline[i] < best))
			best = sm->deadline[i];
	return best;
}

/* ---- ring-open notifications ---- */

enum mrp_loc_verdict mrp_loc_notify(struct mrp_loc *p, bool flag,
				    int (*flag_now)(void *arg), void *arg)
{
	int cur;

	/*
	 * Every notification about a bridge port carries the flag, so only
	 * changes mean something.  The bridge sets it on a loss and clears
	 * it on a regain (an own test frame back while the ring is open),
	 * when the ring closes and when a monitor begins, and tells user
	 * space each time ("net: bridge: mrp: a ring that closes is checked
	 * afresh", in patches/): every loss of a closed ring, and a
	 * monitor's loss of the manager, is a change from 0 to 1.  No timing
	 * is involved; a loss cannot hide behind an older one.
	 */
	if ((int)flag == p->flag) {
		if (p->self_notify) {
			p->self_notify--;
			return MRP_LOC_OWN_FLUSH;
		}
		return MRP_LOC_NONE;
	}
	/*
	 * A notification can be old news: the flag changed again since, and
	 * the notification of that change waits behind this one.  We may
	 * have fallen far behind (a busy node, thousands of notifications
	 * queued by a flapping link); replaying them would change the state
	 * of a ring that is not what they say, and every change we make
	 * queues more notifications behind them: a manager once flipped
	 * between open and closed for minutes after the flaps stopped,
	 * forwarding the secondary of a closed ring every other time.  So
	 * when anything is queued, the flag as the kernel has it now
	 * decides.  A ring that opened and closed again before we read of it
	 * (a driver reports both at once) is closed: nothing to do, the
	 * paths did not change.  A "lost" reported before the ring closed
	 * is followed by the bridge's clear: old news too.
	 *
	 * Except a closed report behind which the flag is 1 again: only a
	 * new loss sets it after a clear, and the notification of that
	 * loss, queued behind, would read as no change.  That loss is the
	 * news.
	 */
	cur = flag_now(arg);
	if (cur >= 0 && cur != (int)flag) {
		p->flag = cur;
		return cur ? MRP_LOC_OPEN_SINCE : MRP_LOC_OLD_NEWS;
	}
	p->flag = flag;
	return flag ? MRP_LOC_OPEN : MRP_LOC_CLOSED;
}

const char *mrp_loc_verdict_name(enum mrp_loc_verdict v)
{
	static const char *const n[] = {
		[MRP_LOC_NONE] = "no change",
		[MRP_LOC_OWN_FLUSH] = "own flush",
		[MRP_LOC_OLD_NEWS] = "old news",
		[MRP_LOC_OPEN] = "open",
		[MRP_LOC_OPEN_SINCE] = "open since",
		[MRP_LOC_CLOSED] = "closed",
	};

	return (unsigned)v < sizeof(n) / sizeof(n[0]) && n[v] ? n[v] : "?";
}
