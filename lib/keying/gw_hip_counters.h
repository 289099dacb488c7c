/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP counters, one list for both outputs: the "hip" object of the
 * --stats-json file and of telemetry /hipgw/stats, /hipgw/hip and
 * /hipgw/hip_peer (gw_hip_stats.c walks the lists into either sink).
 * Each entry is X(name as emitted, field, one-line doc); the doc is the
 * "counts" column of docs/counters.md's table for that list
 * (tests/unit/test_hip_counters.c checks table and list against each other).
 * Plain macros: the fields are those of struct gw_hip_snap (gw_hip_stats.c)
 * and struct gw_peer (gw_hip_internal.h).
 */
#ifndef HIPGW_GW_HIP_COUNTERS_H
#define HIPGW_GW_HIP_COUNTERS_H

/* Engine-wide, flat in the hip object: struct hip_host_stats (lib/hip, in
 * e.) and the per-lcore unknown SPI totals (struct gw_lcore_stats). The last
 * three are drops again, flat, as telemetry had them before "drops". */
#define GW_HIP_COUNTERS(X) \
	X("puzzle_k", e.puzzle_k, "puzzle difficulty K of the R1s sent now (raised under I1 load)") \
	X("r1_rate", e.r1_rate, "R1 rate limit in force, R1/s; 0 = none (`r1-rate`)") \
	X("rx", e.rx, "HIP packets received") \
	X("tx", e.tx, "HIP packets sent") \
	X("dropped", e.dropped, "HIP packets dropped, each also counted in one of `drops`") \
	X("bex_ok", e.bex_ok, "Base Exchanges completed") \
	X("bex_failed", e.bex_failed, "Base Exchanges given up") \
	X("updates", e.updates, "UPDATE rekeys completed") \
	X("i1_rx", e.i1_rx, "I1s received (as responder)") \
	X("r1_tx", e.r1_tx, "R1s sent") \
	X("i2_rx", e.i2_rx, "I2s received") \
	X("r2_tx", e.r2_tx, "R2s sent") \
	X("retransmits", e.retransmits, "I1, I2, UPDATE and CLOSE packets sent again on timeout") \
	X("i2_dup", e.i2_dup, "duplicate I2s answered with the stored R2") \
	X("notify_tx", e.notify_tx, "NOTIFY packets sent") \
	X("notify_rx", e.notify_rx, "NOTIFY packets received") \
	X("nat_udp_rx", e.nat_udp_rx, "HIP packets received over UDP (RFC 5770)") \
	X("nat_udp_tx", e.nat_udp_tx, "HIP packets sent over UDP") \
	X("nat_switch", e.nat_switch, "Base Exchanges that went over UDP after unanswered plain I1s (`nat = auto`)") \
	X("nat_keepalive_tx", e.nat_keepalive_tx, "NAT keepalives sent (NOTIFY NAT_KEEPALIVE, RFC 9028 4.10)") \
	X("nat_keepalive_rx", e.nat_keepalive_rx, "NAT keepalives received and verified") \
	X("nat_rebinds", nat_rebinds, "NAT rebindings: a peer over UDP moved to the new address or port its authenticated ESP came from") \
	X("nat_rebind_stale", nat_rebind_stale, "rebinding events that moved nothing: the SA gone, or the path there already") \
	X("unknown_spi_bex", unknown_spi_bex, \
	  "Base Exchanges started by ESP for an unknown SPI from a peer's locator") \
	X("unknown_spi_ratelimit", unknown_spi_ratelimit, \
	  "such ESP packets over the rate limits (one per peer per second, 16 a second)") \
	X("unknown_spi_ignored", unknown_spi_ignored, \
	  "such ESP packets with nothing to start: an SA with the peer exists, or a BEX runs") \
	X("unknown_peer", e.drop_unknown_peer, "the same count as `drops.unknown_peer`") \
	X("r1_ratelimit", e.drop_r1_ratelimit, "the same count as `drops.r1_ratelimit`") \
	X("critical", e.drop_critical, "the same count as `drops.critical`") \
	X("loc_tx", e.loc_tx, "UPDATEs with our LOCATOR_SET sent (RFC 8046; resends not counted)") \
	X("loc_rx", e.loc_rx, "peers' LOCATOR_SETs taken (authenticated, new SEQ)") \
	X("rr_tx", e.rr_tx, "return-routability checks of a peer's locator started (ECHO_REQUEST_SIGNED)") \
	X("rr_ok", e.rr_ok, "peer locators verified: the right echo came from that locator") \
	X("rr_failed", e.rr_failed, "checks whose retransmissions ran out") \
	X("echo_answered", e.echo_answered, "a peer's ECHO_REQUEST_SIGNED answered") \
	X("path_changes", e.path_changes, "outbound SAs moved to new outer addresses (all peers)") \
	X("locator_changes", locator_changes, "our address changes given to the engine as our locator")

/* Engine-wide, why HIP packets were dropped: the hip object's "drops". */
#define GW_HIP_DROPS(X) \
	X("malformed", e.drop_malformed, "header, TLV layout, missing or bad parameter") \
	X("checksum", e.drop_checksum, "HIP checksum wrong") \
	X("unknown_peer", e.drop_unknown_peer, "sender HIT not a `[peer]`'s") \
	X("not_for_us", e.drop_not_for_us, "receiver HIT not ours") \
	X("state", e.drop_state, "unexpected in the association's state") \
	X("critical", e.drop_critical, "unknown critical parameter") \
	X("puzzle", e.drop_puzzle, "wrong or stale puzzle solution in an I2") \
	X("r1_gen", e.drop_r1_gen, "I2 for an R1 generation no longer valid") \
	X("r1_ratelimit", e.drop_r1_ratelimit, "I1 not answered: over `r1-rate`") \
	X("policy", e.drop_policy, "DH group, cipher, transform or suite refused") \
	X("nat_mode", e.drop_nat_mode, "I2 over UDP whose NAT_TRAVERSAL_MODE picks a mode we did not offer") \
	X("hit_mismatch", e.drop_hit_mismatch, "HOST_ID does not hash to the sender's HIT") \
	X("mac", e.drop_mac, "HIP_MAC or HIP_MAC_2 did not verify") \
	X("sig", e.drop_sig, "signature did not verify") \
	X("replay", e.drop_replay, "old UPDATE, CLOSE_ACK echo mismatch") \
	X("internal", e.drop_internal, "our own failure: SPI, memory, crypto") \
	X("locator", e.drop_locator, "LOCATOR_SET malformed: overrun, no locator, no SEQ") \
	X("locator_many", e.drop_locator_many, "LOCATOR_SET with more than HIP_LOCATOR_SET_MAX (4) locators") \
	X("locator_type", e.drop_locator_type, "LOCATOR_SET without a locator we can use (NOTIFY 46 sent)") \
	X("echo", e.drop_echo, "ECHO_RESPONSE_SIGNED missing or not our nonce") \
	X("echo_addr", e.drop_echo_addr, "echo response not from the locator checked") \
	X("update_dup", e.drop_update_dup, "a duplicate UPDATE answered HIP_UPDATE_DUP_ANSWERS (7) times already")

/* Per peer (struct gw_peer), hip.peers.NAME and /hipgw/hip_peer,NAME. */
#define GW_HIP_PEER_COUNTERS(X) \
	X("bex_ok", bex_ok, "Base Exchanges with it completed") \
	X("bex_failed", bex_failed, "Base Exchanges with it given up") \
	X("rekeys", rekeys, "SA pairs replaced by a rekey") \
	X("in_spi", in_spi, "SPI of the current in SA; 0 = none") \
	X("hit_echo_tx", hit_echo_tx, "ICMPv6 echo requests sent to its HIT (BEET)") \
	X("hit_echo_rx", hit_echo_rx, "echo replies received from its HIT") \
	X("hit_echo_answered", hit_echo_answered, "its echo requests to our HIT answered") \
	X("unknown_spi_bex", unknown_spi_bex, \
	  "Base Exchanges with it started by ESP for an unknown SPI") \
	X("staged", staged_total, \
	  "packets and bridge frames to it held while it had no out SA (or, the responder, in R2-SENT)") \
	X("stage_full", stage_full, "those dropped (`no_sa`): its staging was full") \
	X("nat_rebinds", nat_rebinds, "its path moved to a new NAT mapping (RFC 5770)") \
	X("path_moves", path_moves, "its out SA moved to new outer addresses (RFC 8046)")

/* Per peer, the last Base Exchange's steps (struct hip_bex_times, ns):
 * X(name, field, log name, doc). The file writes them as "bex_ms": {NAME:
 * ms with 3 decimals, null when not timed}, telemetry (integers only) as
 * NAME_us: us, 0 when not timed. */
#define GW_HIP_BEX_STEPS(X) \
	X("i1_to_r1", i1_to_r1, "I1->R1", "I1 in to R1 out (responder)") \
	X("r1_to_i2", r1_to_i2, "R1->I2", "R1 in to I2 out: puzzle, DH, signature (initiator)") \
	X("i2_to_r2", i2_to_r2, "I2->R2", "I2 in to R2 out (responder)") \
	X("r2_to_esp", r2_to_esp, "R2->ESP", "R2 in to the first ESP packet out (initiator)") \
	X("tbe", tbe, "Tbe", "I1 out to the first ESP packet out (initiator)")

#endif
