# SPDX-License-Identifier: BSD-3-Clause
"""I2s with a parameter of the wrong length against the real hipgw as the
responder (RFC 7401 sections 5.2.19, 6.9; lib/hip/hip_bex.c i2_syntax).

hipgw runs on net_af_packet over a veth pair between two network namespaces
made and removed here (hgi2-t<pid>-gw / -ini); in the other one the Python
initiator of hipinit.py (its crypto is hipref.py, no C code of ours) speaks
raw IP protocol 139: I1, R1 (HIP_SIGNATURE_2 checked), then I2s from one
puzzle solution and DH key, each with one parameter whose TLV framing is
intact but whose Length is wrong for its type (ESP_INFO of 14 bytes,
TRANSPORT_FORMAT_LIST of 3, ESP_TRANSFORM of 5, an empty
ECHO_RESPONSE_SIGNED), HIP_MAC and HIP_SIGNATURE computed over that packet:

- authenticated: NOTIFY INVALID_SYNTAX (7, no data), signed by the
  gateway's HI from R1; no R2, no SA, the I2 counted as malformed;
- the same I2 with a wrong HIP_MAC: NOTIFY HIP_MAC_FAILED (28), counted as
  mac; with a wrong HIP_SIGNATURE: NOTIFY AUTHENTICATION_FAILED (24),
  counted as sig; never INVALID_SYNTAX. hipgw sends at most 16 NOTIFYs a
  second (HIP_NOTIFY_BURST); the 12 here stay within that, so each of these
  I2s gets exactly one whatever the timing;
- with a wrong puzzle solution: no answer (counted as puzzle); the gateway
  answers in order, so the answer that comes next is the R2 of
- the correct I2 (same solution, the R1 generation still valid: RFC 7401
  6.9 step 2): R2 (HIP_MAC_2 and HIP_SIGNATURE checked), one bex_ok and the
  SA pair with the SPIs both ESP_INFOs gave.
Telemetry after the refused I2s, and --stats-json at exit, give the
counters. Once with HIP_CIPHER NULL (HOST_ID in clear), once AES-128-CBC
(ENCRYPTED). Behaviour only: no timing is asserted."""

import json
import os

import pytest

import gwlib
import hipinit
from hipinit import INVALID_SYNTAX, HIP_MAC_FAILED, AUTHENTICATION_FAILED, hipref

NS = f"hgi2-t{os.getpid()}"
GW_IF, INI_IF = "iwan-gw", "iwan-ini"
GW4, INI4 = "192.0.2.1", "192.0.2.2"
PEER = "ini"

# parameter -> its correct value made the wrong length, TLV framing intact
BAD = {
    "esp_info_14": {hipref.ESP_INFO: lambda v: v + b"\x00\x00"},
    "transport_format_list_3": {hipref.TRANSPORT_FORMAT_LIST: lambda v: v + b"\x00"},
    "esp_transform_5": {hipref.ESP_TRANSFORM: lambda v: v + b"\x00"},
    "echo_response_signed_0": {hipref.ECHO_RESPONSE_SIGNED: lambda v: b""},
}
# how the I2 is authenticated -> the NOTIFY it must get
AUTH = {"ok": INVALID_SYNTAX, "bad_mac": HIP_MAC_FAILED, "bad_sig": AUTHENTICATION_FAILED}
CIPHERS = {"null": hipinit.CIPHER_NULL, "aes128-cbc": hipinit.CIPHER_AES128_CBC}


@pytest.fixture
def netns():
    with hipinit.responder_netns(NS, GW_IF, INI_IF, INI4) as nss:
        yield nss


def wrong_j(ini, r1, j):
    """The first #J after j that does not solve R1 r1's puzzle."""
    n = int.from_bytes(j, "big")
    while True:
        n = (n + 1) % (1 << 8 * r1.rl)
        x = n.to_bytes(r1.rl, "big")
        if not hipref.puzzle_ok(r1.suite, r1.k, r1.i, ini.hit, r1.hit, x):
            return x


def exchange(net, ini, r_hit, cipher, prefix):
    """I1, R1, the refused I2s, the correct one. Returns (bex, ESP_INFO of
    the R2, telemetry /hipgw/stats after the refused I2s)."""
    net.send(ini.i1(r_hit))
    r1 = ini.take_r1(hipinit.answer(net, "I1"), r_hit)
    assert CIPHERS[cipher] in r1.ciphers, r1.ciphers
    bex = ini.plan(r1, cipher=CIPHERS[cipher])

    got = {}
    for name, change in BAD.items():
        for auth in AUTH:
            net.send(ini.i2(bex, change=change, mac_ok=auth != "bad_mac", sig_ok=auth != "bad_sig"))
            pkt = hipinit.answer(net, f"I2 {name} {auth}")
            assert pkt[2] == hipref.NOTIFY, f"I2 {name} {auth}: packet type {pkt[2]}, not NOTIFY"
            got[name, auth] = ini.take_notify(r1, pkt)
    assert got == {(n, a): (t, b"") for n in BAD for a, t in AUTH.items()}
    tel = gwlib.telemetry(prefix, "/hipgw/stats")

    # a wrong #J: dropped without an answer, so the next answer is the R2
    net.send(ini.i2(bex, change=BAD["esp_info_14"], j=wrong_j(ini, r1, bex.j)))
    net.send(ini.i2(bex))
    pkt = hipinit.answer(net, "correct I2")
    assert pkt[2] == hipref.R2, f"correct I2: packet type {pkt[2]}, not R2"
    return bex, ini.take_r2(bex, pkt), tel


@pytest.mark.parametrize("cipher", list(CIPHERS))
def test_i2_invalid_syntax(netns, tmp_path, cipher):
    gw_ns, ini_ns = netns
    rkey, r_hit = gwlib.make_hi(str(tmp_path), "gw")
    ikey, i_hit = gwlib.make_hi(str(tmp_path), "ini")
    ini = hipinit.Initiator(ikey, INI4, GW4)
    r_hit_b = hipref.pem_hit(rkey)[0]
    assert hipref.hit_str(ini.hit) == i_hit and hipref.hit_str(r_hit_b) == r_hit
    cfg, stats, logf = tmp_path / "gw.ini", tmp_path / "stats.json", tmp_path / "gw.log"
    hipinit.responder_config(cfg, rkey, PEER, i_hit, GW_IF, GW4, INI4,
                             gateway=[f"hip-ciphers = {cipher}"])
    prefix = f"hgi2t{os.getpid()}{len(cipher)}"
    net = hipinit.RawHip(ini_ns, INI4, GW4)
    gw = gwlib.start_gateway(gw_ns, prefix, cfg, stats, logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        bex, r2_esp_info, tel = exchange(net, ini, r_hit_b, cipher, prefix)
    finally:
        net.close()
        gwlib.stop_gateway(gw, prefix)
    log = gwlib.check_gateway_log(gw, logf)

    # while only refused I2s had come: no state change
    th = tel["hip"]
    n_bad = len(BAD) * len(AUTH)
    assert th["i2_rx"] == n_bad and th["r2_tx"] == 0 and th["bex_ok"] == 0, th
    assert th["peers"][PEER]["in_spi"] == 0 and th["peers"][PEER]["bex_ok"] == 0, th
    assert not [n for n in tel["sa"] if n.startswith(PEER)], tel["sa"]

    # the R2: the gateway's inbound SPI for the KEYMAT index of I2
    index, old_spi, gw_spi = r2_esp_info
    assert index == bex.index and old_spi == 0 and gw_spi != 0
    st = json.loads(stats.read_text())
    hip = st["hip"]
    assert hip["bex_ok"] == 1 and hip["bex_failed"] == 0, log
    assert (hip["i1_rx"], hip["r1_tx"], hip["i2_rx"], hip["r2_tx"]) == (1, 1, n_bad + 2, 1), hip
    assert hip["notify_tx"] == n_bad and hip["i2_dup"] == 0, hip
    want = {k: 0 for k in hip["drops"]}
    want.update(malformed=len(BAD), mac=len(BAD), sig=len(BAD), puzzle=1)
    assert hip["drops"] == want, hip["drops"]
    assert hip["peers"][PEER]["bex_ok"] == 1 and hip["peers"][PEER]["in_spi"] == gw_spi, hip
    sa = {n: s["spi"] for n, s in st["sa"].items() if n.startswith(PEER)}
    assert sa == {f"{PEER}-in": gw_spi, f"{PEER}-out": bex.spi}, st["sa"]
