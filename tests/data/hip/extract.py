#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Extract every HIP packet (IP protocol 139) of the cutehip capture into
cutehip-NN-<type>.bin (raw HIP packet bytes from the HIP header on, exactly as
captured) and list them in cutehip-index.txt: file, packet type, IPv4 source,
IPv4 destination (for the checksum pseudo-header), capture frame number.

Usage: tests/data/hip/extract.py [capture.pcapng]   (default: ../cutehip-bex-ecdsa384-modp3072.pcapng)
Re-running rewrites the same files byte for byte.
"""
import os
import sys

from scapy.all import IP, rdpcap  # rdpcap reads pcapng

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, '..', 'cutehip-bex-ecdsa384-modp3072.pcapng')
TYPES = {1: 'i1', 2: 'r1', 3: 'i2', 4: 'r2', 16: 'update', 17: 'notify', 18: 'close', 19: 'close_ack'}
IPPROTO_HIP = 139


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    lines = ['# cutehip HIP packets from ' + os.path.basename(src) + ', written by extract.py',
             '# file packet-type ipv4-src ipv4-dst frame(0-based)']
    n = 0
    for frame, pkt in enumerate(rdpcap(src)):
        if IP not in pkt or pkt[IP].proto != IPPROTO_HIP:
            continue
        ip = pkt[IP]
        if ip.frag != 0 or ip.flags.MF:
            sys.exit('frame %d: fragmented HIP packet, not handled' % frame)
        raw = bytes(ip.payload)
        # the IP payload length, not what scapy may have padded (Ethernet minimum)
        raw = raw[:ip.len - ip.ihl * 4]
        ptype = raw[2] & 0x7f
        name = 'cutehip-%02d-%s.bin' % (n, TYPES.get(ptype, 'type%d' % ptype))
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(raw)
        lines.append('%s %s %s %s %d' % (name, TYPES.get(ptype, str(ptype)).upper(), ip.src, ip.dst, frame))
        n += 1
    with open(os.path.join(HERE, 'cutehip-index.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('%d HIP packets' % n)


if __name__ == '__main__':
    main()
