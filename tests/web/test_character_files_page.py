"""Characters in and out in the browser and the CLI: the GM exports Han from one campaign and
imports him into another, without typing his sheet twice; a bad file is refused by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.serve_process import poolhall
from tests.web.conftest import Served

HAN = {"system": "narrative", "agility": 3, "presence": 2,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"}}}


def test_the_gm_exports_a_character_and_imports_it_into_another_campaign(
        served: Served, open_page: Callable[..., Page], tmp_path: Path) -> None:
    """Export from Edge (a download), import into Dawn: the same sheet, and the log says so."""
    edge, edge_gm = served.create_campaign("Edge", "narrative")
    dawn, dawn_gm = served.create_campaign("Dawn", "narrative")
    served.send(edge_gm, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    gm_edge = open_page(edge_gm)
    tools = gm_edge.locator("ph-characters")
    expect(tools.get_by_label("character to export")).to_have_value("han")
    with gm_edge.expect_download() as download:
        tools.get_by_role("button", name="Export").click()
    saved = tmp_path / "han.json"
    download.value.save_as(saved)
    exported = json.loads(saved.read_text())
    assert (exported["format"], exported["version"], exported["name"]) == (
        "poolhall.character", 1, "Han")
    assert exported["exported_from"] == {"campaign": edge, "character": "han"}

    gm_dawn = open_page(dawn_gm)
    form = gm_dawn.get_by_role("form", name="Import a character")
    form.get_by_label("character file").set_input_files(str(saved))
    form.get_by_role("button", name="Import").click()
    expect(form.locator(".ph-characters-done")).to_have_text("Han imported")
    expect(gm_dawn.locator("ph-log")).to_contain_text(f"character han imported from {edge}")
    sheet = served.as_gm(dawn_gm, "sheet", dawn, "han")
    assert "Ranged (Light)" in json.dumps(sheet)


def test_a_bad_file_is_refused_beside_the_file_chooser_naming_the_field(
        served: Served, open_page: Callable[..., Page], tmp_path: Path) -> None:
    """Agility 11 in the file: the server's refusal names $.file.stats.agility; nothing is
    appended. A file that is not JSON is refused before anything is sent."""
    _, gm_link = served.create_campaign("Dawn", "narrative")
    gm = open_page(gm_link)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "poolhall.character", "version": 1, "name": "Han",
                               "stats": {**HAN, "agility": 11}}))
    form = gm.get_by_role("form", name="Import a character")
    form.get_by_label("character file").set_input_files(str(bad))
    form.get_by_role("button", name="Import").click()
    expect(form.locator(".ph-error")).to_contain_text("agility")
    expect(form.get_by_label("character file")).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("ph-log")).not_to_contain_text("imported")
    garbage = tmp_path / "notes.json"
    garbage.write_text("Han, agility 3")
    form.get_by_label("character file").set_input_files(str(garbage))
    form.get_by_role("button", name="Import").click()
    expect(form.locator(".ph-error")).to_contain_text("notes.json is not JSON")
    newer = tmp_path / "newer.json"  # a file of a later poolhall: said so, not "enum value 2"
    newer.write_text(json.dumps({"format": "poolhall.character", "version": 2, "name": "Han",
                                 "stats": HAN}))
    form.get_by_label("character file").set_input_files(str(newer))
    form.get_by_role("button", name="Import").click()
    expect(form.locator(".ph-error")).to_contain_text(
        "a character file of a version this poolhall does not read (it reads version 1)")
    # a file too big for a frame is refused before it is read (one over 128 KiB closed the
    # connection, and the page, sending it again once back, closed the next one too)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"format": "poolhall.character", "version": 1, "name": "Han",
                               "stats": HAN, "notes": "x" * 200_000}))
    form.get_by_label("character file").set_input_files(str(big))
    form.get_by_role("button", name="Import").click()
    expect(form.locator(".ph-error")).to_have_text(
        "big.json is 196 KB: a character file is at most 60 KB")
    expect(gm.locator("ph-app")).not_to_contain_text("reconnecting")
    # the page sends the file as it is and the server judges it: the one frame outside the
    # schema is that import, which this test sent on purpose
    bad_frames = [frame for frame in open_page.sent  # type: ignore[attr-defined]
                  if '"agility":11' in str(frame) or '"version":2' in str(frame)]
    assert len(bad_frames) == 2
    for frame in bad_frames:
        open_page.sent.remove(frame)  # type: ignore[attr-defined]


def test_the_cli_exports_and_imports_a_character(served: Served, tmp_path: Path) -> None:
    """`poolhall character export` then `import` into another campaign: the same stats; a
    file with a typo is refused naming the field, before anything is sent."""
    edge, edge_gm = served.create_campaign("Edge", "narrative")
    dawn, dawn_gm = served.create_campaign("Dawn", "narrative")
    served.send(edge_gm, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    out = tmp_path / "han.json"
    served.as_gm(edge_gm, "character", "export", edge, "han", "--out", str(out))
    answer = served.as_gm(dawn_gm, "character", "import", dawn, str(out), "--id", "solo")
    assert answer["type"] == "ack"
    assert len(answer["seqs"]) == 2  # type: ignore[arg-type]
    sheet = served.as_gm(dawn_gm, "sheet", dawn, "solo")
    assert "Ranged (Light)" in json.dumps(sheet)
    typo = tmp_path / "typo.json"
    typo.write_text(out.read_text().replace('"agility"', '"agilty"', 1))
    token = served.gm_token_file(dawn_gm)
    refused = poolhall("character", "import", dawn, str(typo), "--url", served.url,
                       "--token-file", str(token), cwd=served.directory, check=False)
    assert refused.returncode == 2
    assert "typo.json: $.stats.agilty: " in refused.stderr + refused.stdout

