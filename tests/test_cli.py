"""The shared command-line layer (``keine_ahnung_env/cli.py``, issue 22), tried as a user would: every
command (``python -m ...`` and the installed ``keine-ahnung`` console command) answers bad input with
one line ``error: ...`` on stderr naming the argument, what was given and what is allowed, exit status
2, no traceback and nothing on stdout (the mistake is found before any work starts).

The required cases run as subprocesses, started together (a few at a time) in one module fixture:
interpreter start-up is most of their cost. The further cases go through the same entry
(``cli.run_command(module.main, argv)``) in this process.
"""

from __future__ import annotations

import concurrent.futures
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from keine_ahnung_env import cli

ROOT = Path(__file__).resolve().parents[1]
CONSOLE = shutil.which(cli.CONSOLE, path=str(Path(sys.executable).parent)) or shutil.which(cli.CONSOLE)

REGISTERED = r"allowed: one of the registered games: .*keine_ahnung_v0"
SEED = r"--seed -1; allowed: an integer 0-4294967295"
MODULES = {"train": "training.train", "evaluate": "training.evaluate", "play": "training.play",
           "search": "training.search", "benchmark": "keine_ahnung_env.benchmark", "demo": "keine_ahnung_env.demo"}

# (command, arguments, the message: a regular expression searched in the one line after "error: ").
# Run as subprocesses (python -m ...), as a user would:
BAD_INPUT = [
    ("train", ["--players", "1"], r"^--players 1; allowed for keine_ahnung_v0: integers 2-5 \(0: its default, 4\)$"),
    ("play", ["--opponents", "foo"], r"^--opponents 'foo': unknown agent 'foo' for keine_ahnung_v0; available: .*greedy"),
    ("evaluate", ["--games", "-5"], r"^--games -5; allowed: a positive integer$"),
    *[(command, ["--env", "chess"], r"^--env 'chess'; " + REGISTERED) for command in ("train", "evaluate", "play",
                                                                                       "search", "demo")],
    ("benchmark", ["--env", "chess"], r"^unrecognized argument\(s\) --env chess; allowed: the options that "
                                      r"python -m keine_ahnung_env.benchmark --help lists"),
    ("train", ["--rules", "colour_blind=true"],
     r"^--rules colour_blind=true: unknown rules option\(s\) \['colour_blind'\]; allowed: .*memory"),
    ("search", ["--seed", "-1"], "^" + SEED + "$"),
    ("benchmark", ["--seed", "-1"], "^" + SEED + "$"),
    ("train", ["--total-timesteps", "lots"], r"^--total-timesteps 'lots'; allowed: an integer$"),
]

# More mistakes, each through the command-line entry in this process (cli.run_command(module.main, argv):
# what python -m runs, less the interpreter's start-up).
MORE_MISTAKES = [
    ("evaluate", ["--rules", "memory=total"], r"^--rules memory=total: memory='total'; allowed: .*'none'"),
    ("play", ["--rules", "memory"], r"^--rules 'memory'; allowed: KEY=VALUE options, e.g. memory=none$"),
    ("search", ["--rules", "allow_keep=maybe"], r"^--rules allow_keep=maybe: allow_keep='maybe'; allowed: True or False"),
    *[(command, ["--seed", "-1"], "^" + SEED + "$") for command in ("train", "evaluate", "play", "demo")],
    ("evaluate", ["--seed", "4294967296"], r"^--seed 4294967296; allowed: an integer 0-4294967295$"),
    ("evaluate", ["--players", "9"], r"^--players 9; allowed for keine_ahnung_v0: integers 2-5$"),
    ("evaluate", ["--players", "four"], r"^--players 'four'; allowed: an integer$"),
    ("evaluate", ["--agents", "greedy,wizard"], r"^--agents 'wizard': unknown agent 'wizard' for keine_ahnung_v0; "
                                                r"available: .*counter"),
    ("evaluate", ["--json", "."], r"^--json '\.'; allowed: a file path \(this is a folder\)$"),
    ("evaluate", ["--sed", "1"], r"^unrecognized argument\(s\) --sed 1; allowed: .*\(did you mean --seed\?\)$"),
    ("search", ["--games", "0"], r"^--games 0; allowed: a positive integer$"),
    ("search", ["--players", "6"], r"^--players 6; allowed for keine_ahnung_v0: integers 2-5 \(0: its default, 4\)$"),
    ("search", ["--playouts", "1"], r"^--playouts 1; allowed: an integer >= 2$"),
    ("play", ["--opponents", "greedy,greedy,greedy,greedy,greedy"], r"^--opponents names 5 agents; allowed: 1-4 "
                                                                    r"\(2-5 players\)$"),
    ("play", ["--seat", "4"], r"^--seat 4; allowed: an integer 0-3$"),
    ("train", ["--critic", "psychic"], r"^--critic 'psychic'; allowed: public, oracle$"),
    ("train", ["--resume", "no/such/run.zip"], r"^--resume 'no/such/run.zip': no such file: no/such/run.zip$"),
    ("demo", ["--players", "6"], r"^--players 6; allowed for keine_ahnung_v0: integers 2-5$"),
    ("benchmark", ["--players", "2,7"], r"^--players '2,7'; allowed for keine_ahnung_v0: comma-separated player counts, "
                                        r"integers 2-5$"),
    ("benchmark", ["--sections", "core,gpu"], r"^--sections 'core,gpu': unknown section\(s\) gpu; allowed: "
                                              r"comma-separated, from compile, core, aec, sb3$"),
    # An incompatible checkpoint: the shipped 4-player agent at a 3-player table.
    ("evaluate", ["--players", "3", "--agents", "ppo_4p,counter"],
     r"^--agents 'ppo_4p': checkpoint .*keine_ahnung_v0_4p_advice_tuned.zip was trained for 4 players, not 3$"),
]

# The console command: one mistake per subcommand (each runs its module's main).
CONSOLE_INPUT = [
    ("train", ["--players", "1"], r"^--players 1; allowed for keine_ahnung_v0: integers 2-5"),
    ("evaluate", ["--games", "-5"], r"^--games -5; allowed: a positive integer$"),
    ("play", ["--opponents", "foo"], r"^--opponents 'foo': unknown agent 'foo'"),
    ("search", ["--env", "chess"], r"^--env 'chess'; " + REGISTERED),
    ("benchmark", ["--seed", "-1"], "^" + SEED + "$"),
    ("demo", ["--rules", "memory=none"], r"^unrecognized argument\(s\) --rules memory=none; allowed: the options that "
                                         r"keine-ahnung demo --help lists$"),
]


def _module_command(command: str, argv: list[str]) -> list[str]:
    return [sys.executable, "-m", MODULES[command], *argv]


def _console_command(command: str, argv: list[str]) -> list[str]:
    return [CONSOLE, command, *argv]


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple, subprocess.CompletedProcess]:
    """Every subprocess of this module, run a few at a time: ``{(kind, command, *argv): result}``."""
    jobs = {("module", command, *argv): _module_command(command, argv) for command, argv, _ in BAD_INPUT}
    if CONSOLE:
        jobs.update({("console", command, *argv): _console_command(command, argv) for command, argv, _ in CONSOLE_INPUT})
        jobs[("console", "--help")] = [CONSOLE, "--help"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(_run, cmd) for key, cmd in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


def _assert_one_line_error(done: subprocess.CompletedProcess, message: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert re.search(message, lines[0][len("error: "):]), lines[0]
    assert done.stdout == "", f"work started before the mistake was found: {done.stdout[:500]}"


@pytest.mark.parametrize("command,argv,message", BAD_INPUT, ids=[f"{c} {' '.join(a)}" for c, a, _ in BAD_INPUT])
def test_python_m_command_reports_a_mistake_in_one_line(outcomes, command, argv, message):
    _assert_one_line_error(outcomes[("module", command, *argv)], message)


@pytest.mark.skipif(CONSOLE is None, reason="the console command is not installed (pip install -e .)")
@pytest.mark.parametrize("command,argv,message", CONSOLE_INPUT, ids=[f"{c} {' '.join(a)}" for c, a, _ in CONSOLE_INPUT])
def test_console_command_reports_a_mistake_in_one_line(outcomes, command, argv, message):
    _assert_one_line_error(outcomes[("console", command, *argv)], message)


@pytest.mark.parametrize("command,argv,message", MORE_MISTAKES, ids=[f"{c} {' '.join(a)}" for c, a, _ in MORE_MISTAKES])
def test_more_mistakes_each_in_one_line(command, argv, message, capsys):
    import importlib

    module = importlib.import_module(MODULES[command])
    with pytest.raises(SystemExit) as exit_:
        cli.run_command(module.main, argv)
    err = capsys.readouterr()
    assert exit_.value.code == 2 and err.out == ""
    lines = err.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err.err
    assert re.search(message, lines[0][len("error: "):]), lines[0]


@pytest.mark.skipif(CONSOLE is None, reason="the console command is not installed (pip install -e .)")
def test_console_command_lists_its_subcommands_with_examples(outcomes):
    from training import console

    done = outcomes[("console", "--help")]
    assert done.returncode == 0 and done.stderr == ""
    for name, (module, _) in console.COMMANDS.items():
        assert f"  {name} " in done.stdout and f"python -m {module}" in done.stdout
    examples = done.stdout.rstrip().split("\n\nexamples:\n")[1].splitlines()
    assert 2 <= len(examples) <= 3 and all(e.startswith("  keine-ahnung ") for e in examples)


def test_console_main_dispatches_and_names_the_subcommand(capsys):
    from training import console

    names = ", ".join(console.COMMANDS)
    assert {"train", "evaluate", "play", "search", "benchmark", "benchmark_agents", "demo"} <= set(console.COMMANDS)
    assert console.main([]) == 2
    assert capsys.readouterr().err.startswith(f"error: keine-ahnung needs a command; allowed: {names}")
    assert console.main(["chess"]) == 2
    assert capsys.readouterr().err == f"error: command 'chess'; allowed: {names} (keine-ahnung --help lists them)\n"
    assert console.main(["evaluate", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: keine-ahnung evaluate ") and "examples:\n  keine-ahnung evaluate --players 4" in out
    assert console.main(["search", "--playouts", "1"]) == 2
    assert capsys.readouterr().err == "error: --playouts 1; allowed: an integer >= 2\n"
    assert cli.prog_name("python -m training.search") == "python -m training.search"  # the override is gone


@pytest.mark.parametrize("command", list(MODULES))
def test_every_commands_help_ends_with_two_or_three_examples(command, capsys):
    import importlib

    module = importlib.import_module(MODULES[command])
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m {MODULES[command]} ")
    examples = out.rstrip().split("\n\nexamples:\n")[1].splitlines()
    assert 2 <= len(examples) <= 3 and all(e.startswith(f"  python -m {MODULES[command]}") for e in examples)


# ------------------------------------------------------------------------------ called from Python


def test_library_callers_get_a_value_error_with_the_same_message():
    from training import search, train

    with pytest.raises(ValueError, match=r"^--players 1; allowed for keine_ahnung_v0: integers 2-5"):
        train.main(["--players", "1"])
    with pytest.raises(cli.UsageError, match=r"^--total-timesteps 'x'; allowed: an integer$"):
        train.main(["--total-timesteps", "x"])  # a parse error too: no SystemExit from a function
    with pytest.raises(ValueError, match=r"^--seed -1; allowed: an integer 0-4294967295$"):
        search.main(["--seed", "-1"])


def test_evaluate_main_keeps_exiting_with_status_2(capsys):
    from training import evaluate

    with pytest.raises(ValueError, match=r"^--games 0"):
        evaluate.run(["--games", "0"])
    with pytest.raises(SystemExit) as exit_:
        evaluate.main(["--games", "0"])
    assert exit_.value.code == 2 and capsys.readouterr().err == "error: --games 0; allowed: a positive integer\n"


def test_only_the_setup_phases_value_errors_become_usage_errors(capsys):
    def command(argv):
        with cli.user_errors("--opponents", "foo"):
            raise ValueError("unknown agent 'foo'\nsecond line")

    with pytest.raises(SystemExit) as exit_:
        cli.run_command(command, [])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "error: --opponents 'foo': unknown agent 'foo' second line\n"

    def buggy(argv):
        raise ValueError("a bug after the setup")

    with pytest.raises(ValueError, match="a bug after the setup") as raised:  # keeps its traceback
        cli.run_command(buggy, [])
    assert not isinstance(raised.value, cli.UsageError)
    assert cli.run_command(lambda argv: {"argv": argv}, ["--x"]) == {"argv": ["--x"]}


def test_shared_checks_name_the_argument_and_what_is_allowed():
    from keine_ahnung_env import registry

    entry = registry.game("keine_ahnung_v0")
    assert cli.check_players(entry, None) == 4 and cli.check_players(entry, 0, zero_is_default=True) == 4
    with pytest.raises(cli.UsageError, match=r"^--players 0; allowed for keine_ahnung_v0: integers 2-5$"):
        cli.check_players(entry, 0)
    with pytest.raises(cli.UsageError, match=r"^--env 'uno'; allowed: one of the registered games: .*keine_ahnung_v0"):
        cli.check_env("uno")
    assert cli.check_seed(cli.MAX_SEED) == cli.MAX_SEED
    with pytest.raises(cli.UsageError, match=r"^--max-minutes nan; allowed: a number >= 0$"):
        cli.check_number("--max-minutes", float("nan"))
    spec, rules = cli.check_variant(entry, 3, ["memory=none", "max_turns=900"])
    assert spec.num_players == 3 and rules == {"memory": "none", "max_turns": 900}
    assert cli.split_specs("--agents", " greedy, ,counter ") == ["greedy", "counter"]
    with pytest.raises(cli.UsageError, match=r"^--agents ''; allowed: comma-separated agent specs"):
        cli.split_specs("--agents", "")


# ------------------------------------------------------------------ abbreviations, hints, help, legends


def _console_help(name: str) -> str:
    """``keine-ahnung NAME --help`` as printed."""
    import contextlib
    import io

    from training import console

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert console.main([name, "--help"]) == 0
    return out.getvalue()


def _help_entries(text: str) -> dict[str, str]:
    """``{option: its help text}`` of a ``--help`` output (an entry runs until the next option)."""
    entries: dict[str, str] = {}
    current = None
    for line in text.split("\n\nexamples:")[0].splitlines():
        match = re.match(r"^  (-[-\w]+|[A-Z]+)", line)
        if match:
            current = match.group(1)
            entries[current] = line
        elif current and line.startswith("   "):
            entries[current] += " " + line.strip()
        else:
            current = None
    return entries


def _subcommands() -> list[str]:
    import importlib

    from training import console

    names = []
    for name, (module, _) in console.COMMANDS.items():
        try:
            importlib.import_module(module)
        except ImportError:  # an optional extra (train_rllib: ray) that is not installed
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("name", _subcommands())
def test_no_command_takes_an_abbreviated_long_option(name, capsys):
    """``--game 100`` is an unrecognized argument, never ``--games 100``: every command's longest
    option, one letter short, is refused as unrecognized before any work starts."""
    from training import console

    options = [o for o in _help_entries(_console_help(name)) if o.startswith("--")]
    assert options, name
    longest = max(options, key=len)
    short = longest[:-1]
    assert short not in options
    positional = ["replay.json"] if name == "replay" else []
    assert console.main([name, *positional, short, "1"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"error: unrecognized argument\(s\) {re.escape(short)} 1; allowed: the options that "
                        rf"keine-ahnung {name} --help lists \(did you mean {re.escape(longest)}\?\)\n", err), err


def test_game_is_not_games(capsys):
    from training import evaluate

    with pytest.raises(SystemExit) as exit_:
        cli.run_command(evaluate.main, ["--game", "100"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == ("error: unrecognized argument(s) --game 100; allowed: the options that "
                                       "python -m training.evaluate --help lists (did you mean --games?)\n")


def test_a_mistyped_subcommand_gets_a_did_you_mean(capsys):
    from training import console

    names = ", ".join(console.COMMANDS)
    assert console.main(["evalute"]) == 2
    assert capsys.readouterr().err == (f"error: command 'evalute' (did you mean 'evaluate'?); allowed: {names} "
                                       "(keine-ahnung --help lists them)\n")
    assert console.main(["benchmark-agents"]) == 2
    assert "(did you mean 'benchmark_agents'?)" in capsys.readouterr().err
    assert console.main(["chess"]) == 2
    assert "did you mean" not in capsys.readouterr().err


@pytest.mark.parametrize("name", _subcommands())
def test_every_default_is_printed_once(name):
    entries = _help_entries(_console_help(name))
    assert entries
    for option, text in entries.items():
        assert len(re.findall(r"\(default[ :]", text)) <= 1, (option, text)
    if name == "replay":
        assert entries["--from-move"].endswith("first position drawn (default 0)")
    if name == "evaluate":
        assert entries["--games"].endswith("(default: 2000)")  # a default the help text does not name is still shown


def test_every_games_statistics_columns_have_a_legend_under_the_table():
    from keine_ahnung_env import registry
    from training.tournament import play_tournament

    for game in registry.games():
        import agents

        result = play_tournament([agents.make("random", game=game, seed=1)], num_players=2, games=2, env=game)
        columns = result.columns
        assert columns, game
        lines = result.table().splitlines()
        assert lines[-1] == result.legend()
        for column in columns:
            meaning = (column.long_header or column.header).replace("/game", " per game")
            assert f"{column.header} = {meaning}" in lines[-1]
    dnp = play_tournament([agents.make("random", game="dnp_v0", seed=1)], num_players=2, games=2, env="dnp_v0")
    assert "A/g = sets played per game" in dnp.legend() and "D/g = hands turned per game" in dnp.legend()


def test_fewer_agents_than_seats_fill_the_table_and_say_so(capsys):
    """The rule (``training/tournament.py``): the list is repeated to fill every table, so the first
    agents hold more seats; the command says so on stderr. As many agents as seats: no note."""
    from training import evaluate

    result = evaluate.run(["--env", "dnp_v0", "--players", "3", "--agents", "random,random", "--games", "6",
                           "--no-progress"])
    captured = capsys.readouterr()
    assert captured.err == ("note: 2 agents for 3 seats: the list is repeated to fill every table, so every game "
                            "has random in 2, random#2 in 1 of its seats (name 3 agents for one seat each)\n")
    assert [a.games for a in sorted(result.agents, key=lambda a: a.name)] == [12, 6]
    assert "columns: pts = mean points, A/g = sets played per game" in captured.out
    evaluate.run(["--env", "dnp_v0", "--players", "2", "--agents", "random,random", "--games", "2", "--no-progress"])
    assert capsys.readouterr().err == ""
