"""The player's key file refused, in the player's language: p2p's English reached the
terminal under --lang fr ("… has mode 0644; it must be 0600 …")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli.main import main


def _said(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize("lang, mode_words, size_words", [
    ("en", "can be read by other users (mode 0644); it must be 0600: run chmod 600",
     "is not a key file (a key is 32 bytes, this file has 5)"),
    ("fr", "peut être lue par d'autres utilisateurs (mode 0644) ; elle doit être en 0600",
     "n'est pas un fichier de clé (une clé fait 32 octets, ce fichier en a 5)"),
])
def test_a_key_file_refused_is_said_in_the_players_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, mode_words: str,
        size_words: str) -> None:
    key = tmp_path / "identity.key"
    key.write_bytes(b"x" * 32)
    os.chmod(key, 0o644)
    argv = ["--lang", lang, "host", "--identity", str(key), "--data-dir",
            str(tmp_path / "d"), "--no-announce"]
    said = _said(capsys, *argv)
    assert mode_words in said and str(key) in said, said
    assert "has mode" not in said or lang == "en", said
    os.chmod(key, 0o600)
    key.write_bytes(b"short")
    said = _said(capsys, *argv)
    assert size_words in said and "Ed25519" not in said, said
    key.unlink()
    key.mkdir()
    said = _said(capsys, *argv)
    assert "regular file" not in said and str(key) in said, said
