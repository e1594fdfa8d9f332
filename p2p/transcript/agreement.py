"""Agreements of the remaining seats when one seat falls silent (issues 9 and 11), sans IO.

When a seat S is silent (its player left, or a step of its passed the time limit), every
other seat may sign one of two side entries for the hand H being played:

* ``side.takeover`` ``{hand: H, seat: S, runner: R}``: "from hand H+1, a bot plays seat
  S, run by seat R". The runner is the lowest seat other than S (:func:`runner_for`), so
  every proposal names the same one. The runner's own record also carries the bot's new
  Ed25519 public ``key`` (a fresh identity it generated), the ``endpoint`` where the bot
  listens, and, at a table on CURVE, the bot's transport key with its certificate
  (``curve``: ``[public, certificate]``). The other seats' records carry none of these:
  they agree to *who* runs the bot, the runner vouches for the bot itself (it sees the
  bot's cards anyway).
* ``side.end`` ``{hand: H, seat: S}``: "the match ends here, in hand H, after S left".

Each record also names ``at``: how many entries of hand H its signer had applied when it
saw S silent (the *point*). An agreement holds once *every* seat but S signed the same
``(hand, seat[, runner], at)`` (and, for a takeover, the runner's record has the bot's
key). Hand H then ends without a score from that point on (void: the silent seat's hand
key is needed to finish it; entries of H after the point are no part of the match); for
a takeover, hand H+1 is dealt with S's key replaced by the bot's key. Records naming
different points never make an agreement: so a silent seat that sends its late entry to
one peer alone, after the first signature, cannot have one peer score the hand (it
applied the entry) while another voids it (it signed before the entry came): the peer
that applied it never signs the point the others signed (see
:class:`p2p.table.replicated_log.ReplicatedLog`, which holds back the entries of H past
its own point while its record is pending). A record without ``at`` (written by a
release before the point existed) is still read: its point is "unnamed", equal only to
another unnamed one, so old transcripts keep their agreements. The verdict is a function of the set of
valid records, never of their arrival order: each seat signs at most one record of each
kind per hand (the first one counts; a second is a duplicate nobody honest writes), and
when both agreements hold for one hand the end wins.

Each record is checked on its own against a strict schema (:func:`body_problem`); a record
that breaks it, names the wrong runner or is signed by the silent seat itself changes
nothing (the live peer drops it; nobody is blamed: it is not a game entry).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2p.crypto.identity import verify_curve_certificate
from p2p.net.interface import parse_endpoint
from p2p.transcript.decoding import DecodeError, check_map, is_bytes, is_int, is_list, is_str
from p2p.transcript.envelope import Envelope

__all__ = ["TAKEOVER", "END", "Takeover", "MatchEnd", "Agreements", "runner_for",
           "body_problem", "keys_at", "seat_of_keys", "agreements_of", "signed_records", "point_of",
           "MAX_POINT", "open_kinds"]

TAKEOVER = "side.takeover"
END = "side.end"
MAX_ENDPOINT = 200
#: a bound on agreements of one table (each needs every remaining seat's signature)
MAX_HANDS = 400
#: a bound on a record's point (entries of one hand; a hand has a few hundred)
MAX_POINT = 1 << 20


def point_of(body: Mapping[str, Any]) -> int | None:
    """The point a checked record names: entries of its hand applied by its signer
    (None: a record of an older release, which names none)."""
    at = body.get("at")
    return None if at is None else int(at)


def runner_for(seat: int, n: int) -> int:
    """The seat that runs the bot taking over ``seat``: the lowest other seat."""
    return 1 if seat == 0 and n > 1 else 0


@dataclass(frozen=True)
class Takeover:
    """An agreed takeover: from ``hand + 1`` seat ``seat`` signs with ``key``."""

    hand: int
    seat: int
    runner: int
    key: bytes
    endpoint: str
    curve: tuple[bytes, bytes] | None
    signers: tuple[int, ...]
    #: entries of ``hand`` that are part of the match (None: an older record, no point)
    at: int | None = None


@dataclass(frozen=True)
class MatchEnd:
    """The match ended by agreement in ``hand`` after ``seat`` left."""

    hand: int
    seat: int
    signers: tuple[int, ...]
    #: entries of ``hand`` that are part of the match (None: an older record, no point)
    at: int | None = None


def body_problem(body: Mapping[str, Any], hand: int, author_seat: int, n: int,
                 keys: Sequence[bytes]) -> str:
    """What is wrong with a takeover or end record signed by ``author_seat`` in envelope
    hand ``hand`` ("" when nothing). ``keys``: the seats' keys for that hand."""
    kind = body.get("k")
    seat_i = is_int(0, n - 1)
    try:
        if kind == TAKEOVER:
            runner = body.get("runner")
            if runner == author_seat:
                b = check_map(body, {"k": is_str(20), "hand": is_int(0, MAX_HANDS),
                                     "seat": seat_i, "runner": seat_i, "key": is_bytes(32),
                                     "endpoint": is_str(MAX_ENDPOINT)},
                              {"curve": is_list(is_bytes(min_len=1, max_len=128),
                                                min_len=2, max_len=2),
                               "at": is_int(0, MAX_POINT)})
                if b["key"] in keys:
                    return "the bot's key is a seated player's"
                try:    # every peer connects there: an address, never a name to resolve
                    parse_endpoint(b["endpoint"], literal_only=True)
                except ValueError:
                    return "the bot's endpoint is not an IP address and port"
                curve = b.get("curve")
                if curve is not None and not verify_curve_certificate(b["key"], curve[0],
                                                                      curve[1]):
                    return "the bot's transport key is not vouched for by its key"
            else:
                b = check_map(body, {"k": is_str(20), "hand": is_int(0, MAX_HANDS),
                                     "seat": seat_i, "runner": seat_i},
                              {"at": is_int(0, MAX_POINT)})
            if b["runner"] != runner_for(b["seat"], n):
                return "not the seat that runs the bot"
        elif kind == END:
            b = check_map(body, {"k": is_str(20), "hand": is_int(0, MAX_HANDS),
                                 "seat": seat_i}, {"at": is_int(0, MAX_POINT)})
        else:
            return "not an agreement"
    except DecodeError as exc:
        return str(exc)[:80]
    if b["hand"] != hand:
        return "signed in another hand than it names"
    if b["seat"] == author_seat:
        return "signed by the silent seat itself"
    return ""


class Agreements:
    """The records seen so far and what they agree on (see the module doc)."""

    def __init__(self, n: int) -> None:
        self.n = n
        #: (kind, hand) -> {signer seat: body}
        self.votes: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}

    def add(self, kind: str, hand: int, seat: int, body: Mapping[str, Any]) -> bool:
        """Record a checked record (see :func:`body_problem`); False for a second record
        of the same kind by the same seat in the same hand (ignored)."""
        votes = self.votes.setdefault((kind, hand), {})
        if seat in votes:
            return False
        votes[seat] = dict(body)
        return True

    def signed(self, kind: str, hand: int) -> dict[int, dict[str, Any]]:
        """Who signed what of ``kind`` in ``hand`` (seat -> body)."""
        return dict(self.votes.get((kind, hand), {}))

    def _held(self, kind: str, hand: int) -> tuple[int, int | None, list[int]] | None:
        """(silent seat, point, signers) of the agreement of ``kind`` that holds in
        ``hand``: every seat but the silent one signed the same seat and point."""
        votes = self.votes.get((kind, hand), {})
        for silent, at in sorted({(int(b["seat"]), point_of(b)) for b in votes.values()},
                                 key=lambda x: (x[0], -1 if x[1] is None else x[1])):
            signers = sorted(s for s, b in votes.items()
                             if b["seat"] == silent and point_of(b) == at)
            if signers == [s for s in range(self.n) if s != silent]:
                return silent, at, signers
        return None

    def end(self, hand: int) -> MatchEnd | None:
        held = self._held(END, hand)
        if held is None:
            return None
        silent, at, signers = held
        return MatchEnd(hand, silent, tuple(signers), at)

    def takeover(self, hand: int) -> Takeover | None:
        if self.end(hand) is not None:
            return None                  # both agreed: the end wins
        held = self._held(TAKEOVER, hand)
        if held is None:
            return None
        silent, at, signers = held
        runner = runner_for(silent, self.n)
        rb = self.votes[(TAKEOVER, hand)][runner]
        if "key" not in rb:                                # pragma: no cover - checked
            return None
        curve = rb.get("curve")
        return Takeover(hand, silent, runner, bytes(rb["key"]), str(rb["endpoint"]),
                        (bytes(curve[0]), bytes(curve[1])) if curve else None,
                        tuple(signers), at)

    def cannot_hold(self, kind: str, hand: int, mine: Mapping[str, Any], me: int) -> bool:
        """Can the agreement ``mine`` (this seat's own record of ``kind`` in ``hand``)
        no longer hold? Yes once another seat, not the one it names as silent, signed a
        record of that kind in that hand naming another seat or another point: each seat
        counts once per kind and hand, so every seat but the silent one can never sign
        the same record any more."""
        silent, at = int(mine["seat"]), point_of(mine)
        return any(s not in (me, silent) and (int(b["seat"]), point_of(b)) != (silent, at)
                   for s, b in self.votes.get((kind, hand), {}).items())


def open_kinds(votes: Mapping[str, Mapping[int, Mapping[str, Any]]], silent: int,
               point: int) -> frozenset[str]:
    """The kinds of agreement about ``silent`` that may still hold at ``point`` of the hand
    in play, given the records of that hand (``votes``: kind -> signer seat -> body).

    A remaining seat that signed a record of a kind naming another seat or another point
    can never sign that kind again in the hand (one record per kind, seat and hand); one
    that signed a kind here never signs the other at the same point (an honest seat
    never signs both where the first may hold). So when Ann signed a bot and Bo the end,
    neither can hold until the silent seat plays again: the players were told "waiting
    for Ann" (who could not sign) and "you already chose" and nothing more, with no word
    that the table now waits for the silent seat alone. Said to the players, never used
    to decide anything: the verdict is :class:`Agreements`'s."""
    kinds = (TAKEOVER, END)
    closed: set[str] = set()
    for kind in kinds:
        other = END if kind == TAKEOVER else TAKEOVER
        for signer, body in votes.get(kind, {}).items():
            if signer == silent:
                continue
            if int(body["seat"]) != silent or point_of(body) != point:
                closed.add(kind)
            elif signer not in votes.get(other, {}):
                # it will not sign the other here. One that signed both at this point (a
                # hostile seat, or an honest one whose first record was spent) closes
                # neither: "nothing can be agreed" was said to a player whose one
                # record, either one, would have made an agreement (hostile pass 11)
                closed.add(other)
    return frozenset(k for k in kinds if k not in closed)


def keys_at(base: Sequence[bytes], takeovers: Iterable[Takeover], hand: int) -> tuple[bytes, ...]:
    """The seats' signing keys in ``hand``: the table's, with each takeover agreed in an
    earlier hand applied (in hand order)."""
    keys = list(base)
    for t in sorted(takeovers, key=lambda t: t.hand):
        if t.hand < hand:
            keys[t.seat] = t.key
    return tuple(keys)


def seat_of_keys(base: Sequence[bytes], takeovers: Iterable[Takeover], hand: int,
                 keep_replaced: bool = False) -> dict[bytes, int]:
    """The seat of each key that may sign an entry or record of ``hand``: the table's
    keys, and a bot's only from the hand after its takeover's; the key a takeover
    replaced signs nothing more for the seat (``keep_replaced``: it still does, for a
    timeout claim, which blames nobody and which the player who left, following as a
    spectator, signs). Live peers and ``verify`` judge evidence and side records by it
    alike (hostile passes 11, 13, 14: each had written the rule its own way)."""
    seats = {k: s for s, k in enumerate(base)}
    for t in sorted(takeovers, key=lambda t: t.hand):
        if t.hand < hand:
            if not keep_replaced:
                seats = {k: s for k, s in seats.items() if s != t.seat}
            seats[t.key] = t.seat
    return seats


def signed_records(side: Iterable[Envelope], table: bytes) -> list[Envelope]:
    """The records of ``side`` :func:`agreements_of` looks at (takeovers and ends of
    ``table``) whose signatures verify: for its ``signed``."""
    return [e for e in side if e.body.get("k") in (TAKEOVER, END) and e.table == table
            and e.signature_ok()]


def agreements_of(base: Sequence[bytes], side: Iterable[Envelope], table: bytes,
                  reached: tuple[Mapping[int, int], int] | None = None,
                  finished: Collection[int] = (), signed: bool = False
                  ) -> tuple[list[Takeover], MatchEnd | None, set[int]]:
    """From a transcript's side entries: the takeovers agreed (in hand order), the end by
    agreement (if any) and the voided hands. Records are taken hand by hand so the keys
    that may sign in a hand follow the earlier takeovers; a record with a bad signature,
    an unknown signer or a broken schema is ignored.

    ``reached``: the log's entries in each hand and the last hand it has entries of. An
    agreement about a hand the log went on from (it has entries of a later hand) at a
    point the log never reached in that hand took effect nowhere: a live peer applies one
    only at its point, and this one finished the hand first. At two seats the other seat
    alone signs one: a takeover of hand 1 naming point 10,000, sent while the honest
    player played it, was kept by that player's peer (it might be reached), and `verify`
    of the complete match then swapped the seat's key from hand 2 and failed the honest
    transcript on "not a seated player" (hostile pass 11).

    ``finished``: hands of the log whose last entry ended them (every seat revealed),
    the last hand too. A takeover or an end at the point of such a hand's end (or past
    it) took effect nowhere either (an end: the next hand was dealt with that entry): a live peer
    applies one only while the hand is in play (``ReplicatedLog._check_agreement``), and
    the point was the hand's last entry. Hal, at two seats, signed "a bot of mine plays
    Ann's seat" at the point of hand 1's last entry; her peer finished the hand and played
    on, and `verify` of her complete match failed on "not a seated player" (hostile pass
    12). Only the pass that checks the entries knows which hands ended so (the first pass
    reads no body): it calls this again once it does, with ``signed`` records
    (:func:`signed_records`: their signatures checked once, not at every call: a crafted
    file of many such hands had 16,384 records' signatures checked again at each)."""
    n = len(base)
    by_hand: dict[int, list[Envelope]] = {}
    for e in side:
        if e.body.get("k") in (TAKEOVER, END) and e.table == table and 0 <= e.hand <= MAX_HANDS:
            by_hand.setdefault(e.hand, []).append(e)
    takeovers: list[Takeover] = []
    end: MatchEnd | None = None
    voided: set[int] = set()
    ag = Agreements(n)
    for hand in sorted(by_hand):
        keys = keys_at(base, takeovers, hand)
        seat_of = {k: s for s, k in enumerate(keys)}
        for e in by_hand[hand]:
            s = seat_of.get(e.author)
            if s is None or (not signed and not e.signature_ok()):
                continue
            if body_problem(e.body, e.hand, s, n, keys):
                continue
            ag.add(str(e.body["k"]), hand, s, e.body)
        if reached is not None and (hand < reached[1] or hand in finished):
            size = reached[0].get(hand, 0)
            held_end = ag.end(hand)
            if held_end is not None and held_end.at is not None and (
                    (held_end.at > size and hand < reached[1])
                    or (held_end.at >= size and hand in finished)):
                ag.votes.pop((END, hand), None)
            held_bot = ag.takeover(hand)
            if held_bot is not None and held_bot.at is not None and (
                    (held_bot.at > size and hand < reached[1])
                    or (held_bot.at >= size and hand in finished)):
                ag.votes.pop((TAKEOVER, hand), None)
        done = ag.end(hand)
        if done is not None:
            end = done
            voided.add(hand)
            break
        t = ag.takeover(hand)
        if t is not None:
            takeovers.append(t)
            voided.add(hand)
    return takeovers, end, voided
