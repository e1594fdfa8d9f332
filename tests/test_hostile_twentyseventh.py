"""Hostile pass 27: the lobby, a hostile host against honest joiners (real ZeroMQ on
127.0.0.1). Each test failed before its fix.

* A host that started without one of its ready joiners, a key of its own in that seat
  (the left-out joiner was told "the table started without you"), started the others
  with a player the lobby never showed them: a joiner checked its own seat, name and
  share, the rules and the limits, never who the others were. A start now seats exactly
  the players the host's last state showed, each ready, seat for seat.
* A host's state listing the joiner's own key at two seats, or the host's seat free or
  someone else's, was shown as it came (a table no start could match) and waited on
  without limit. Such a state is now the host's invalid message, said in words.
* A hostile joiner (or a stranger) that sat down and never said ready held the table
  without limit, and the host's console had no way to send it away (``LobbyHost.kick``
  existed, nothing called it): the host could only close the table. ``kick N`` does.

Probed and found holding (no change): a seated joiner's sit / ready / leave / join-again
at the change budget's edge unreadies only itself (the table starts in the pump that
sees everyone ready, so a ready-unready dance cannot hold it; one who never readies is
the host's to kick, below; a new key can sit again, a known limit); a joiner cannot make the seats a table the host refuses to start
(which would unready everyone): names are numbered, keys and transport keys checked at
the join.
"""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from cli_helpers import free_port
from test_lobby import _drive

from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.lobby import (
    PROTOCOL_VERSION,
    LobbyClient,
    LobbyError,
    LobbyHost,
    SeatInfo,
    _sign,
    own_addresses,
)
from p2p.table.session import node_id_for


def _outcome(clients: list[LobbyClient], rounds: int = 300) -> list[Any]:
    """Each client's start or LobbyError, pumping until every one has one."""
    res: list[Any] = [None] * len(clients)
    for _ in range(rounds):
        for i, c in enumerate(clients):
            if res[i] is None:
                try:
                    res[i] = c.pump(0.01)
                except LobbyError as exc:
                    res[i] = exc
        if all(r is not None for r in res):
            break
    return res


class _SwappingHost(LobbyHost):
    """Starts with a key of its own in seat 2, the ready joiner there left out, and
    shows nobody that seat before the start."""

    puppet: Identity
    puppet_endpoint: str

    def _start(self):  # type: ignore[no-untyped-def]
        left_out = self.state.seats[2]
        assert left_out is not None
        contrib = os.urandom(16)
        join = {"k": "join", "name": left_out.name, "v": PROTOCOL_VERSION,
                "contrib": contrib, "endpoint": self.puppet_endpoint,
                "addrs": own_addresses(self.puppet_endpoint),
                "key": self.puppet.public_key, "lobby": self.lobby_id}
        self.state.seats[2] = SeatInfo(left_out.name, self.puppet.public_key, True, False,
                                       self.puppet_endpoint, contrib, None,
                                       _sign(self.puppet, join))
        return super()._start()


def test_a_host_that_starts_without_a_ready_joiner_starts_the_others_with_nobody() -> None:
    ids = [Identity.generate() for _ in range(4)]
    nodes = [Node(node_id_for(i.public_key), bind="127.0.0.1") for i in ids]
    try:
        host = _SwappingHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        host.puppet, host.puppet_endpoint = ids[3], nodes[3].endpoint
        port = nodes[0].port
        ben = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{port}", seat=1)
        cy = LobbyClient(ids[2], "Cy", nodes[2], f"127.0.0.1:{port}", seat=2)
        _drive(host, [ben, cy], until="seated")
        assert (ben.seat, cy.seat) == (1, 2)
        ben.set_ready(True)
        cy.set_ready(True)
        host.set_ready(True)
        hs = None
        for _ in range(300):
            hs = hs or host.pump(0.01)
            if hs is not None:
                break
            _outcome([ben, cy], rounds=1)
        assert hs is not None and hs.cfg.players[2].key == ids[3].public_key
        got_ben, got_cy = _outcome([ben, cy])
        # the one left out is told so, in the host's words; the other plays with nobody
        # the lobby did not show
        assert isinstance(got_cy, LobbyError) and got_cy.why == "started-without-you"
        assert isinstance(got_ben, LobbyError), got_ben
        assert got_ben.why == "bad-start" and "seat 2" in str(got_ben)
        assert "host" in str(got_ben) and ben.start is None
    finally:
        for n in nodes:
            n.close()


class _OddStateHost(LobbyHost):
    """Its state lists the seats as ``mode`` says (the joiner sits at seat 1)."""

    mode = ""

    def _broadcast_state(self) -> None:
        obj = self.state.to_obj()
        seats = obj["seats"]
        if seats[1] is not None:
            ben = dict(seats[1], ready=True)
            obj["seats"] = {"twice": [seats[0], ben, ben],
                            "host-seat-free": [None, ben, None],
                            "host-elsewhere": [ben, seats[0], None],
                            "host-twice": [seats[0], ben, seats[0]]}[self.mode]
        for nid in self._targets():
            self._send(nid, {"k": "state", "state": obj})


@pytest.mark.parametrize("mode,said", [("twice", "seat 1's key sits at another seat too"),
                                       ("host-seat-free", "seat 0 is not the host's"),
                                       ("host-elsewhere", "seat 0 is not the host's"),
                                       ("host-twice", "seat 0's key sits at another seat")])
def test_a_hosts_state_seating_a_key_twice_or_not_itself_at_seat_0_is_said(
        mode: str, said: str) -> None:
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key), bind="127.0.0.1") for i in ids]
    try:
        host = _OddStateHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        host.mode = mode
        ben = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}", seat=1)
        err: LobbyError | None = None
        for _ in range(300):
            host.pump(0.01)
            try:
                ben.pump(0.01)
            except LobbyError as exc:
                err = exc
                break
        assert err is not None, ben.state
        assert err.why == "invalid-message" and said in str(err), str(err)
        assert str(err).startswith("the host sent an invalid message")
    finally:
        for n in nodes:
            n.close()


def test_the_hosts_console_sends_away_a_joiner_who_sits_and_never_gets_ready(
        tmp_path: Path) -> None:
    """A hostile joiner (or a stranger) sits down and never says ready: the table waits
    for it without limit, and the host's console had no command to send it away (only
    `LobbyHost.kick`, which nothing called): the host could only close the table. `kick
    N` now asks that joiner to leave, its key turned away for this lobby."""
    from test_lobby import _ns

    from cli import host as host_verb

    port = free_port()
    args = _ns(name="Ann", bots=0, players=2, rules="classic", option=[], teams=None,
               bind="127.0.0.1", port=port, no_announce=True, data_dir=str(tmp_path / "h"),
               identity=str(tmp_path / "h.key"), auto=False, peer=[], not_ready=True)
    r, w = os.pipe()
    out = io.StringIO()
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(host_verb.run(
        args, out=out, inp=os.fdopen(r, "r"))), daemon=True)
    thread.start()
    eve = Identity.generate()
    curve = eve.curve_keys() if zmq.has("curve") else None
    node = Node(node_id_for(eve.public_key), bind="127.0.0.1", curve=curve)
    typed = os.fdopen(w, "w")
    try:
        c = LobbyClient(eve, "Eve", node, f"127.0.0.1:{port}")
        end = time.monotonic() + 15
        while c.seat is None and time.monotonic() < end:
            c.pump(0.05)
        assert c.seat == 1
        typed.write("kick 0\nkick 7\nkick\n")    # the host's own seat, no seat, no number
        typed.flush()
        time.sleep(0.5)
        c.pump(0.05)
        assert c.refused is None
        typed.write("kick 1\n")
        typed.flush()
        with pytest.raises(LobbyError) as sent:
            while time.monotonic() < end + 10:
                c.pump(0.05)
        assert sent.value.why == "asked-to-leave"
        typed.write("quit\n")
        typed.flush()
        thread.join(10)
        said = " ".join(out.getvalue().split())
        assert done == [1], said[-800:]
        assert said.count("Type 'kick N' with the seat number N of a player who joined") == 3
        assert "Eve was asked to leave seat 1; their key cannot join this table again." \
            in said, said[-800:]
        assert "seat 1: free" in said.rsplit("Eve was asked", 1)[0].rsplit("Eve [", 1)[1]
    finally:
        typed.close()
        node.close()


def test_a_player_sent_away_who_joins_again_is_told_at_once() -> None:
    """A kicked player's key is turned away for the lobby; its join again was ignored in
    silence, and the player read after 15 s "no table answered ... is the table still
    open?" (the review of pass 27). The host says again that it asked them to leave."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    again_node = Node(node_id_for(ids[1].public_key))
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3), "t")
        ben = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        _drive(host, [ben], until="seated")
        assert ben.seat is not None
        host.kick(ben.seat)
        assert isinstance(_outcome([ben])[0], LobbyError)
        nodes[1].close()
        again = LobbyClient(ids[1], "Ben", again_node, f"127.0.0.1:{nodes[0].port}")
        t0 = time.monotonic()
        got: list[Any] = [None]
        while got[0] is None and time.monotonic() - t0 < 20:
            host.pump(0.01)
            got = _outcome([again], rounds=1)
        assert isinstance(got[0], LobbyError), got
        assert "asked you to leave" in str(got[0]), got[0]
        assert time.monotonic() - t0 < 5
    finally:
        for n in (*nodes, again_node):
            n.close()
