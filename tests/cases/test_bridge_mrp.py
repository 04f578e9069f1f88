"""bridge mrp (iproute2's bridge built with patches/iproute2) against mrpd's
view of the same rings and against mrpctl's reading of the kernel.

Two rings of three mrpsim switches; node i is switch i in network
namespace n<i>, a bridge br0 over s<i>p0 and s<i>p1 and an mrpd:
  - switches 0..2 with the MRP engine (the hardware path),
  - switches 3..5 with mrp=off (the bridge runs MRP in software).
The first node of each ring is the manager, the others clients; later
the first two nodes are MRAs.  `bridge -j mrp show` must show what
`mrpctl kernel show -j` reads from the kernel, field for field, and agree
with mrpd's `mrpctl -j show` on the ring's bridge, ID, ports, role,
priority, ring state and test.

In the init namespace, where no mrpd runs, a bridge brx over four veth
ends: instances that `bridge mrp` adds, changes and deletes are seen by
mrpctl, one that mrpctl adds is seen by bridge, and bad input is refused
with a message and a non-zero exit status.
"""

import json

import mrpring as R
from vm import Topology

RINGS = ((0, 1, 2), (3, 4, 5))      # the hardware ring, the software ring
NODES = RINGS[0] + RINGS[1]
RING = R.RING                        # the rings' MRP ring ID in mrpd

# brx: four bridge ports, their veth peers left out of the bridge (a pair
# with both ends in it would loop)
BRX = """
set -e
ip -batch - <<EOF
link add va type veth peer name vb
link add vc type veth peer name vd
link add ve type veth peer name vf
link add vg type veth peer name vh
link add brx type bridge
link set va master brx
link set vc master brx
link set ve master brx
link set vg master brx
EOF
for d in va vb vc vd ve vf vg vh brx; do ip link set dev $d up; done
"""


def topology():
    t = Topology()
    for ring, mrp in zip(RINGS, (True, False)):
        for _ in ring:
            t.switch(mrp=mrp)
        for k, i in enumerate(ring):
            t.cable((i, 1), (ring[(k + 1) % len(ring)], 0))
    return t


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")
    init = []
    for i in NODES:
        init += ["netns add %s" % R.ns(i),
                 "link set s%dp0 netns %s" % (i, R.ns(i)),
                 "link set s%dp1 netns %s" % (i, R.ns(i))]
    script = ["set -e", "ip -batch - <<EOF"] + init + ["EOF"]
    for i in NODES:
        script += R.bridge_script(i)
    vm.check("\n".join(script))
    vm.check("for i in %s; do nsenter --net=/run/netns/n$i mrpd -D -v "
             "-l /tmp/mrpd-n$i.log -p /run/mrpd-n$i.pid || exit 1; done" %
             " ".join(str(i) for i in NODES))
    vm.check(BRX)
    commission(vm, {0: "mrm"})


def cut(vm, ring, up=False):
    """Cut (up: restore) the ring's cable between its second and third
    node."""
    vm.set_link("s%dp1" % ring[1], up)
    vm.set_link("s%dp0" % ring[2], up)


def commission(vm, roles):
    """(Re)create ring RING in the mrpd of every node of both rings; roles
    by position in the ring ({0: "mrm"}: the first node manages, the
    others are clients), the clients first, then the managers, with one
    cable cut meanwhile (as tests/mrpring.py's mrpd_rings())."""
    def add(i, role):
        return "{ %s; %s || echo \"node %d failed\"; } &" % (
            R.nsx(i, "mrpctl del br0 ring %d >/dev/null 2>&1" % RING),
            R.nsx(i, "mrpctl add br0 ring %d primary s%dp0 secondary s%dp1 "
                  "role %s profile 200" % (RING, i, i, role)), i)

    for ring in RINGS:
        cut(vm, ring)
    try:
        out = ""
        for managers in (False, True):
            lines = [add(i, roles.get(k, "mrc"))
                     for ring in RINGS for k, i in enumerate(ring)
                     if (k in roles) == managers]
            out += vm.check("\n".join(lines + ["wait"]))
    finally:
        for ring in RINGS:
            cut(vm, ring, up=True)
    assert "failed" not in out, out


def views(vm, nodes):
    """{node: (bridge, kernel, mrpd)}: the rings of `bridge -j mrp show`,
    `mrpctl kernel show -j` and `mrpctl -j show` in node's namespace, each
    a {(bridge, ring id): ring} (one guest command for all)."""
    out = vm.check("\n".join(
        "echo '@@node %d bridge'; %s; echo '@@node %d kernel'; %s; "
        "echo '@@node %d mrpd'; %s" % (
            i, R.nsx(i, "bridge -j mrp show"), i,
            R.nsx(i, "mrpctl kernel show -j"), i, R.nsx(i, "mrpctl -j show"))
        for i in nodes))
    got, key = {}, None
    for line in out.splitlines():
        if line.startswith("@@node "):
            _, node, what = line.split()
            key = (int(node), what)
        elif line.strip() and key:
            got[key] = json.loads(line)
            key = None
    res = {}
    for i in nodes:
        assert all((i, w) in got for w in ("bridge", "kernel", "mrpd")), \
            "node %d: no JSON from every tool:\n%s" % (i, out)
        res[i] = ({(r["dev"], r["ring_id"]): r for r in got[(i, "bridge")]},
                  {(r["bridge"], r["ring"]): r
                   for r in got[(i, "kernel")]["rings"]},
                  {(r["bridge"], r["ring"]): r
                   for r in got[(i, "mrpd")]["rings"]})
    return res


# `bridge -j mrp show` key: `mrpctl kernel show -j` key
KERNEL_FIELDS = (("dev", "bridge"), ("ring_id", "ring"),
                 ("p_port", "primary"), ("s_port", "secondary"),
                 ("prio", "prio"), ("ring_role", "role"),
                 ("ring_state", "ring_state"),
                 ("test_interval", "test_interval"),
                 ("test_max_miss", "test_max_miss"),
                 ("test_monitor", "test_monitor"))


def against_kernel(br, kern):
    """What `bridge -j mrp show` shows that mrpctl does not read from the
    kernel, or the other way round: a list of differences."""
    diffs = []
    if set(br) != set(kern):
        return ["rings: bridge %s, mrpctl kernel %s" % (
            sorted(br), sorted(kern))]
    for key, b in sorted(br.items()):
        k = kern[key]
        for bf, kf in KERNEL_FIELDS:
            if b.get(bf) != k[kf]:
                diffs.append("%s ring %d: %s %r, mrpctl kernel %s %r" % (
                    key[0], key[1], bf, b.get(bf), kf, k[kf]))
        # interconnection fields only with an interconnection port
        if k["interconnect_ifindex"]:
            for f in ("in_role", "in_state"):
                if b.get(f) != k[f]:
                    diffs.append("%s ring %d: %s %r, mrpctl kernel %r" % (
                        key[0], key[1], f, b.get(f), k[f]))
        elif "i_port" in b:
            diffs.append("%s ring %d: i_port %s without an interconnection"
                         % (key[0], key[1], b["i_port"]))
    return diffs


# mrpd's profiles: TSTshortT (us), tools/mrp/README.md
TST_SHORT_US = {10: 500, 30: 1000, 200: 10000, 500: 30000}


def against_mrpd(br, mrpd):
    """How the kernel's instances (as bridge shows them) differ from what
    mrpd manages.  mrpd swaps primary and secondary internally when the
    primary's link fails, never in the kernel: the ports are compared as
    a pair.  A client has no ring state in mrpd ("-"), and the kernel
    keeps the test's interval and max-miss only for a test it runs
    itself (0 on the hardware path)."""
    if set(br) != set(mrpd):
        return ["rings: bridge %s, mrpd %s" % (sorted(br), sorted(mrpd))]
    diffs = []
    for key, b in sorted(br.items()):
        m = mrpd[key]
        pairs = [("ring_role", b["ring_role"], m["role"]),
                 ("prio", b["prio"], m["prio"]),
                 ("ports", sorted((b["p_port"], b["s_port"])),
                  sorted(p["name"] for p in m["ports"])),
                 ("test_monitor", b["test_monitor"],
                  m["mode"] == "MRA(MRC)")]
        if m["ring_state"] != "-":
            pairs.append(("ring_state", b["ring_state"], m["ring_state"]))
        if b["test_interval"]:
            # mrpd shows TSTdefaultT; after a change in the ring the
            # manager tests at TSTshortT for a while
            short = min(TST_SHORT_US[m["profile"]], m["test_interval"])
            if b["test_interval"] in (short, m["test_interval"]):
                m = dict(m, test_interval=b["test_interval"])
            pairs += [("test_interval", b["test_interval"],
                       m["test_interval"]),
                      ("test_max_miss", b["test_max_miss"], m["max_miss"])]
        diffs += ["%s ring %d: %s %r, mrpd %r" % (key[0], key[1], f, bv, mv)
                  for f, bv, mv in pairs if bv != mv]
    return diffs


def compare(vm, nodes, what):
    """Yield one result per node and comparison."""
    for i, (br, kern, mrpd) in sorted(views(vm, nodes).items()):
        for against, diffs in (("mrpctl kernel show",
                                against_kernel(br, kern)),
                               ("mrpd", against_mrpd(br, mrpd))):
            yield ("n%d %s: bridge mrp show agrees with %s" % (
                i, what, against), not diffs, "\n".join(diffs))


def test_rings_match_kernel_and_mrpd(vm):
    for ring in RINGS:
        R.wait_ring(vm, ring[0], "ring", "closed")
    yield from compare(vm, NODES, "manager and clients")
    # The software ring's manager runs the test in the kernel: its
    # interval and max-miss are in the dump (and compared above).
    br = views(vm, [RINGS[1][0]])[RINGS[1][0]][0]
    test = [(r["test_interval"], r["test_max_miss"]) for r in br.values()]
    yield ("n%d: the software manager's test is in the dump" % RINGS[1][0],
           bool(test) and all(t[0] and t[1] for t in test), repr(test))


def test_ring_open_and_closed(vm):
    for ring in RINGS:
        m = ring[0]
        cut(vm, ring)
        try:
            R.wait_ring(vm, m, "ring", "open")
            br, _, mrpd = views(vm, [m])[m]
            state = (br[("br0", RING)]["ring_state"],
                     mrpd[("br0", RING)]["ring_state"])
            yield ("n%d: a cut ring is open in bridge and mrpd" % m,
                   state == ("open", "open"), "bridge, mrpd: %s" % (state,))
            yield from compare(vm, ring, "ring cut")
        finally:
            cut(vm, ring, up=True)
        R.wait_ring(vm, m, "ring", "closed")
        br = views(vm, [m])[m][0]
        yield ("n%d: the restored ring is closed in bridge" % m,
               br[("br0", RING)]["ring_state"] == "closed",
               repr(br[("br0", RING)]))


def test_mras_match_kernel_and_mrpd(vm):
    # The second node (prio 0x9000) beats the first (MRA default 0xA000)
    commission(vm, {0: "mra", 1: "mra prio 0x9000"})
    for ring in RINGS:
        R.wait_ring(vm, ring[1], "mode", "manager")
        R.wait_ring(vm, ring[0], "mode", "client")
        R.wait_ring(vm, ring[1], "ring", "closed")
    yield from compare(vm, NODES, "two MRAs")
    for ring in RINGS:
        br = views(vm, [ring[0]])[ring[0]][0]
        yield ("n%d: the MRA acting as client monitors the test" % ring[0],
               br[("br0", RING)]["test_monitor"] is True,
               repr(br[("br0", RING)]))


def bridge_json(vm, args=""):
    return {r["ring_id"]: r for r in json.loads(
        vm.check("bridge -j mrp show dev brx %s" % args))}


def kernel_rings(vm):
    """mrpctl's reading of brx's instances: {ring id: ring}."""
    return {r["ring"]: r for r in json.loads(
        vm.check("mrpctl kernel show -j"))["rings"] if r["bridge"] == "brx"}


def run_ok(vm, cmd):
    status, out = vm.run(cmd + " 2>&1")
    return status == 0 and not out.strip(), "%s: exit %d: %s" % (
        cmd, status, out)


def test_add_set_del(vm):
    ok, why = run_ok(vm, "bridge mrp add dev brx ring_id 7 p_port va "
                     "s_port vc prio 0x9000 ring_role mrm")
    yield "bridge mrp add", ok, why
    k = kernel_rings(vm).get(7, {})
    want = {"primary": "va", "secondary": "vc", "prio": 0x9000,
            "role": "mrm", "ring_state": "open"}
    got = {f: k.get(f) for f in want}
    yield "mrpctl kernel show sees the added ring", got == want, \
        "want %s, got %s" % (want, k)
    text = vm.check("bridge mrp show dev brx ring_id 7")
    lines = [line.rstrip() for line in text.splitlines()]
    want = ["dev brx ring_id 7 p_port va s_port vc prio 36864 ring_role mrm "
            "ring_state open",
            "    test_interval 0 test_max_miss 0 test_monitor off"]
    yield "bridge mrp show prints the ring as text", lines == want, \
        "want:\n%s\ngot:\n%s" % ("\n".join(want), text)

    ok, why = run_ok(vm, "bridge mrp set dev brx ring_id 7 ring_role mra "
                     "ring_state closed")
    yield "bridge mrp set", ok, why
    k = kernel_rings(vm).get(7, {})
    got = (k.get("role"), k.get("ring_state"))
    yield "mrpctl kernel show sees the changed ring", \
        got == ("mra", "closed"), repr(k)

    # the other way: mrpctl adds, bridge shows and deletes
    ok, why = run_ok(vm, "mrpctl kernel add brx ring 8 primary ve "
                     "secondary vg prio 0x7000 && mrpctl kernel role brx "
                     "ring 8 mrc")
    yield "mrpctl kernel add", ok, why
    b = bridge_json(vm).get(8, {})
    want = {"p_port": "ve", "s_port": "vg", "prio": 0x7000,
            "ring_role": "mrc", "ring_state": "open"}
    got = {f: b.get(f) for f in want}
    yield "bridge mrp show sees mrpctl's ring", got == want, \
        "want %s, got %s" % (want, b)
    filtered = sorted(bridge_json(vm, "ring_id 8"))
    yield "bridge mrp show ring_id filters", filtered == [8], repr(filtered)
    diffs = against_kernel(
        {("brx", r): v for r, v in bridge_json(vm).items()},
        {("brx", r): v for r, v in kernel_rings(vm).items()})
    yield "bridge and mrpctl read brx alike", not diffs, "\n".join(diffs)

    ok, why = run_ok(vm, "bridge mrp del dev brx ring_id 7")
    yield "bridge mrp del", ok, why
    left = sorted(kernel_rings(vm))
    yield "mrpctl kernel show: the deleted ring is gone, the other stays", \
        left == [8], repr(left)
    ok, why = run_ok(vm, "bridge mrp del dev brx ring_id 8")
    yield "bridge mrp del of mrpctl's ring", ok, why
    left = sorted(kernel_rings(vm)) + sorted(bridge_json(vm))
    yield "no ring left on brx", left == [], repr(left)


# (arguments, what the message must say): refused before any request
BAD_INPUT = (
    ("add dev brx ring_id 9 p_port va s_port vc colour blue",
     'argument "colour" is wrong: unknown argument'),
    ("add dev brx p_port va s_port vc", 'argument "ring_id" is required'),
    ("add dev brx ring_id 9 p_port va", 'argument "s_port" is required'),
    ("del dev brx", 'argument "ring_id" is required'),
    ("add dev nosuch0 ring_id 9 p_port va s_port vc",
     'Cannot find device "nosuch0"'),
    ("add dev brx ring_id 9 p_port nosuch1 s_port vc",
     'Cannot find device "nosuch1"'),
    ("del dev nosuch0 ring_id 9", 'Cannot find device "nosuch0"'),
    ("show dev nosuch0", 'Cannot find device "nosuch0"'),
    ("add dev brx ring_id 9 p_port va s_port va",
     "p_port and s_port must be different"),
    ("add dev brx ring_id nine p_port va s_port vc",
     'argument "nine" is wrong: invalid ring_id'),
    ("add dev brx ring_id 9 p_port va s_port vc prio 65536",
     'argument "65536" is wrong: invalid prio'),
    ("add dev brx ring_id 9 p_port va s_port vc ring_role boss",
     'argument of "ring_role" must be one of'),
    ("set dev brx ring_id 9", "nothing to set"),
    ("frob dev brx", 'Command "frob" is unknown'),
    # refused by the kernel, with its reason (extack)
    ("add dev brx ring_id 9 p_port va s_port vb",
     "MRP ring port is not a port of the bridge"),
)


def test_bad_input(vm):
    for args, msg in BAD_INPUT:
        status, out = vm.run("bridge mrp %s 2>&1" % args)
        yield ("bridge mrp %s: refused" % args,
               status != 0 and msg in out,
               "exit %d, want a message with '%s', got: %s" % (
                   status, msg, out))
    # the kernel refuses a ring ID in use; the ring that has it stays
    vm.check("bridge mrp add dev brx ring_id 9 p_port va s_port vc")
    status, out = vm.run("bridge mrp add dev brx ring_id 9 p_port ve "
                         "s_port vg 2>&1")
    k = kernel_rings(vm).get(9, {})
    yield ("bridge mrp add of a ring ID in use: refused",
           status != 0 and "MRP ring ID already in use" in out and
           (k.get("primary"), k.get("secondary")) == ("va", "vc"),
           "exit %d: %s; ring 9: %s" % (status, out, k))
    vm.check("bridge mrp del dev brx ring_id 9")
    status, out = vm.run("bridge mrp del dev brx ring_id 9 2>&1")
    yield "bridge mrp del of a ring that is not there: refused", \
        status != 0, "exit %d: %s" % (status, out)
    left = sorted(kernel_rings(vm))
    yield "bad input left no ring on brx", left == [], repr(left)
