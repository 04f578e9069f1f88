// SPDX-License-Identifier: GPL-2.0
/*
 * MRP interconnection state machines: MIM and MIC in RC mode, as
 * event -> actions functions.
 *
 * States as IEC 62439-2 Ed. 2 names them: MIM AC_STAT1 (interconnection
 * port down), CHK_IO (checking, interconnection open: the I-port
 * forwards) and CHK_IC (checking, closed: the I-port is blocked); MIC
 * AC_STAT1 (I-port down), PT (I-port up, blocked, MRP_InLinkUp series
 * running) and IP_IDLE (I-port forwarding).  The transitions follow the
 * standard's tables as microchip-ung/mrp implements them, with the
 * bridge's continuity reports standing in for the MIM's own count of
 * missed MRP_InTest frames.
 */
#include <string.h>

#include "mrp_in_sm.h"

/*
 * Interconnection recovery profiles, IEC 62439-2 (Ed. 3 tables 61 and
 * 62; Ed. 2 has the same 200 ms and 500 ms sets): there are no 10 ms and
 * 30 ms ones.  The values are those two independent implementations
 * use, the standard's text not being at hand: microchip-ung/mrp
 * (mrp_update_recovery(), MRP_IN_RECOVERY_200/500) and Microchip's VTSS
 * IEC MRP application (MRP_manager_timing_get(), MRP_client_timing_get(),
 * which name each field MRP_IN_*).  Both agree on every value.
 *
 *   profile  IN_TOPchgT IN_TOPNRmax IN_TSTdefaultT IN_TSTNRmax
 *            IN_LNKdownT = IN_LNKupT IN_LNKNRmax
 */
static const struct mrp_in_profile in_profiles[] = {
	{ 200, 10000, 3, 20000, 8, 20000, 4 },
	{ 500, 20000, 3, 50000, 8, 20000, 4 },
};

const struct mrp_in_profile *mrp_in_profile_get(unsigned ms)
{
	unsigned i;

	for (i = 0; i < sizeof(in_profiles) / sizeof(in_profiles[0]); i++)
		if (in_profiles[i].ms == ms)
			return &in_profiles[i];
	return NULL;
}

int mrp_in_cfg_default(struct mrp_in_cfg *cfg, enum mrp_in_role role,
		       unsigned profile_ms)
{
	const struct mrp_in_profile *p = mrp_in_profile_get(profile_ms);

	memset(cfg, 0, sizeof(*cfg));
	if (!p)
		return -1;
	if (role != MRP_IN_ROLE_MIM && role != MRP_IN_ROLE_MIC)
		return -1;
	cfg->mode = MRP_IN_MODE_RC;
	cfg->role = role;
	cfg->prof = *p;
	cfg->test_period_us = 10 * 1000 * 1000;
	cfg->react_on_link_change = true;
	return 0;
}

void mrp_in_cfg_interval(struct mrp_in_cfg *cfg, uint32_t us)
{
	cfg->prof.test_interval_us = us;
}

void mrp_in_cfg_max_miss(struct mrp_in_cfg *cfg, uint8_t max_miss)
{
	cfg->prof.test_max = max_miss;
}

const char *mrp_in_cfg_error(const struct mrp_in_cfg *cfg)
{
	if (cfg->mode == MRP_IN_MODE_LC)
		return "interconnection mode LC (link check, "
		       "MRP_InLinkStatusPoll) is not supported: the bridge "
		       "only checks interconnections with MRP_InTest (RC)";
	if (cfg->mode != MRP_IN_MODE_RC)
		return "unknown interconnection mode (only RC is supported)";
	if (cfg->role != MRP_IN_ROLE_MIM && cfg->role != MRP_IN_ROLE_MIC)
		return "interconnection role must be MIM or MIC";
	if (!cfg->prof.test_interval_us)
		return "interconnection test interval must not be 0";
	if (!cfg->prof.test_max)
		return "interconnection max-miss must be at least 1";
	if (cfg->test_period_us < cfg->prof.test_interval_us)
		return "interconnection test period shorter than its interval";
	if (!cfg->prof.topo_interval_us || !cfg->prof.link_interval_us)
		return "interconnection profile has a zero repetition time";
	return NULL;
}

/* ---- names ---- */

const char *mrp_in_role_name(enum mrp_in_role r)
{
	switch (r) {
	case MRP_IN_ROLE_DISABLED: return "disabled";
	case MRP_IN_ROLE_MIC: return "mic";
	case MRP_IN_ROLE_MIM: return "mim";
	}
	return "?";
}

const char *mrp_in_mode_name(enum mrp_in_mode m)
{
	switch (m) {
	case MRP_IN_MODE_RC: return "rc";
	case MRP_IN_MODE_LC: return "lc";
	}
	return "?";
}

const char *mrp_mim_state_name(enum mim_state s)
{
	switch (s) {
	case MIM_AC_STAT1: return "AC_STAT1";
	case MIM_CHK_IO: return "CHK_IO";
	case MIM_CHK_IC: return "CHK_IC";
	}
	return "?";
}

const char *mrp_mic_state_name(enum mic_state s)
{
	switch (s) {
	case MIC_AC_STAT1: return "AC_STAT1";
	case MIC_PT: return "PT";
	case MIC_IP_IDLE: return "IP_IDLE";
	}
	return "?";
}

const char *mrp_in_act_name(enum mrp_in_act_type t)
{
	switch (t) {
	case MRP_IN_ACT_ROLE: return "in-role";
	case MRP_IN_ACT_STATE: return "in-state";
	case MRP_IN_ACT_PORT_STATE: return "port-state";
	case MRP_IN_ACT_START_TEST: return "start-in-test";
	case MRP_IN_ACT_SEND_TOPO: return "send-in-topo";
	case MRP_IN_ACT_SEND_LINK: return "send-in-link";
	case MRP_IN_ACT_FLUSH: return "flush";
	}
	return "?";
}

const char *mrp_in_sm_state_name(const struct mrp_in_sm *sm)
{
	return sm->cfg.role == MRP_IN_ROLE_MIM ?
		mrp_mim_state_name(sm->mim_state) :
		mrp_mic_state_name(sm->mic_state);
}

const char *mrp_in_sm_in_state_name(const struct mrp_in_sm *sm)
{
	if (sm->cfg.role != MRP_IN_ROLE_MIM)
		return "-";
	return sm->mim_state == MIM_CHK_IC ? "closed" : "open";
}

/* ---- helpers ---- */

static struct mrp_in_action *emit(struct mrp_in_actions *out,
				  enum mrp_in_act_type t)
{
	static struct mrp_in_action sink;
	struct mrp_in_action *a;

	if (out->n >= MRP_IN_MAX_ACTIONS) {
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

static void arm(struct mrp_in_sm *sm, enum mrp_in_timer t, uint64_t when)
{
	sm->deadline[t] = when ? when : 1;
}

static void disarm(struct mrp_in_sm *sm, enum mrp_in_timer t)
{
	sm->deadline[t] = 0;
}

/* Set the I-port's state; nothing when it has it already. */
static void iport_state(struct mrp_in_sm *sm, enum mrp_port_state st,
			struct mrp_in_actions *out)
{
	struct mrp_in_action *a;

	if (sm->istate == st)
		return;
	a = emit(out, MRP_IN_ACT_PORT_STATE);
	a->port = MRP_IN_PORT_I;
	a->a = st;
	sm->istate = (uint8_t)st;
}

static void in_state(struct mrp_in_sm *sm, enum mrp_in_state st,
		     struct mrp_in_actions *out)
{
	if (sm->in_state == (int)st)
		return;
	if (sm->in_state >= 0)
		sm->st.transitions++;
	sm->in_state = st;
	emit(out, MRP_IN_ACT_STATE)->a = st;
}

static void set_mim_state(struct mrp_in_sm *sm, uint64_t now,
			  enum mim_state s, struct mrp_in_actions *out)
{
	if (s == MIM_CHK_IC && sm->mim_state != MIM_CHK_IC)
		sm->checked_at = now;
	sm->mim_state = s;
	in_state(sm, s == MIM_CHK_IC ? MRP_IN_CLOSED : MRP_IN_OPEN, out);
}

/*
 * (Re)start the bridge's InTest at MRP_IN_TSTdefaultT: it counts its
 * misses from zero, which a MIM whose I-port just came up needs (misses
 * counted while the port was down would report a loss at once).
 */
static void test_restart(struct mrp_in_sm *sm, uint64_t now,
			 struct mrp_in_actions *out)
{
	struct mrp_in_action *a = emit(out, MRP_IN_ACT_START_TEST);

	sm->test_interval = sm->cfg.prof.test_interval_us;
	a->a = sm->test_interval;
	a->b = sm->cfg.prof.test_max;
	a->c = sm->cfg.test_period_us;
	arm(sm, MRP_IN_T_WATCH, now + sm->cfg.test_period_us / 2);
}

static void flush(struct mrp_in_sm *sm, struct mrp_in_actions *out)
{
	sm->st.flushes++;
	emit(out, MRP_IN_ACT_FLUSH);
}

static void send_topo(struct mrp_in_sm *sm, uint64_t interval_us,
		      struct mrp_in_actions *out)
{
	sm->st.topo_sent++;
	emit(out, MRP_IN_ACT_SEND_TOPO)->a = us_to_ms(interval_us);
}

/*
 * MIM: announce an interconnection topology change, as the MRM does a
 * ring's: MRP_IN_TOPNRmax + 1 frames MRP_IN_TOPchgT apart with a
 * decreasing interval (TOPNRmax x TOPchgT first, 0 last), and the MIM
 * flushes its own FDB with the last one; the MICs flush when the
 * interval of a frame they got runs out.  A series that runs goes on:
 * its last frame comes after every change it holds.
 */
static void topo_req(struct mrp_in_sm *sm, uint64_t now,
		     struct mrp_in_actions *out)
{
	const struct mrp_in_profile *pr = &sm->cfg.prof;

	if (sm->deadline[MRP_IN_T_TOPO]) {
		sm->st.topo_held++;
		return;
	}
	send_topo(sm, (uint64_t)pr->topo_interval_us * pr->topo_max, out);
	sm->topo_left = pr->topo_max ? pr->topo_max - 1 : 0;
	arm(sm, MRP_IN_T_TOPO, now + pr->topo_interval_us);
}

static void send_link(struct mrp_in_sm *sm, bool up,
		      struct mrp_in_actions *out)
{
	struct mrp_in_action *a = emit(out, MRP_IN_ACT_SEND_LINK);

	a->up = up;
	a->a = us_to_ms((uint64_t)sm->link_left *
			sm->cfg.prof.link_interval_us);
	sm->st.link_sent++;
}

/*
 * MIC: start an MRP_InLinkUp / InLinkDown series: MRP_IN_LNKNRmax + 1
 * frames MRP_IN_LNKupT (LNKdownT) apart, the interval they carry counting
 * down to 0.  A series of the other kind stops.
 */
static void link_req(struct mrp_in_sm *sm, uint64_t now, bool up,
		     struct mrp_in_actions *out)
{
	sm->link_left = sm->cfg.prof.link_max;
	sm->link_series_up = up;
	send_link(sm, up, out);
	arm(sm, MRP_IN_T_LINK, now + sm->cfg.prof.link_interval_us);
}

static void link_stop(struct mrp_in_sm *sm)
{
	sm->link_left = sm->cfg.prof.link_max;
	disarm(sm, MRP_IN_T_LINK);
}

static void fdb_flush_in(struct mrp_in_sm *sm, uint64_t now, uint16_t ms,
			 struct mrp_in_actions *out)
{
	if (!ms) {
		disarm(sm, MRP_IN_T_FDB);
		flush(sm, out);
		return;
	}
	arm(sm, MRP_IN_T_FDB, now + (uint64_t)ms * 1000);
}

/* ---- setup ---- */

int mrp_in_sm_init(struct mrp_in_sm *sm, const struct mrp_in_cfg *cfg)
{
	memset(sm, 0, sizeof(*sm));
	sm->cfg = *cfg;
	sm->in_state = -1;
	/* br_mrp_set_in_role() sets the I-port forwarding */
	sm->istate = MRP_PORT_FORWARDING;
	return mrp_in_cfg_error(cfg) ? -1 : 0;
}

/* What starting and adopting begin with: no I-port link, timer, test. */
static void in_sm_reset(struct mrp_in_sm *sm, bool up0, bool up1)
{
	unsigned i;

	sm->started = true;
	for (i = 0; i < MRP_IN_T__N; i++)
		sm->deadline[i] = 0;
	sm->link[0] = up0;
	sm->link[1] = up1;
	sm->link[MRP_IN_PORT_I] = false;
	sm->mim_state = MIM_AC_STAT1;
	sm->mic_state = MIC_AC_STAT1;
	sm->link_left = sm->cfg.prof.link_max;
	sm->test_interval = 0;
}

void mrp_in_sm_start(struct mrp_in_sm *sm, uint64_t now, bool up0, bool up1,
		     bool up_i, struct mrp_in_actions *out)
{
	if (mrp_in_cfg_error(&sm->cfg))
		return;
	in_sm_reset(sm, up0, up1);

	/*
	 * The role first: the bridge takes requests for the I-port only once
	 * it is the instance's (BR_MRP_AWARE), and sets it forwarding.  Block
	 * it right after, and tell the bridge the interconnection is open
	 * until the MIM's test says otherwise.
	 */
	emit(out, MRP_IN_ACT_ROLE)->a = sm->cfg.role;
	sm->istate = MRP_PORT_FORWARDING;
	iport_state(sm, MRP_PORT_BLOCKED, out);
	if (sm->cfg.role == MRP_IN_ROLE_MIM) {
		sm->in_state = -1;
		set_mim_state(sm, now, MIM_AC_STAT1, out);
	}
	if (up_i)
		mrp_in_sm_link(sm, now, MRP_IN_PORT_I, true, out);
}

/*
 * The MIM's state from the kernel's: the I-port forwards in CHK_IO only;
 * blocked, IN_STATE closed is CHK_IC, open is AC_STAT1.  IN_STATE closed
 * with the I-port forwarding (a previous daemon stopped between the two
 * requests of an opening) is CHK_IO, and IN_STATE is set open.
 */
static void mim_adopt(struct mrp_in_sm *sm, uint64_t now,
		      const struct mrp_in_sm_kstate *k,
		      struct mrp_in_actions *out)
{
	enum mim_state st = MIM_AC_STAT1;

	if (k->fwd_i)
		st = MIM_CHK_IO;
	else if (k->in_state == MRP_IN_CLOSED)
		st = MIM_CHK_IC;
	sm->in_state = k->in_state;
	sm->link[MRP_IN_PORT_I] = st != MIM_AC_STAT1;
	set_mim_state(sm, now, st, out);
	if (st != MIM_AC_STAT1)
		test_restart(sm, now, out);
}

void mrp_in_sm_adopt(struct mrp_in_sm *sm, uint64_t now,
		     const struct mrp_in_sm_kstate *k,
		     struct mrp_in_actions *out)
{
	if (mrp_in_cfg_error(&sm->cfg))
		return;
	in_sm_reset(sm, k->up[0], k->up[1]);
	sm->istate = k->fwd_i ? MRP_PORT_FORWARDING : MRP_PORT_BLOCKED;
	if (sm->cfg.role == MRP_IN_ROLE_MIM) {
		mim_adopt(sm, now, k, out);
	} else {
		/* a blocked MIC waits for the MIM: its link up, replayed */
		sm->link[MRP_IN_PORT_I] = k->fwd_i;
		sm->mic_state = k->fwd_i ? MIC_IP_IDLE : MIC_AC_STAT1;
	}
	mrp_in_sm_link(sm, now, MRP_IN_PORT_I, k->up[MRP_IN_PORT_I], out);
}

/* ---- MIM ---- */

/* Interconnection lost: forward on the I-port, tell the nodes. */
static void mim_open(struct mrp_in_sm *sm, uint64_t now,
		     struct mrp_in_actions *out)
{
	iport_state(sm, MRP_PORT_FORWARDING, out);
	sm->st.opens++;
	topo_req(sm, now, out);
	set_mim_state(sm, now, MIM_CHK_IO, out);
}

/* Interconnection back: block the I-port again, tell the nodes. */
static void mim_close(struct mrp_in_sm *sm, uint64_t now,
		      struct mrp_in_actions *out)
{
	iport_state(sm, MRP_PORT_BLOCKED, out);
	sm->st.closes++;
	topo_req(sm, now, out);
	set_mim_state(sm, now, MIM_CHK_IC, out);
}

static void mim_link(struct mrp_in_sm *sm, uint64_t now, bool up,
		     struct mrp_in_actions *out)
{
	if (up) {
		if (sm->mim_state != MIM_AC_STAT1)
			return;
		/*
		 * Take the interconnection for closed with the I-port
		 * blocked and let the test tell: the bridge reports a loss
		 * only of a closed interconnection.
		 */
		iport_state(sm, MRP_PORT_BLOCKED, out);
		test_restart(sm, now, out);
		set_mim_state(sm, now, MIM_CHK_IC, out);
		return;
	}
	if (sm->mim_state == MIM_AC_STAT1)
		return;
	/* The test runs on: its frames still go round through the rings. */
	iport_state(sm, MRP_PORT_BLOCKED, out);
	topo_req(sm, now, out);
	set_mim_state(sm, now, MIM_AC_STAT1, out);
}

/*
 * The bridge clears a port's IFLA_BRPORT_MRP_IN_OPEN only when an own
 * InTest comes back while the interconnection is open, not when it
 * becomes closed or the test restarts: a MIM whose I-port comes back up
 * closes with the flags of the old loss still set, and the next
 * notification of the port (its carrier) carries them.  A real loss
 * takes the bridge max-miss intervals from the test's (re)start or the
 * last own frame, which is when the MIM took CHK_IC: any earlier report
 * is old, and a real one is repeated every interval.
 */
static bool loss_stale(const struct mrp_in_sm *sm, uint64_t now)
{
	uint64_t min = (uint64_t)sm->cfg.prof.test_max *
		       sm->cfg.prof.test_interval_us;

	return now - sm->checked_at < min;
}

static void mim_loss(struct mrp_in_sm *sm, uint64_t now, bool lost,
		     struct mrp_in_actions *out)
{
	if (lost && sm->mim_state == MIM_CHK_IC && loss_stale(sm, now))
		sm->st.stale_loss++;
	else if (lost && sm->mim_state == MIM_CHK_IC)
		mim_open(sm, now, out);
	else if (!lost && sm->mim_state == MIM_CHK_IO)
		mim_close(sm, now, out);
}

/*
 * A MIC's MRP_InLinkDown / InLinkUp of our interconnection.  Down while
 * closed: the other interconnection link broke, open at once (unless
 * told to wait for the test).  Up while closed: a MIC whose I-port came
 * up waits, blocked, for our MRP_InTopologyChange.  Up while open: our
 * blocked I-port comes first, and that is the test's call.
 */
static void mim_link_frame(struct mrp_in_sm *sm, uint64_t now, bool up,
			   struct mrp_in_actions *out)
{
	if (sm->mim_state != MIM_CHK_IC) {
		sm->st.ignored_rx++;
		return;
	}
	if (!up && sm->cfg.react_on_link_change)
		mim_open(sm, now, out);
	else if (up)
		topo_req(sm, now, out);
	else
		sm->st.ignored_rx++;
}

/* ---- MIC ---- */

static void mic_link(struct mrp_in_sm *sm, uint64_t now, bool up,
		     struct mrp_in_actions *out)
{
	switch (sm->mic_state) {
	case MIC_AC_STAT1:
		if (!up)
			break;
		/* stays blocked until the MIM answers or the series ends */
		link_req(sm, now, true, out);
		sm->mic_state = MIC_PT;
		break;
	case MIC_PT:
	case MIC_IP_IDLE:
		if (up)
			break;
		iport_state(sm, MRP_PORT_BLOCKED, out);
		link_req(sm, now, false, out);
		sm->mic_state = MIC_AC_STAT1;
		break;
	}
}

static void mic_topo(struct mrp_in_sm *sm, uint64_t now, uint16_t interval_ms,
		     struct mrp_in_actions *out)
{
	switch (sm->mic_state) {
	case MIC_AC_STAT1:
		/* the MIM heard our InLinkDown */
		if (!sm->link_series_up)
			link_stop(sm);
		break;
	case MIC_PT:
		link_stop(sm);
		iport_state(sm, MRP_PORT_FORWARDING, out);
		sm->mic_state = MIC_IP_IDLE;
		break;
	case MIC_IP_IDLE:
		break;
	}
	fdb_flush_in(sm, now, interval_ms, out);
}

/* ---- entry points ---- */

void mrp_in_sm_link(struct mrp_in_sm *sm, uint64_t now, unsigned port,
		    bool up, struct mrp_in_actions *out)
{
	if (!sm->started || port >= MRP_IN_PORTS || sm->link[port] == up)
		return;
	sm->link[port] = up;
	/*
	 * The MIM and MIC tables take the I-port's link only: a break in a
	 * ring reaches the MIM through its InTest, and the ring's manager
	 * handles it.
	 */
	if (port != MRP_IN_PORT_I) {
		sm->st.ring_link_changes++;
		return;
	}
	sm->st.link_changes++;
	if (sm->cfg.role == MRP_IN_ROLE_MIM)
		mim_link(sm, now, up, out);
	else
		mic_link(sm, now, up, out);
}

void mrp_in_sm_in_open(struct mrp_in_sm *sm, uint64_t now, bool open,
		       struct mrp_in_actions *out)
{
	if (!sm->started || sm->cfg.role != MRP_IN_ROLE_MIM)
		return;
	if (open)
		sm->st.loss_rx++;
	else
		sm->st.regain_rx++;
	mim_loss(sm, now, open, out);
}

int mrp_in_open_flags(int flags[MRP_IN_PORTS], unsigned pi, bool flag)
{
	int was;
	unsigned i;

	if (pi >= MRP_IN_PORTS)
		return -1;
	was = flags[pi];
	flags[pi] = flag;
	if (!flag)
		return was == 1 ? 0 : -1;
	for (i = 0; i < MRP_IN_PORTS; i++)
		if (flags[i] != 1)
			return -1;
	return 1;
}

void mrp_in_sm_frame(struct mrp_in_sm *sm, uint64_t now, unsigned port,
		     const struct mrp_pdu *pdu, struct mrp_in_actions *out)
{
	bool mim, own;

	if (!sm->started || port >= MRP_IN_PORTS)
		return;
	switch (pdu->type) {
	case MRP_TLV_IN_TEST:
	case MRP_TLV_IN_TOPO:
	case MRP_TLV_IN_LINK_DOWN:
	case MRP_TLV_IN_LINK_UP:
		break;
	default:
		/* ring frames are mrp_sm's; InLinkStatusPoll is LC mode */
		sm->st.ignored_rx++;
		return;
	}
	if (pdu->in_id != sm->cfg.in_id) {
		sm->st.other_id_rx++;
		return;
	}
	mim = sm->cfg.role == MRP_IN_ROLE_MIM;
	own = !memcmp(pdu->sa, sm->cfg.mac, 6);

	switch (pdu->type) {
	case MRP_TLV_IN_TEST:
		sm->st.test_rx++;
		/*
		 * Our own InTest came round (when we see the frames): what
		 * the bridge's regain report says.  A loss is the bridge's
		 * call only: it counts the misses.
		 */
		if (mim && own)
			mim_loss(sm, now, false, out);
		break;
	case MRP_TLV_IN_TOPO:
		sm->st.topo_rx++;
		if (!mim)
			mic_topo(sm, now, pdu->interval, out);
		else
			sm->st.ignored_rx++;	/* ours, back */
		break;
	case MRP_TLV_IN_LINK_DOWN:
	case MRP_TLV_IN_LINK_UP:
		sm->st.link_rx++;
		if (mim && !own)
			mim_link_frame(sm, now,
				       pdu->type == MRP_TLV_IN_LINK_UP, out);
		else
			sm->st.ignored_rx++;
		break;
	default:
		break;
	}
}

static void timer_fire(struct mrp_in_sm *sm, enum mrp_in_timer t,
		       uint64_t now, struct mrp_in_actions *out)
{
	const struct mrp_in_profile *pr = &sm->cfg.prof;

	switch (t) {
	case MRP_IN_T_TOPO:
		if (sm->topo_left > 0) {
			send_topo(sm, (uint64_t)sm->topo_left *
				  pr->topo_interval_us, out);
			sm->topo_left--;
			arm(sm, MRP_IN_T_TOPO, now + pr->topo_interval_us);
		} else {
			flush(sm, out);
			send_topo(sm, 0, out);
		}
		break;
	case MRP_IN_T_LINK:
		if (sm->link_left > 0) {
			sm->link_left--;
			send_link(sm, sm->link_series_up, out);
			arm(sm, MRP_IN_T_LINK, now + pr->link_interval_us);
		} else {
			sm->link_left = pr->link_max;
			/* no word from the MIM: forward anyway */
			if (sm->link_series_up && sm->mic_state == MIC_PT) {
				iport_state(sm, MRP_PORT_FORWARDING, out);
				sm->mic_state = MIC_IP_IDLE;
			}
		}
		break;
	case MRP_IN_T_FDB:
		flush(sm, out);
		break;
	case MRP_IN_T_WATCH:
		if (sm->test_interval)
			test_restart(sm, now, out);
		break;
	case MRP_IN_T__N:
		break;
	}
}

void mrp_in_sm_timer(struct mrp_in_sm *sm, uint64_t now,
		     struct mrp_in_actions *out)
{
	unsigned guard;

	if (!sm->started)
		return;
	/* Fire in deadline order; a timer may re-arm itself. */
	for (guard = 0; guard < 64; guard++) {
		int best = -1;
		unsigned i;

		for (i = 0; i < MRP_IN_T__N; i++) {
			if (!sm->deadline[i] || sm->deadline[i] > now)
				continue;
			if (best < 0 || sm->deadline[i] < sm->deadline[best])
				best = (int)i;
		}
		if (best < 0)
			return;
		sm->deadline[best] = 0;
		timer_fire(sm, (enum mrp_in_timer)best, now, out);
	}
}

uint64_t mrp_in_sm_next_deadline(const struct mrp_in_sm *sm)
{
	uint64_t best = 0;
	unsigned i;

	for (i = 0; i < MRP_IN_T__N; i++)
		if (sm->deadline[i] && (!best || sm->deadline[i] < best))
			best = sm->deadline[i];
	return best;
}
