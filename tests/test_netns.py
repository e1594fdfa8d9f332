"""Discovery and transport across network namespaces ("hosts") joined by veth pairs.

Needs root and iproute2; skipped otherwise.  Only addresses inside the
namespaces created here (10.213.x.x) are used, and the namespaces are deleted
in a ``finally``.

* same link: a table announced in one namespace is discovered in the other;
* routed link (A — router — B, like a VPN): link-local multicast is never
  forwarded, so discovery sees nothing, yet a direct connection by address
  (``--peer HOST:PORT``) works, and the host learns the joiner's endpoint from
  its HELLO.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.root

ROOT = Path(__file__).resolve().parent.parent
TAG = f"{os.getpid() % 100000}"


def _why_not() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root"
    if shutil.which("ip") is None:
        return "iproute2 'ip' not found"
    probe = f"mbprobe{TAG}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"ip netns unavailable: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


_REASON = _why_not()
if _REASON is not None:
    pytestmark = [pytest.mark.root, pytest.mark.skip(reason=_REASON)]


def sh(*args: str) -> None:
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")


def ns_python(ns: str, script: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, str(script), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def finish(p: subprocess.Popen[str], timeout: float = 30) -> str:
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    assert p.returncode == 0, f"rc={p.returncode}\n{out}\n{err}"
    return out


def finish_now(p: subprocess.Popen[str]) -> str:
    """Tell a script waiting on stdin to stop, then collect it."""
    assert p.stdin is not None
    p.stdin.write("stop\n")
    p.stdin.flush()
    return finish(p)


def veth(ns1: str, if1: str, ip1: str, ns2: str, if2: str, ip2: str) -> None:
    sh("ip", "link", "add", if1, "type", "veth", "peer", "name", if2)
    for ns, ifn, ip in ((ns1, if1, ip1), (ns2, if2, ip2)):
        sh("ip", "link", "set", ifn, "netns", ns)
        sh("ip", "-n", ns, "addr", "add", ip, "dev", ifn)
        sh("ip", "-n", ns, "link", "set", ifn, "up")



def make_ns(made: list[str], name: str) -> str:
    sh("ip", "netns", "add", name)
    made.append(name)
    sh("ip", "-n", name, "link", "set", "lo", "up")
    return name


SCRIPTS = {
    "announce.py": """
        import sys, select
        from p2p.net.discovery import announce_table
        ip, name, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
        a = announce_table(name=name, rules="classic", seats_taken=1, seats_free=3,
                           fingerprint="ab" * 8, port=4321, interfaces=[ip])
        print("announced", flush=True)
        select.select([sys.stdin], [], [], secs)  # until told to stop (or secs)
        a.close()
    """,
    "browse.py": """
        import sys, json
        from p2p.net.discovery import browse_tables
        ip, name, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
        with browse_tables(interfaces=[ip]) as b:
            snap = b.wait_for(lambda s: any(t.name == name for t in s), secs) or []
            print(json.dumps([t.endpoint for t in snap if t.name == name]))
    """,
    "echo_server.py": """
        import sys, time
        from p2p.net.transport import Node
        from p2p.net.interface import PeerEventKind
        with Node(b"SRV", bind=sys.argv[1]) as n:
            print(n.endpoint, flush=True)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                for e in n.events():
                    if e.kind is PeerEventKind.HELLO and e.endpoint:
                        n.add_peer(e.peer_id, e.endpoint)
                m = n.recv(0.05)
                if m is not None:
                    n.send(m[0], b"pong:" + m[1])
                    assert n.flush(10)
                    print("echoed", m[0].decode(), flush=True)
                    break
    """,
    "client.py": """
        import sys
        from p2p.net.transport import Node
        from p2p.net.interface import PeerStatus
        with Node(b"CLI", bind=sys.argv[1]) as n:
            n.add_peer(b"SRV", sys.argv[2])
            n.send(b"SRV", b"ping")
            m = n.recv(15)
            print(m[1].decode() if m else "timeout", n.peer_status(b"SRV").value, flush=True)
    """,
}


@pytest.fixture
def scripts(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, body in SCRIPTS.items():
        p = tmp_path / name
        p.write_text(textwrap.dedent(body))
        out[name] = p
    return out


def test_discovery_across_hosts(namespaces: list[str], scripts: dict[str, Path]) -> None:
    a = make_ns(namespaces, f"mbA{TAG}")
    b = make_ns(namespaces, f"mbB{TAG}")
    veth(a, f"mba{TAG}", "10.213.1.1/24", b, f"mbb{TAG}", "10.213.1.2/24")
    ann = ns_python(a, scripts["announce.py"], "10.213.1.1", "Table across", "20")
    assert ann.stdout is not None and ann.stdout.readline().strip() == "announced"
    found = json.loads(
        finish(ns_python(b, scripts["browse.py"], "10.213.1.2", "Table across", "8"))
    )
    assert found == ["tcp://10.213.1.1:4321"]
    finish_now(ann)


@pytest.mark.slow    # 7 s: a routed namespace pair (the default run's 10-minute budget)
def test_routed_no_multicast_direct_peer_works(
    namespaces: list[str], scripts: dict[str, Path]
) -> None:
    a = make_ns(namespaces, f"mbA{TAG}")
    r = make_ns(namespaces, f"mbR{TAG}")
    b = make_ns(namespaces, f"mbB{TAG}")
    veth(a, f"mba{TAG}", "10.213.1.2/24", r, f"mbra{TAG}", "10.213.1.1/24")
    veth(b, f"mbb{TAG}", "10.213.2.2/24", r, f"mbrb{TAG}", "10.213.2.1/24")
    sh("ip", "netns", "exec", r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
    sh("ip", "-n", a, "route", "add", "default", "via", "10.213.1.1")
    sh("ip", "-n", b, "route", "add", "default", "via", "10.213.2.1")
    # Belt and braces, like a typical tun VPN: no multicast on the hosts' links.
    sh("ip", "-n", a, "link", "set", f"mba{TAG}", "multicast", "off")
    sh("ip", "-n", b, "link", "set", f"mbb{TAG}", "multicast", "off")

    # (1) discovery cannot see across the router
    ann = ns_python(a, scripts["announce.py"], "10.213.1.2", "Behind VPN", "20")
    assert ann.stdout is not None and ann.stdout.readline().strip() == "announced"
    found = json.loads(finish(ns_python(b, scripts["browse.py"], "10.213.2.2", "Behind VPN", "3")))
    assert found == []
    finish_now(ann)

    # (2) a direct connection by address works in both directions
    srv = ns_python(a, scripts["echo_server.py"], "10.213.1.2")
    assert srv.stdout is not None
    endpoint = srv.stdout.readline().strip()
    assert endpoint.startswith("tcp://10.213.1.2:")
    out = finish(ns_python(b, scripts["client.py"], "10.213.2.2", endpoint))
    assert out.split() == ["pong:ping", "connected"]
    assert "echoed CLI" in finish(srv)
