"""Hostile MRP frames: valid frames of every MRP type from a stranger,
then mutated (random TLV types and lengths, truncations, random bytes, a
wrong version), for tests/cases/test_mrp_hostile.py.

device_malformed() is the device's own rule for what it drops and counts
as hw_mrp_malformed (docs/specs/mrpsim.rst, after the MRP engine's
forwarding table), so that a test can ask for the exact count.
"""

import random
import struct

ETH_P_MRP = 0x88e3
MC_TEST = bytes.fromhex("01154e000001")
MC_CONTROL = bytes.fromhex("01154e000002")
DOMAIN = b"\xff" * 16            # IEC 62439-2's default domain
STRANGER = bytes.fromhex("02feedc0ffee")

TLV_END, TLV_COMMON, TLV_TEST, TLV_TOPO = 0x00, 0x01, 0x02, 0x03
TLV_LINK_DOWN, TLV_LINK_UP, TLV_OPTION = 0x04, 0x05, 0x7f
TEST_LEN = 18


def tlv(t, payload):
    return bytes((t, len(payload))) + payload


def frame(dst, tlvs, seq=1, domain=DOMAIN, src=STRANGER):
    f = dst + src + struct.pack(">HH", ETH_P_MRP, 1) + b"".join(tlvs) + \
        tlv(TLV_COMMON, struct.pack(">H", seq) + domain) + tlv(TLV_END, b"")
    return f + bytes(max(0, 60 - len(f)))


def valid_frames(rng):
    """One valid frame of each MRP type, sent by STRANGER, in our domain
    or another.  None of them may change a ring: a worse test priority,
    no TestMgrNAck addressed to anyone here."""
    dom = DOMAIN if rng.random() < 0.7 else bytes(rng.randrange(256)
                                                  for _ in range(16))
    seq = rng.randrange(65536)
    return [
        frame(MC_TEST, [tlv(TLV_TEST, struct.pack(
            ">H6sHHHI", 0xffff, STRANGER, rng.randrange(2),
            rng.randrange(2), rng.randrange(65536),
            rng.randrange(1 << 32)))], seq, dom),
        frame(MC_CONTROL, [tlv(TLV_TOPO, struct.pack(
            ">H6sH", 0xffff, STRANGER, rng.randrange(100)))], seq, dom),
        frame(MC_CONTROL, [tlv(rng.choice((TLV_LINK_DOWN, TLV_LINK_UP)),
                               struct.pack(">6sHHH", STRANGER,
                                           rng.randrange(2),
                                           rng.randrange(100),
                                           rng.randrange(2)))], seq, dom),
        frame(MC_TEST, [tlv(TLV_OPTION, bytes.fromhex("0800060000") +
                            bytes(1) + tlv(rng.randrange(256), struct.pack(
                                ">H6sH6s", 0xffff, STRANGER, 0xffff,
                                bytes.fromhex("02deadbeef00"))) +
                            bytes(2))], seq, dom),
    ]


def mutate(rng, f):
    """One random mutation of frame f (never shorter than an Ethernet
    header: the device counts those as receive errors, not MRP)."""
    f = bytearray(f)
    how = rng.randrange(7)
    if how == 0:                            # truncated
        return bytes(f[:rng.randrange(14, len(f))])
    if how == 1:                            # first TLV: random length
        f[17] = rng.randrange(256)
    elif how == 2:                          # first TLV: random type
        f[16] = rng.randrange(256)
    elif how == 3:                          # a later TLV's length
        f[rng.randrange(18, len(f) - 1) | 1] = rng.randrange(256)
    elif how == 4:                          # random bytes after the header
        for _ in range(rng.randrange(1, 8)):
            f[rng.randrange(16, len(f))] = rng.randrange(256)
    elif how == 5:                          # wrong version
        f[14:16] = struct.pack(">H", rng.choice((0, 2, 0xffff)))
    else:                                   # garbage of any length
        n = rng.randrange(2, 1500 - 16)
        f = f[:16] + bytearray(rng.randrange(256) for _ in range(n))
    return bytes(f)


def frames(n, seed):
    """n hostile frames: every fourth a valid one, the rest mutated."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        for f in valid_frames(rng):
            out.append(f if len(out) % 4 == 0 else mutate(rng, f))
    return out[:n]


def device_malformed(f):
    """The device drops an MRP frame as malformed when its version is not
    1, a TLV runs past the end of the frame, or its first TLV is a Test
    TLV shorter than 18 bytes; it stops at an End TLV."""
    if len(f) < 18 or f[14:16] != b"\x00\x01":
        return True
    off, n = 16, 0
    while off + 2 <= len(f):
        t, ln = f[off], f[off + 1]
        if off + 2 + ln > len(f):
            return True
        if n == 0 and t == TLV_TEST and ln < TEST_LEN:
            return True
        if t == TLV_END:
            break
        off += 2 + ln
        n += 1
    return False
