"""When the players left at a table chose differently about a silent seat (Ann a bot, Bo
the end), neither agreement can hold: each seat signs one record a hand and never both
kinds at one point. The console offered b and e on, said "waiting for Bo" (who could not
sign the other choice) and, at b or e, "You already chose… waiting for the others": the
table in fact waited for the silent player alone, and nothing said so or how to go on.
It says now who chose what, that the table waits for the silent seat, and how to leave."""

from __future__ import annotations

from typing import Any

import pytest

from p2p.testing import Pumping, two_players_and_an_absent_third, wait_for
from p2p.transcript.agreement import END, TAKEOVER, open_kinds


def test_open_kinds_follows_one_record_per_kind_and_never_both_at_one_point() -> None:
    bot = {"seat": 2, "at": 5, "runner": 0}
    end = {"seat": 2, "at": 5}
    assert open_kinds({}, 2, 5) == {TAKEOVER, END}
    assert open_kinds({TAKEOVER: {1: bot}}, 2, 5) == {TAKEOVER}
    assert open_kinds({TAKEOVER: {1: bot}, END: {0: end}}, 2, 5) == frozenset()
    # both chose a bot: the end is closed, the bot still holds once the runner's key comes
    assert open_kinds({TAKEOVER: {0: bot, 1: bot}}, 2, 5) == {TAKEOVER}
    # a record at a point the table has passed is spent: that kind is closed for its signer
    assert open_kinds({TAKEOVER: {1: {"seat": 2, "at": 3, "runner": 0}}}, 2, 5) == {END}
    # the silent seat's own records count for nothing; one naming another seat closes
    assert open_kinds({END: {2: {"seat": 0, "at": 5}}}, 2, 5) == {TAKEOVER, END}
    assert open_kinds({END: {1: {"seat": 0, "at": 5}}}, 2, 5) == {TAKEOVER}


def test_players_who_chose_differently_are_told_the_table_waits_for_the_silent_seat(
        ) -> None:
    """Over real sockets: Cy never comes; Ann and Bo, players (no bot signs for them),
    are paused on Cy. Bo chooses a bot, Ann the end."""
    from cli_helpers import run_headless, until

    from cli.app import TableApp
    from cli.netdriver import NetDriver
    from cli.words import cannot_agree_line, no_agreement_line

    peers = two_players_and_an_absent_third(b"split/choices", ("Ann", "Bo", "Cy"))
    pumps = Pumping(peers, through_pauses=True)
    drivers = [NetDriver(p, background=True) for p in peers]
    try:
        assert wait_for(lambda: all(p.paused and p.silent_seat() == 2 for p in peers), 30), \
            [p.stopped for p in peers]
        assert drivers[0].no_agreement(False) is None
        bo = drivers[1].agree("bot")
        assert "agreed by Bo" in bo and "waiting for Ann" in bo, bo
        assert wait_for(lambda: 1 in peers[0].agreement()["side.takeover"], 10)
        # one choice made: Ann may still join it, and is told so
        assert peers[0].agreements_open() == {TAKEOVER}
        assert drivers[0].no_agreement(False) is None
        ann = drivers[0].agree("end")
        expected = no_agreement_line("Cy", ["Bo"], ["Ann"], plain=False)
        assert ann == expected, ann
        assert "waits for Cy to come back" in ann and "q to leave" in ann
        assert wait_for(lambda: 0 in peers[1].agreement()["side.end"], 10)
        for d in drivers:
            assert d.silent_words(plain=False) == expected
            assert d.silent_words(plain=True) == no_agreement_line("Cy", ["Bo"], ["Ann"],
                                                                   plain=True)
        # b or e again: not "You already chose… waiting for the others"
        again = drivers[1].agree("end", plain=True)
        assert again != cannot_agree_line() and "type quit" in again.lower(), again
        assert all(p.agreed_end is None and not p.takeovers for p in peers)

        # the full screen: b says so at once, not "b again: a bot plays…" to sign nothing
        async def script(app: TableApp, inp: Any) -> None:
            inp.send_text("b")
            await until(lambda: app.message == expected, timeout=5)
            assert app.confirm_agree is None

        run_headless(lambda inp, out: TableApp(drivers[0], input=inp, output=out, delay=0,
                                               auto=True), script)
    finally:
        pumps.stop()
        for d in drivers:
            d.close()
        for p in peers:
            p.close(flush=0.1)


@pytest.mark.parametrize("plain", [False, True])
def test_the_last_signer_is_told_the_agreement_took_effect(plain: bool) -> None:
    """Bo chose the end; Ann's e completes it at once, on her own peer: her status line
    said "agreed by Ann and Bo; waiting for nobody yet." (and nothing at all for a bot's
    seat, whose agreed records are dropped: CI of 1a90156 met it when Bo, a bot, signed
    while Ann's key was handled). It says now what was agreed, as the log says it."""
    from cli.netdriver import NetDriver
    from cli.words import agreed_end_line

    peers = two_players_and_an_absent_third(b"split/last-signer", ("Ann", "Bo", "Cy"))
    pumps = Pumping(peers, through_pauses=True)
    drivers = [NetDriver(p, background=True) for p in peers]
    try:
        assert wait_for(lambda: all(p.paused and p.silent_seat() == 2 for p in peers), 30), \
            [p.stopped for p in peers]
        bo = drivers[1].agree("end")
        assert "agreed by Bo" in bo and "waiting for Ann" in bo, bo
        assert wait_for(lambda: 1 in peers[0].agreement()["side.end"], 10)
        ann = drivers[0].agree("end", plain=plain)
        end = peers[0].agreed_end
        assert end is not None and end.seat == 2
        said = agreed_end_line("Cy", end.hand + 1, ["Ann", "Bo"])
        # the line mode says it once, as the event it is (the review: said twice there)
        assert ann == ("" if plain else said), ann
        assert drivers[0].events.count(said) == 1, drivers[0].events
    finally:
        pumps.stop()
        for d in drivers:
            d.close()
        for p in peers:
            p.close(flush=0.1)


def test_a_seat_taken_over_before_is_not_said_agreed_again() -> None:
    """A seat a bot took over once, silent again: while the second agreement waits, b
    was answered with the first takeover's "Agreed: … played by a bot" (the review)."""
    from types import SimpleNamespace

    from test_newcomer_twentysixth import _TableOfThree

    d = _TableOfThree({0: "quit"})
    d.peer.takeovers = [SimpleNamespace(seat=0, runner=2, hand=0)]
    d.peer.agreement = lambda: {"side.takeover": {2: {"seat": 0}}}
    said = d.agree("bot")
    assert d.signed == ["bot"]
    assert not said.startswith("Agreed:") and "waiting for" in said, said


def test_an_agreed_end_reads_right_in_french_for_one_signer_or_several() -> None:
    """"Ann et Bo a mis fin à la partie…": the verb agreed with one signer only (an
    agreed end has as many signers as seats left, two at three seats; the review)."""
    from cli import i18n
    from cli.words import agreed_end_line

    with i18n.using("fr"):
        one = agreed_end_line("Cy", 2, ["Ann"])
        two = agreed_end_line("Cy", 2, ["Ann", "Bo"])
    assert two == "Partie terminée à la manche 2 par Ann et Bo, pour qui Cy avait quitté " \
        "la table.", two
    assert one.startswith("Partie terminée à la manche 2 par Ann, pour qui Cy"), one
