"""Operator settings: every field of Settings is a `poolhall serve` flag."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from poolhall.server.settings import Settings, add_arguments, from_arguments


def test_every_setting_is_a_serve_flag_with_its_default() -> None:
    """Each field becomes --its-name, defaulting to the field's default."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert from_arguments(parser.parse_args([])) == Settings()
    for setting in dataclasses.fields(Settings):
        flag = "--" + setting.name.replace("_", "-")
        given = parser.parse_args([flag, "7"])
        default: Any = setting.default  # a field's default is typed with dataclasses' MISSING
        assert getattr(from_arguments(given), setting.name) == type(default)("7")
