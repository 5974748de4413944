"""Recorded games: a replay is the deal's seed and every action, as JSON; the engine replays it exactly.

A replay file holds the game (registered name and version), the player count, the rules options,
the seed and game id of the deal (game ``game_id`` of a core seeded with ``seed``, the way every
command deals: ``training.evaluate`` records deal ``d`` of its seed, ``training.play`` game 0), the
names of the agents in seat order, the actions in order, and the final scores and standings::

    {"format": "keine_ahnung_env.replay", "format_version": 1, "env": "gap_v0", "version": 0,
     "num_players": 4, "rules": {...}, "seed": 0, "game_id": 3, "agents": ["random", ...],
     "actions": [137, 150, ...], "finished": true, "scores": [..], "standings": [..], "turns": 212}

Loading reads JSON only (no code runs, whatever the file holds) and checks every field, naming what is
wrong and what is allowed; :meth:`Replay.play` replays the actions through the registry and checks each
one is legal and that the recorded scores and standings come out again. Games are found only through
``keine_ahnung_env.registry`` and ``GameSpec``.

    replay = Replay.load("replays/gap_v0_4p_seed0_game000003.json")
    for position in replay.positions():          # every decision, then the end
        picture = replay.spec.draw(position.core, 0, seat=None)
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from . import registry
from .game_spec import GameSpec

FORMAT = "keine_ahnung_env.replay"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 1024 * 1024
"""A replay file larger than this is refused before it is read (a real game is a few kilobytes)."""
MAX_SEED = 2**32 - 1


class ReplayError(ValueError):
    """A replay file or object that is not a valid replay, or that does not replay exactly."""


@dataclasses.dataclass(frozen=True)
class Position:
    """One moment of a replayed game: ``core`` (one game, row 0) before move ``index`` (``action`` by
    ``seat``), or after the last move (``action`` None, ``seat`` None)."""

    index: int
    core: Any
    seat: int | None
    action: int | None


@dataclasses.dataclass(frozen=True)
class Replay:
    """A recorded game (see the module docstring for the fields)."""

    env: str
    num_players: int
    seed: int
    game_id: int
    agents: tuple[str, ...]
    actions: tuple[int, ...]
    rules: dict = dataclasses.field(default_factory=dict)
    version: int = 0
    finished: bool = False
    scores: tuple[int, ...] | None = None
    standings: tuple[float, ...] | None = None
    turns: int | None = None
    note: str = ""
    """free text: the command that made it, for example."""

    # ------------------------------------------------------------------ making one

    @classmethod
    def record(cls, spec: GameSpec, core: Any, game: int, seed: int, game_id: int, agents: Sequence[str],
               actions: Sequence[int], note: str = "") -> "Replay":
        """The replay of row ``game`` of ``core`` (dealt as game ``game_id`` of ``seed``), whose moves
        were ``actions``; reads the final scores and standings when that game is over."""
        finished = bool(core.done[game])
        rules = {k: v for k, v in spec.rules.items() if k != "num_players"}
        return cls(env=spec.name, version=int(spec.version), num_players=int(spec.num_players),
                   rules=json.loads(json.dumps(rules)), seed=int(seed), game_id=int(game_id),
                   agents=tuple(str(a) for a in agents), actions=tuple(int(a) for a in actions),
                   finished=finished,
                   scores=tuple(int(s) for s in core.scores[game]) if finished else None,
                   standings=tuple(_number(v) for v in np.asarray(spec.standings(core))[game]) if finished else None,
                   turns=int(core.turn[game]), note=note)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict written to a file."""
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "env": self.env, "version": self.version,
                "num_players": self.num_players, "rules": self.rules, "seed": self.seed, "game_id": self.game_id,
                "agents": list(self.agents), "actions": list(self.actions), "finished": self.finished,
                "scores": None if self.scores is None else list(self.scores),
                "standings": None if self.standings is None else list(self.standings),
                "turns": self.turns, "note": self.note}

    def save(self, path: str | Path) -> Path:
        """Writes the replay as JSON (creating the folder); returns the path."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, path: str | Path) -> "Replay":
        """Reads and checks a replay file; ReplayError names the file and what is wrong."""
        p = Path(path)
        if not p.is_file():
            raise ReplayError(f"replay {str(p)!r}: no such file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ReplayError(f"replay {str(p)!r}: {size} bytes; a replay file holds at most {MAX_FILE_BYTES}")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ReplayError(f"replay {str(p)!r}: not a JSON replay file ({exc})") from None
        try:
            return cls.from_json(data)
        except ReplayError as exc:
            raise ReplayError(f"replay {str(p)!r}: {exc}") from None

    @classmethod
    def from_json(cls, data: Any) -> "Replay":
        """Checks a decoded replay (every field, the game, the player count and the rules options)."""
        if not isinstance(data, dict):
            raise ReplayError(f"a replay is a JSON object; got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise ReplayError(f"format={data.get('format')!r}; allowed: {FORMAT!r}")
        if data.get("format_version") != FORMAT_VERSION:
            raise ReplayError(f"format_version={data.get('format_version')!r}; this library reads {FORMAT_VERSION}")
        known = {"format", "format_version", "env", "version", "num_players", "rules", "seed", "game_id", "agents",
                 "actions", "finished", "scores", "standings", "turns", "note"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ReplayError(f"unknown field(s) {unknown}; allowed: {', '.join(sorted(known))}")
        env = data.get("env")
        if env not in registry.games():
            raise ReplayError(f"env={env!r}; registered games: {', '.join(registry.games())}")
        entry = registry.game(env)
        P = _integer(data, "num_players", entry.min_players, entry.max_players)
        rules = data.get("rules", {})
        if not isinstance(rules, dict):
            raise ReplayError(f"rules={rules!r}; allowed: a JSON object of {env}'s rules options")
        try:
            spec = entry.spec(P, **rules)
        except (TypeError, ValueError) as exc:
            raise ReplayError(f"rules: {exc}") from None
        version = _integer(data, "version", 0, 10**6)
        if version != spec.version:
            raise ReplayError(f"version={version}: a replay of {env} version {version}; this library plays "
                              f"version {spec.version}")
        agents = data.get("agents")
        if not isinstance(agents, list) or len(agents) != P or not all(isinstance(a, str) for a in agents):
            raise ReplayError(f"agents={agents!r}; allowed: a list of {P} names (strings), one per seat")
        actions = data.get("actions")
        if not isinstance(actions, list) or not all(_is_int(a) and 0 <= a < spec.num_actions for a in actions):
            raise ReplayError(f"actions: allowed a list of action ids 0..{spec.num_actions - 1}")
        finished = data.get("finished", False)
        if not isinstance(finished, bool):
            raise ReplayError(f"finished={finished!r}; allowed: true or false")
        scores, standings = data.get("scores"), data.get("standings")
        if finished:
            if not isinstance(scores, list) or len(scores) != P or not all(_is_int(s) for s in scores):
                raise ReplayError(f"scores={scores!r}; a finished game records {P} integer scores")
            if not isinstance(standings, list) or len(standings) != P or not all(
                    isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s) for s in standings):
                raise ReplayError(f"standings={standings!r}; a finished game records {P} numbers")
        else:
            scores = standings = None
        turns = data.get("turns")
        if turns is not None and (not _is_int(turns) or turns < 0):
            raise ReplayError(f"turns={turns!r}; allowed: a non-negative integer or null")
        note = data.get("note", "")
        if not isinstance(note, str):
            raise ReplayError(f"note={note!r}; allowed: a string")
        return cls(env=env, version=version, num_players=P, rules=rules, seed=_integer(data, "seed", 0, MAX_SEED),
                   game_id=_integer(data, "game_id", 0, 2**31 - 1), agents=tuple(agents),
                   actions=tuple(int(a) for a in actions), finished=finished,
                   scores=None if scores is None else tuple(int(s) for s in scores),
                   standings=None if standings is None else tuple(_number(s) for s in standings),
                   turns=turns, note=note)

    # ------------------------------------------------------------------ replaying

    @property
    def spec(self) -> GameSpec:
        """The game variant, through the registry."""
        return registry.game_spec(self.env, self.num_players, **self.rules)

    def new_core(self) -> Any:
        """A one-game core dealt as the recorded deal, before the first move."""
        core = self.spec.make_core(1, 0)
        core.seed(self.seed, game_ids=[self.game_id])
        core.reset_games(np.zeros(1, np.intp))
        return core

    def positions(self) -> Iterator[Position]:
        """Every position of the game in order: before each move, then after the last one (the same
        core object, stepped as it goes; copy what you keep). Raises ReplayError at an action that is
        illegal there, or moves after the end."""
        spec, core = self.spec, self.new_core()
        for index, action in enumerate(self.actions):
            if core.done[0]:
                raise ReplayError(f"the game ended after move {index}, but {len(self.actions)} moves are recorded")
            if not core.legal_mask[0, action]:
                raise ReplayError(f"move {index}: action {action} ({spec.action_name(action)}) is illegal there; "
                                  f"legal: {spec.legal_names(core.legal_mask[0])}")
            seat = int(core.current[0])
            yield Position(index, core, seat, action)
            core.step(np.array([action], np.int64))
        yield Position(len(self.actions), core, None, None)

    def core_at(self, move: int) -> Any:
        """The core before move ``move`` (``len(actions)``: after the last move)."""
        if not _is_int(move) or not 0 <= move <= len(self.actions):
            raise ReplayError(f"move={move!r}; allowed: 0..{len(self.actions)}")
        for position in self.positions():
            if position.index == move:
                return position.core
        raise AssertionError("unreachable")

    def play(self) -> Any:
        """Replays every move and checks that the game ends as recorded (finished or not, the same
        scores, standings and turns); returns the final core. ReplayError where it does not."""
        core = None
        for position in self.positions():
            core = position.core
        spec = self.spec
        if bool(core.done[0]) != self.finished:
            raise ReplayError(f"does not replay exactly: recorded finished={self.finished}, replayed "
                              f"{bool(core.done[0])}")
        if self.finished:
            scores = tuple(int(s) for s in core.scores[0])
            standings = tuple(_number(v) for v in np.asarray(spec.standings(core))[0])
            if scores != self.scores or standings != self.standings:
                raise ReplayError(f"does not replay exactly: recorded scores {list(self.scores)} and standings "
                                  f"{list(self.standings)}, replayed {list(scores)} and {list(standings)}")
        if self.turns is not None and int(core.turn[0]) != self.turns:
            raise ReplayError(f"does not replay exactly: recorded {self.turns} turns, replayed {int(core.turn[0])}")
        return core

    def move_text(self, seat: int, action: int) -> str:
        """``"seat 2 (counter): REVEAL_3"``."""
        return f"seat {seat} ({self.agents[seat]}): {self.spec.action_name(action)}"

    def file_name(self) -> str:
        """The file name the recording commands give it, e.g. ``gap_v0_4p_seed0_game000003.json``."""
        return f"{self.env}_{self.num_players}p_seed{self.seed}_game{self.game_id:06d}.json"


def check_record_dir(value: Any, flag: str = "--record") -> Path | None:
    """The folder a ``--record`` option names (None when not given), made if missing; refused at
    once (a ``UsageError``) when it is a file, so a long run does not fail at its end."""
    from .cli import usage_error

    if value is None or value == "":
        return None
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise usage_error(flag, str(value), "a folder for the replay files (this is a file)")
    path.mkdir(parents=True, exist_ok=True)
    return path


def list_replays(folder: str | Path) -> list[Path]:
    """The ``*.json`` files of ``folder`` (not its subfolders), sorted by name."""
    p = Path(folder)
    if not p.is_dir():
        raise ReplayError(f"replay folder {str(p)!r} does not exist")
    return sorted(f for f in p.glob("*.json") if f.is_file())


def replay_frames(replay: Replay, seat: int | None = None, reveal_all: bool = False, first: int = 0,
                  last: int | None = None, scale: float = 1.0) -> Iterator[np.ndarray]:
    """Pictures of positions ``first..last`` (default: to the end) of ``replay`` from ``seat``'s
    point of view (None: the public table; ``reveal_all``: every card), each with a caption naming
    the move about to be played (or the final scores), scaled by ``scale``."""
    from .pictures import table_scene

    spec = replay.spec
    last = len(replay.actions) if last is None else last
    if not 0 <= first <= last <= len(replay.actions):
        raise ReplayError(f"moves {first}..{last}; allowed: 0 <= first <= last <= {len(replay.actions)}")
    if not 0.1 <= scale <= 4:
        raise ReplayError(f"scale={scale!r}; allowed: 0.1 to 4")
    for position in replay.positions():
        if position.index < first:
            continue
        if position.index > last:
            break
        scene = table_scene(spec, position.core, 0, seat, reveal_all)
        if position.action is None:
            scores = ", ".join(f"seat {p} ({name}): {int(s)}" for p, (name, s) in
                               enumerate(zip(replay.agents, position.core.scores[0])))
            caption = f"end - scores: {scores}"
        else:
            caption = f"move {position.index + 1}/{len(replay.actions)}: {replay.move_text(position.seat, position.action)}"
        scene.height += 30
        scene.text(16, scene.height - 26, caption, size=15, colour="highlight")
        image = scene.to_image()
        if scale != 1.0:
            from PIL import Image

            image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                 Image.Resampling.LANCZOS)
        yield np.asarray(image, np.uint8)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer(data: dict, key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not _is_int(value) or not low <= value <= high:
        raise ReplayError(f"{key}={value!r}; allowed: an integer {low}..{high}")
    return value


def _number(value: Any) -> float | int:
    """A standing as a JSON number: an int where it is whole, else a float."""
    v = float(value)
    return int(v) if v.is_integer() else v
