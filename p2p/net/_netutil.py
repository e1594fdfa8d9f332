"""Small network helpers shared by transport and discovery (no third-party imports but ifaddr,
which python-zeroconf already depends on)."""

from __future__ import annotations

import ipaddress

__all__ = ["is_ipv4", "local_ipv4_addresses"]


def is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def local_ipv4_addresses(include_loopback: bool = False) -> list[str]:
    """IPv4 addresses of this host's interfaces (loopback excluded unless asked)."""
    try:
        import ifaddr
    except ImportError:  # pragma: no cover - zeroconf always brings ifaddr
        return ["127.0.0.1"] if include_loopback else []
    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and is_ipv4(ip.ip):
                if include_loopback or not ipaddress.IPv4Address(ip.ip).is_loopback:
                    out.append(ip.ip)
    return out
