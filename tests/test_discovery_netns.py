"""Discovery between two network namespaces ("hosts") joined by a veth pair: what a
record announced by another machine can make a browser list.

Needs root and iproute2 (skipped otherwise, see test_netns); only addresses inside the
namespaces made here (10.214.x.x) are used, and they are deleted in a ``finally``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from test_netns import _REASON, TAG, finish, make_ns, ns_python, veth

pytestmark = [pytest.mark.root] + ([pytest.mark.skip(reason=_REASON)] if _REASON else [])

FORGE = """
    import socket, sys, time
    from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
    from zeroconf.const import (_CLASS_IN, _CLASS_IN_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE,
                                _TYPE_A, _TYPE_PTR, _TYPE_SRV, _TYPE_TXT)
    from p2p.net.discovery import SERVICE_TYPE as ST, make_zeroconf
    ip, secs = sys.argv[1], float(sys.argv[2])

    def txt(**kv):
        return b"".join(bytes([len(e)]) + e for e in (f"{k}={v}".encode() for k, v in kv.items()))

    def table(name, addrs):
        inst, server = f"{name}.{ST}", f"{name}.local."
        return [DNSPointer(ST, _TYPE_PTR, _CLASS_IN, 120, inst),
                DNSService(inst, _TYPE_SRV, _CLASS_IN_UNIQUE, 120, 0, 0, 4321, server),
                DNSText(inst, _TYPE_TXT, _CLASS_IN_UNIQUE, 120, txt(v=1, name=name)),
                *[DNSAddress(server, _TYPE_A, _CLASS_IN_UNIQUE, 120, socket.inet_aton(a))
                  for a in addrs]]

    zc = make_zeroconf([ip])
    records = (table("Loop", ["127.0.0.1"])
               + table("Mixed", ["127.0.0.1", "169.254.169.254", ip]))
    end = time.monotonic() + secs
    while time.monotonic() < end:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for r in records:
            out.add_answer_at_time(r, 0)
        zc.send(out)
        time.sleep(0.5)
    zc.close()
"""

BROWSE = """
    import json, sys
    from p2p.net.discovery import browse_tables
    ip, secs = sys.argv[1], float(sys.argv[2])
    with browse_tables(interfaces=[ip]) as b:
        b.wait_for(lambda s: any(t.name == "Mixed" for t in s), secs)
        b.wait_for(lambda s: any(t.name == "Loop" for t in s), 1.0)
        print(json.dumps({t.name: list(t.addresses) for t in b.snapshot()
                          if t.name in ("Loop", "Mixed")}))
"""



def test_a_record_from_another_host_never_points_at_the_browsers_loopback(
        namespaces: list[str], tmp_path: Path) -> None:
    """A record announced by another machine with 127.0.0.1 (or 169.254.169.254) sent
    `lobby`/`join --table` to the joiner's own host: those addresses are dropped, and a
    record left with none is not listed."""
    a = make_ns(namespaces, f"mdA{TAG}")
    b = make_ns(namespaces, f"mdB{TAG}")
    veth(a, f"mda{TAG}", "10.214.1.1/24", b, f"mdb{TAG}", "10.214.1.2/24")
    forge, browse = tmp_path / "forge.py", tmp_path / "browse.py"
    forge.write_text(textwrap.dedent(FORGE))
    browse.write_text(textwrap.dedent(BROWSE))
    forger = ns_python(a, forge, "10.214.1.1", "15")
    try:
        found = json.loads(finish(ns_python(b, browse, "10.214.1.2", "8")))
    finally:
        forger.kill()
        forger.communicate()
    assert found == {"Mixed": ["10.214.1.1"]}
