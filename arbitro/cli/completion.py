"""`arbitro completion SHELL`: the completion script for bash, zsh or fish, made from the command
line's own parser (commands, subcommands, options, their choices, rulebook and configuration
names), so it never lags behind it."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

SHELLS = ("bash", "zsh", "fish")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the completion script of SHELL on standard output; load it from the"
        " shell's start-up file or install it where the shell looks for completions.",
    )
    p.add_argument("shell", choices=SHELLS, help="bash, zsh or fish")
    p.set_defaults(func=run)


def _table() -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]], list[str]]:
    """Subcommands by command path ("" is the top), options by path, the values an option takes
    (by "path option"), and the names a positional argument takes (rulebook ids)."""
    from arbitro.cli.examples import subparsers
    from arbitro.cli.main import build_parser
    from arbitro.model.spec import rulebook_ids
    from arbitro.proofs.explore_config import config_names

    top = build_parser()
    parsers = {"": top, **subparsers(top)}
    subs: dict[str, list[str]] = {}
    opts: dict[str, list[str]] = {}
    values: dict[str, list[str]] = {}
    for path, parser in parsers.items():
        prefix = f"{path} " if path else ""
        names = [k[len(prefix) :] for k in parsers if k.startswith(prefix)]
        subs[path] = [n for n in names if n and " " not in n]
        opts[path] = sorted(o for o in parser._option_string_actions if o.startswith("--"))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) or not action.option_strings:
                continue
            long = [o for o in action.option_strings if o.startswith("--")]
            if action.choices is not None and long:
                values[f"{path} {long[0]}"] = [str(c) for c in action.choices]
            elif long and long[0] == "--config":
                values[f"{path} --config"] = list(config_names())
    return subs, opts, values, list(rulebook_ids())


def bash(zsh: bool = False) -> str:
    subs, opts, values, books = _table()

    def assoc(name: str, table: dict[str, list[str]]) -> list[str]:
        out = [f"declare -gA {name}"]
        for k, v in sorted(table.items()):
            out.append(f"{name}[{shlex.quote(k or '.')}]={shlex.quote(' '.join(v))}")
        return out

    lines = ["# arbitro completion for " + ("zsh (through bashcompinit)" if zsh else "bash")]
    if zsh:
        lines += ["autoload -U +X bashcompinit && bashcompinit"]
    lines += assoc("_arbitro_subs", subs) + assoc("_arbitro_opts", opts)
    lines += assoc("_arbitro_values", values)
    lines.append(f"_arbitro_books={shlex.quote(' '.join(books))}")
    lines.append(
        r"""_arbitro() {
    # zsh reads the arrays from 0, as bash does, within this function only
    [ -n "${ZSH_VERSION-}" ] && setopt local_options ksh_arrays
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i key
    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        key="${path:-.}"
        case " ${_arbitro_subs[$key]} " in
            *" $w "*) path="${path:+$path }$w" ;;
        esac
    done
    key="${path:-.}"
    if [ -n "${_arbitro_values[$path $prev]+x}" ]; then
        COMPREPLY=($(compgen -W "${_arbitro_values[$path $prev]}" -- "$cur"))
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "${_arbitro_opts[$key]}" -- "$cur"))
    elif [ -n "${_arbitro_subs[$key]}" ]; then
        COMPREPLY=($(compgen -W "${_arbitro_subs[$key]}" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$_arbitro_books" -- "$cur") $(compgen -f -- "$cur"))
    fi
}
complete -F _arbitro arbitro"""
    )
    return "\n".join(lines) + "\n"


def fish() -> str:
    subs, opts, values, books = _table()
    out = ["# arbitro completion for fish", "complete -c arbitro -f"]
    for path, names in sorted(subs.items()):
        if not names:
            continue
        # offered while the words typed so far are exactly this command path
        cond = _fish_path(path, subs)
        out.append(f"complete -c arbitro -n {cond!r} -a {' '.join(names)!r}")
    for path, options in sorted(opts.items()):
        cond = _fish_path(path, subs)
        for o in options:
            vals = values.get(f"{path} {o}")
            extra = f" -r -a {' '.join(vals)!r}" if vals else ""
            out.append(f"complete -c arbitro -n {cond!r} -l {o[2:]}{extra}")
        if not subs.get(path):
            out.append(f"complete -c arbitro -n {cond!r} -a {' '.join(books)!r} -F")
    return "\n".join(out) + "\n"


def _fish_path(path: str, subs: dict[str, list[str]]) -> str:
    words = path.split()
    if not words:
        return "__fish_use_subcommand"
    test = " and ".join(f"__fish_seen_subcommand_from {w};" for w in words).rstrip(";")
    deeper = subs.get(path)
    if deeper:
        test += f"; and not __fish_seen_subcommand_from {' '.join(deeper)}"
    return test.replace(";", "").replace(" and ", "; and ")


def run(args: argparse.Namespace) -> int:
    script = fish() if args.shell == "fish" else bash(zsh=args.shell == "zsh")
    sys.stdout.write(script)
    return 0


__all__ = ["SHELLS", "bash", "fish", "register", "run"]
