"""An example or two for each command's help: real command lines, each parsed by a test."""

from __future__ import annotations

import argparse

EXAMPLES: dict[str, tuple[str, ...]] = {
    "rules list": ("arbitro rules list", "arbitro rules list --format md"),
    "rules show": (
        "arbitro rules show samba-en",
        "arbitro rules show samba-en frozen-by draw-count",
    ),
    "rules diff": ("arbitro rules diff samba-es samba-en samba-fr --only-differences",),
    "rules comparison": (
        "arbitro rules comparison --format html --output comparison.html",
        "arbitro rules comparison --output docs/rules-comparison.md --check",
    ),
    "rules trace": ("arbitro rules trace samba-en:frozen-by", "arbitro rules trace draw-count"),
    "findings": (
        "arbitro findings --game escoba",
        "arbitro findings --severity winner --format html --output findings.html",
    ),
    "simulate": (
        "arbitro simulate samba-en --games 200 --policy fast",
        "arbitro simulate escoba-es --games 500 --records hands.csv",
        "arbitro simulate escoba-es --games 200 --override escoba-es:target-score=15",
    ),
    "report": (
        "arbitro report escoba-es --games 500 --output escoba.html",
        "arbitro report escoba-es --games 500 --compare rest-without-capturer --output ab.html",
    ),
    "play": ("arbitro play samba-en --seed 7 --transcript game.jsonl",),
    "explore": (
        "arbitro explore escoba-es --config escoba-tiny",
        "arbitro explore escoba-es --config escoba-28h4 --deal 0 --picture counts.svg",
    ),
    "perft": ("arbitro perft escoba-es --seed 1 --depth 3 --divide",),
    "check": ("arbitro check game.jsonl", "arbitro check --batch --json games.jsonl"),
    "serve": ("arbitro serve < requests.jsonl",),
    "show": ("arbitro show game.jsonl --step 10",),
    "schema": ("arbitro schema --list", "arbitro schema request"),
    "conform": ("arbitro conform escoba-es --games 20 -- node adapters/escoba.js",),
    "adapter": ("arbitro conform escoba-es --games 5 -- arbitro adapter",),
    "prove": ("arbitro prove escoba-es", "arbitro prove samba-en --all-readings --json"),
    "completion": (
        "arbitro completion bash > ~/.local/share/bash-completion/completions/arbitro",
        "arbitro completion fish > ~/.config/fish/completions/arbitro.fish",
    ),
}
"""Command (with its subcommand) → example lines; shell redirections are the shell's."""


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's commands by name, nested ones as `rules show`."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = sub
                out.update({f"{name} {k}": v for k, v in subparsers(sub).items()})
    return out


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Put each command's examples at the end of its help."""
    for name, sub in subparsers(parser).items():
        lines = EXAMPLES.get(name)
        if lines:
            sub.epilog = "examples:\n" + "\n".join(f"  {line}" for line in lines)
            sub.formatter_class = ExamplesFormatter


class ExamplesFormatter(argparse.HelpFormatter):
    """Help as argparse writes it, but the examples line by line, as they are typed."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:\n"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
