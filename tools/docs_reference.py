"""The reference pages the docs generate from the code at build time.

Three pages are written from what the program itself knows, so the docs cannot drift from it:
the protocol from the JSON Schema that ``poolhall schema`` prints (the msgspec types), every
``poolhall`` command and option from the CLI's argparse parser, and the server's settings
from :class:`poolhall.server.settings.Settings`. MkDocs calls :func:`generated_pages` through the
hook in ``tools/mkdocs_hooks.py``; ``tests/docs/test_reference.py`` checks that every subcommand,
option, setting and message type appears.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

__all__ = ["cli_page", "generated_pages", "protocol_page", "settings_page", "subcommands"]

_HEADER = "<!-- generated at build time by tools/docs_reference.py: do not edit -->\n\n"


def _cell(text: object) -> str:
    """Text made safe for one cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


# --- the CLI -------------------------------------------------------------------------------

_Command = tuple[tuple[str, ...], argparse.ArgumentParser]


def subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[_Command]:
    """Every (sub)command of ``parser`` with its path of names, depth first, parents first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from subcommands(child, (*path, name))


def _help_of(parser: argparse.ArgumentParser, name: str) -> str:
    """The one-line help its parent gave ``name``, if any."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def _argument_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += f" {action.metavar or action.dest.upper()}"
        else:
            name = action.metavar if isinstance(action.metavar, str) else action.dest
            if action.nargs == "?":
                name = f"[{name}]"
        choices = ", ".join(map(str, action.choices)) if action.choices and not isinstance(
            action, argparse._SubParsersAction) else ""
        default = action.default
        show_default = default not in (None, False, argparse.SUPPRESS, []) \
            and "(default" not in (action.help or "")
        notes = []
        if action.required and action.option_strings:
            notes.append("required")
        if choices:
            notes.append(f"one of: {choices}")
        if show_default:
            notes.append(f"default {default}")
        help_text = (action.help or "") % {"default": default} if action.help else ""
        rows.append(f"| `{_cell(name)}` | {_cell(help_text)} | {_cell('; '.join(notes))} |")
    return rows


def cli_page(parser: argparse.ArgumentParser | None = None) -> str:
    """The CLI reference: every command and option of ``poolhall``, from its parser."""
    if parser is None:
        from poolhall.clients.cli import build_parser

        parser = build_parser()
    out = [_HEADER, "# The `poolhall` command\n\n",
           "Every command and option, read from the CLI's own parser when these docs were "
           "built. How tokens, exit codes and errors work for all of them is in "
           "[CLI conventions](cli-conventions.md).\n\n"]
    parents: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    for path, sub in subcommands(parser):
        parents[path] = sub
        title = " ".join(("poolhall", *path))
        out.append(f"{'#' * min(2 + len(path) - (1 if path else 0), 4)} `{title}`\n\n")
        helped = _help_of(parents[path[:-1]], path[-1]) if path else (parser.description or "")
        if helped:
            out.append(f"{helped[0].upper()}{helped[1:]}.\n\n" if not helped.endswith(".")
                       else f"{helped}\n\n")
        usage_lines = sub.format_usage().removeprefix("usage: ").strip().splitlines()
        usage = "\n".join(line.removeprefix(" " * len("usage: ")) for line in usage_lines)
        out.append(f"```\n{usage}\n```\n\n")
        rows = _argument_rows(sub)
        if rows:
            out.append("| argument | what it does | notes |\n|---|---|---|\n")
            out.append("\n".join(rows) + "\n\n")
    return "".join(out)


# --- the settings --------------------------------------------------------------------------

def settings_page() -> str:
    """The server settings: every field of :class:`poolhall.server.settings.Settings` and its
    flag."""
    from poolhall.server.settings import Settings

    out = [_HEADER, "# Server settings\n\n",
           "What an operator may tune, read from `server/settings.py` when these docs were "
           "built. Each setting is a flag of `poolhall serve` (`queue_limit` is "
           "`--queue-limit`); `poolhall serve --help` lists the same. Limits are per server "
           "process; the defaults suit a real table on a small machine. Why each limit "
           "exists is in [Load and limits](../explanation/load-and-limits.md).\n\n",
           "| flag | default | what it sets |\n|---|---|---|\n"]
    notes = _attribute_docstrings(Settings)
    for setting in dataclasses.fields(Settings):
        flag = "--" + setting.name.replace("_", "-")
        default = setting.default
        shown = repr(default) if isinstance(default, str) else f"{default}"
        text = setting.metadata.get("help", "")
        if setting.metadata.get("env"):
            text += f" (or `${setting.metadata['env']}`)"
        if setting.name in notes:
            text += f". {notes[setting.name]}"
        out.append(f"| `{flag}` | `{_cell(shown)}` | {_cell(text)} |\n")
    return "".join(out)


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """The docstrings written under fields of ``cls`` (the "why" of each setting)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    found = {}
    for before, after in zip(body, body[1:], strict=False):
        if isinstance(before, ast.AnnAssign) and isinstance(before.target, ast.Name) \
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            found[before.target.id] = " ".join(after.value.value.split())
    return found


# --- the protocol --------------------------------------------------------------------------

def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _anchor(name: str) -> str:
    return "type-" + name.lower().replace(".", "-")


def _type_of(schema: dict[str, Any]) -> str:
    """A short, readable type of one JSON Schema node, with links to named types."""
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        return f"[{name}](#{_anchor(name)})"
    if "anyOf" in schema:
        options = [_type_of(option) for option in schema["anyOf"]]
        if len(options) > 6:
            return f"one of {len(options)} types"
        return " or ".join(options)
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items", {})
        return f"array of {_type_of(items)}" if items else "array"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {_type_of(schema['additionalProperties'])}"
    return str(kind)


_LIMITS = {"minimum": ">= {}", "maximum": "<= {}", "exclusiveMinimum": "> {}",
           "exclusiveMaximum": "< {}", "minLength": "at least {} characters",
           "maxLength": "at most {} characters", "pattern": "matches `{}`",
           "minItems": "at least {} items", "maxItems": "at most {} items"}


def _limits_of(schema: dict[str, Any]) -> str:
    limits = [text.format(schema[key]) for key, text in _LIMITS.items() if key in schema]
    for option in schema.get("anyOf", []):
        limits += [text.format(option[key]) for key, text in _LIMITS.items() if key in option]
    return "; ".join(limits)


def _described(schema: dict[str, Any]) -> str:
    if schema.get("description"):
        return str(schema["description"])
    for option in schema.get("anyOf", []):
        if option.get("description"):
            return str(option["description"])
    return ""


def _section(name: str, definition: dict[str, Any]) -> str:
    out = [f'### {definition.get("title", name)} {{#{_anchor(name)}}}\n\n']
    if name != definition.get("title", name):
        out.append(f"`{name}`\n\n")
    description = " ".join(str(definition.get("description", "")).split())
    if description:
        out.append(description.replace("``", "`") + "\n\n")
    properties = definition.get("properties", {})
    if properties:
        required = set(definition.get("required", []))
        out.append("| field | type | required / default | limits | meaning |\n"
                   "|---|---|---|---|---|\n")
        for field_name, field_schema in properties.items():
            need = "required" if field_name in required else \
                f"default `{_cell(json.dumps(field_schema.get('default')))}`"
            out.append(f"| `{field_name}` | {_cell(_type_of(field_schema))} | {need} | "
                       f"{_cell(_limits_of(field_schema))} | {_cell(_described(field_schema))} |\n")
        out.append("\n")
        if definition.get("additionalProperties") is False:
            out.append("Unknown fields are refused.\n\n")
    elif "anyOf" in definition:
        out.append("One of: " + ", ".join(_type_of(option) for option in definition["anyOf"])
                   + ".\n\n")
    elif "enum" in definition:
        out.append("One of: " + _type_of(definition) + ".\n\n")
    return "".join(out)


def _referenced(schema: dict[str, Any], start: str) -> list[str]:
    """Named types reachable from ``start``, in the order first met."""
    defs = schema["$defs"]
    seen: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                name = _ref_name(node["$ref"])
                if name not in seen:
                    seen.append(name)
                    walk(defs[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(defs[start])
    return seen


def protocol_page(schema: dict[str, Any] | None = None) -> str:
    """The protocol's message types, from the JSON Schema ``poolhall schema`` prints."""
    if schema is None:
        from poolhall.projections.snapshot import protocol_schema

        schema = protocol_schema()
    defs = schema["$defs"]
    client = _referenced(schema, "ClientMessage")
    server = [name for name in _referenced(schema, "ServerMessage") if name not in client]
    events = [_ref_name(option["$ref"]) for option in
              defs["EventFrame"]["properties"]["event"]["anyOf"]]
    out = [_HEADER, "# Protocol schema\n\n",
           "Every message of the protocol, generated when these docs were built from the JSON "
           "Schema that `poolhall schema` prints (itself generated from the msgspec types). "
           "How the messages are used together is in [The protocol](protocol.md).\n\n",
           " ".join(str(schema.get("description", "")).split()) + "\n\n",
           "## Client messages\n\n",
           "The messages a client sends: ",
           ", ".join(f"[`{_ref_name(o['$ref'])}`](#{_anchor(_ref_name(o['$ref']))})"
                     for o in defs["ClientMessage"]["anyOf"]) + ".\n\n"]
    out += [_section(name, defs[name]) for name in ["ClientMessage", *client]
            if name not in events]
    out += ["## Server messages\n\n", "The messages the server sends: ",
            ", ".join(f"[`{_ref_name(o['$ref'])}`](#{_anchor(_ref_name(o['$ref']))})"
                      for o in defs["ServerMessage"]["anyOf"]) + ".\n\n"]
    out += [_section(name, defs[name]) for name in ["ServerMessage", *server]
            if name not in events]
    out += ["## Events\n\n", "Every event type an event frame may carry (its `event`).\n\n"]
    out += [_section(name, defs[name]) for name in events]
    covered = {"ClientMessage", "ServerMessage", *client, *server, *events}
    rest = [name for name in defs if name not in covered]
    if rest:
        out.append("## Other types\n\n")
        out += [_section(name, defs[name]) for name in rest]
    return "".join(out)


def generated_pages() -> dict[str, str]:
    """Each generated page's path under ``docs/`` and its Markdown."""
    return {"reference/cli.md": cli_page(),
            "reference/settings.md": settings_page(),
            "reference/protocol-schema.md": protocol_page()}
