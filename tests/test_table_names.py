"""A discovered table's name is another machine's text: how the lists say it."""

from __future__ import annotations

import socket

from zeroconf import ServiceInfo

from cli import i18n
from cli.join import several_tables_text
from cli.lobby import _said
from p2p.net.discovery import SERVICE_TYPE, TableInfo, parse_service_info


def _record(name: str) -> TableInfo:
    info = ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}",
                       addresses=[socket.inet_aton("192.0.2.7")], port=4000,
                       properties={"v": "1", "name": name, "fp": "UN2KD-LVPJF"},
                       server="x.local.")
    table = parse_service_info(info)
    assert table is not None
    return table


def test_a_table_named_with_invisible_characters_only_is_said_to_have_no_name() -> None:
    """Stop 45's note: a TXT name of zero-width and format characters only (nothing a
    screen can show) was listed as '' by ``lobby`` and ``join``, read as a bug or a blank
    line. It is said to have no name, and the command that joins it is there as ever."""
    blank = _record("\u200b\u200d\u2060\u202e")
    assert blank.name == ""
    real = _record("Ann's table")
    with i18n.using("en"):
        listed = " ".join(" ".join(_said("+", blank, 80)).split())
        text = several_tables_text([blank, real])
        assert "(a table without a name)" in listed and "''" not in listed, listed
        assert "--peer UN2KD-LVPJF@192.0.2.7:4000" in listed, listed
        assert "(a table without a name) [UN2KD-LVPJF]" in text and "''" not in text, text
        assert '"Ann\'s table" [UN2KD-LVPJF]' in text, text      # a name: quoted as ever
    with i18n.using("fr"):
        said = " ".join(" ".join(_said("+", blank, 80)).split())
        assert "(a table without a name)" not in said and "''" not in said, said


def test_a_table_named_like_the_placeholder_is_told_apart_by_its_quotes() -> None:
    """A host cannot pass its table off as the placeholder: a name is always quoted."""
    fake = _record("(a table without a name)")
    with i18n.using("en"):
        text = several_tables_text([fake, _record("\u200b")])
    assert "'(a table without a name)' [" in text and "\n  (a table without a name) [" \
        in text, text
