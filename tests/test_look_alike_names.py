"""Names written with letters of other scripts that look like the Latin ones (Unicode's
confusables, UTS #39) are the names they look like: a joiner who wrote "Ann" with a
Cyrillic "А" sat as a second "Ann" at Ann's table, someone else taking a known name so
written passed the known-players file unsaid, and a seat that chose "You" with a Cyrillic
"о" read as "You" on every screen (stop 51's "known left": look-alike letters). Case is
kept where letters are taken for others, as Unicode's skeleton keeps it (the review of
the first version, which folded case first: a Cyrillic capital "М" in "Мax" passed, and a
Greek "Νina" was numbered beside "Vina", not beside "Nina")."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.words import local_names, written_names
from p2p.crypto.identity import Identity
from p2p.crypto.known import KnownPlayers
from p2p.text import names_look_alike, shown_key

CYRILLIC_ANN = "\u0410nn"          # А (CYRILLIC CAPITAL LETTER A) n n
CYRILLIC_YOU = "Y\u043eu"          # Y о (CYRILLIC SMALL LETTER O) u
GREEK_BOB = "B\u03bfb"             # B ο (GREEK SMALL LETTER OMICRON) b


@pytest.mark.parametrize(("name", "looks_like"), [
    (CYRILLIC_ANN, "Ann"), (CYRILLIC_YOU, "You"), (GREEK_BOB, "Bob"), ("B0b", "Bob"),
    ("Bi11", "Bill"), ("\u0421\u0443", "Cy"),              # С у: Cyrillic Es, U
    ("ANN\u034f", "ann"), ("Ｙｏｕ", "you"), ("\u0131van", "Ivan"),   # dotless ı
    ("\u041cax", "Max"), ("\u0422om", "Tom"), ("\u041aate", "Kate"), ("\u041dal", "Hal"),
    ("\u0412ob", "Bob"), ("AIice", "Alice"), ("\u03a7avier", "Xavier"),  # Cyrillic, Greek
    ("\u039dina", "Nina"), ("ALICE", "Alice"), ("\u0410NN", "ann"),
    # the second review: a small Cyrillic а in a name in small letters, a capital whose
    # look-alike only its small letter has (Cyrillic Ԛ, Һ)
    ("\u0430nn", "Ann"), ("\u051auinn", "Quinn"), ("\u04baank", "Hank"),
    ("y\u043eu", "You"), ("\u0399OLA", "Iola"),
    # a letter taken for a letter and a mark (stop 53: sequences were left out before)
    ("L\u0337ukasz", "\u0141ukasz"), ("D\u0335ord\u0335e", "\u0110or\u0111e"),
])
def test_a_name_in_look_alike_letters_is_the_name_it_looks_like(name: str,
                                                                 looks_like: str) -> None:
    assert name != looks_like
    assert names_look_alike(name, looks_like)      # before: Cyrillic, Greek, 0, 1, I
    assert names_look_alike(looks_like, name)


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "Anna"), ("Bill", "Bili"), ("Zoë", "Zoe"), ("Ann 2", "Ann 3"), ("李", "季"),
    ("Иван", "Ivan"), ("Ана", "Ann"), ("\u039dina", "Vina"), ("\u03a5ves", "Uves"),
    ("Bili", "BILL"), ("Iola", "Lola"), ("Iona", "Lona"), ("AI", "AL"),   # a capital I
    ("Kim", "Kin"), ("Tom", "Tam"), ("Bj\u00f8rn", "Bjorn"),
    # confusables.txt takes "m" for "rn" and "æ" for "ae", but a terminal shows them in
    # one cell and two (the review of stop 53: "Mamie" was numbered beside "Marnie")
    ("Kim", "Kirn"), ("Mamie", "Marnie"), ("Ema", "Erna"), ("J\u00e6n", "Jaen"),
])
def test_names_that_look_different_stay_different(one: str, other: str) -> None:
    assert not names_look_alike(one, other)
    assert shown_key(one) != shown_key(other)


def test_a_seat_named_you_in_cyrillic_letters_is_not_you_on_screen() -> None:
    names = ("Al", CYRILLIC_YOU, "Cy")
    assert local_names(names, 0)[1] == f"{CYRILLIC_YOU} 2"    # before: "Yоu", read "You"
    assert written_names(names)[1] == f"{CYRILLIC_YOU} 2"
    assert local_names(("Al", "Bo", "You"), 2) == ("Al", "Bo", "You")    # as before


@pytest.mark.parametrize("other", [CYRILLIC_ANN, "\u0410NN"])
def test_a_second_player_named_in_look_alike_letters_is_numbered(other: str) -> None:
    shown = local_names(("Ann", other), 0)
    assert shown[0] == "Ann" and shown[1] == f"{other} 2"
    assert local_names(("\u041cax", "Max"), 0) == ("\u041cax", "Max 2")
    assert local_names(("Nina", "\u039dina", "Vina"), 2) == ("Nina", "\u039dina 2", "Vina")
    assert local_names(("Lola", "Iola"), 0) == ("Lola", "Iola")    # first review's: "Iola 2"
    assert local_names(("\u0141ukasz", "L\u0337ukasz"), 0) == ("\u0141ukasz",
                                                                  "L\u0337ukasz 2")


def test_a_known_name_in_look_alike_letters_with_another_key_is_noticed(
        tmp_path: Path) -> None:
    bob, other = Identity.generate().public_key, Identity.generate().public_key
    path = tmp_path / "known_players"
    assert KnownPlayers(path).meet("Bob", bob) is None
    change = KnownPlayers(path).meet(GREEK_BOB, other)
    assert change is not None and change.known == (bob,)     # before: None, never met
    assert KnownPlayers(path).meet("Bob", bob) is None
    tom = Identity.generate().public_key
    assert KnownPlayers(path).meet("Tom", tom) is None
    change = KnownPlayers(path).meet("\u0422om", other)         # a Cyrillic capital Т
    assert change is not None and change.known == (tom,)
    lola, iola = Identity.generate().public_key, Identity.generate().public_key
    assert KnownPlayers(path).meet("Lola", lola) is None
    assert KnownPlayers(path).meet("Iola", iola) is None          # another name: no warning


@pytest.mark.hostile
def test_a_joiner_named_in_cyrillic_letters_is_seated_as_another_ann() -> None:
    """A real host and joiners on loopback."""
    from test_hostile import _join_one, _lobby

    ids, nodes, host = _lobby(3)
    try:
        assert _join_one(host, ids[1], nodes[1], name="Ann") is not None
        assert _join_one(host, ids[2], nodes[2], name=CYRILLIC_ANN) is not None
        names = [s.name for s in host.state.seats if s is not None]
        assert not any(names_look_alike(a, b) for i, a in enumerate(names)
                       for b in names[i + 1:]), names           # before: two "Ann"
        assert names[-1].startswith(f"{CYRILLIC_ANN} "), names   # numbered: "Аnn 3"
    finally:
        for n in nodes:
            n.close()
