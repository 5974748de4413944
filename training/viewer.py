"""A browser viewer for replays and live games: ``python -m training.viewer [--port P] [--replays DIR]``.

Serves a local page on 127.0.0.1 (a Flask app) that

* lists the replay files of ``--replays DIR`` (written by ``training.evaluate ... --record DIR`` or
  ``training.play ... --record DIR``) and steps through one move by move, from any seat's point of
  view, the public table, or every card;
* lets you take a seat in a new game of any registered game against bots of your choice (the game's
  agents, by ``agents.make`` name; Keine Ahnung is offered first) and play it to the end by clicking
  the cards themselves (a face-down layout card to reveal it, a pile to place on it, a hand card to
  play it: the scene's targets, see ``keine_ahnung_env.pictures``) or the move buttons, which carry
  the same keys as the terminal game (``training.play``) and take them typed, for keyboard users.

What the page gets is what the chosen point of view may see: pictures are drawn on the server from
the game's ``GameSpec.scene`` for that seat, the cards on the page are that scene's face-up cards, and
the text view is ``GameSpec.observation_string`` of that seat's observation. A player sees only their
own seat (never a full view of a live game), and is offered only the legal actions (``GameSpec
.action_names`` of the legal mask). A bad request (an unknown replay, move, view, game, agent, an
illegal or malformed action) gets a 4xx answer with a JSON ``{"error": ...}`` that says what was wrong
and what is allowed, and changes nothing. Everything goes through ``keine_ahnung_env.registry``.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import secrets
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.cli import Parser, UsageError, run_command, user_errors
from keine_ahnung_env.game_declaration import SHIPPED_ROLES

from .viewer_page import PAGE

PROG = "python -m training.viewer"
HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_GAME = registry.DEFAULT_GAME
"""The game the page offers first (the first registered one with pictures where it is missing)."""
MAX_SESSIONS = 64
"""Live games kept in memory; the oldest is dropped when a new one would exceed this."""
MAX_BOT_MOVES = 200_000
"""Bot moves in a row after which a game is declared stuck (no real game comes near it)."""
LOG_LINES = 40
EXAMPLES = ("", "--port 8800 --replays replays")


class RequestError(Exception):
    """A bad request: answered with ``status`` and ``{"error": message}``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------------------- views


def parse_view(text: Any, num_players: int, allow_all: bool = True) -> tuple[int | None, bool]:
    """``"public"`` -> (None, False), ``"all"`` -> (None, True), ``"seat:N"`` -> (N, False)."""
    allowed = (["public", "all"] if allow_all else ["public"]) + [f"seat:{p}" for p in range(num_players)]
    if text in (None, "", "public"):
        return None, False
    if text == "all" and allow_all:
        return None, True
    if isinstance(text, str) and text.startswith("seat:") and text[5:].isdigit() and int(text[5:]) < num_players:
        return int(text[5:]), False
    raise RequestError(f"view={text!r}; allowed: {', '.join(allowed)}")


def picture_payload(spec, core, seat: int | None, reveal_all: bool, targets: bool = False) -> dict[str, Any]:
    """The picture (a PNG data URL) and the cards on it (positions, names of face-up cards only) of
    game 0 of ``core`` from one point of view; the observation text for a seat's view; with
    ``targets``, where to click for each legal move (the scene's targets: none unless ``seat`` acts)."""
    from keine_ahnung_env.pictures import table_scene

    scene = table_scene(spec, core, 0, seat, reveal_all)
    png = base64.b64encode(scene.to_png()).decode("ascii")
    payload = {"picture": f"data:image/png;base64,{png}", "width": scene.width, "height": scene.height,
               "cards": scene.cards(), "view_label": scene.view}
    if targets:
        payload["targets"] = scene.targets()
    if seat is not None:
        payload["observation"] = spec.observation_string(core.observe(seat)[0])
    return payload


# ---------------------------------------------------------------------------------------------- replays


class ReplayShelf:
    """The replay files of one folder, loaded (and checked) on first use, reloaded when changed."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._cache: dict[str, tuple[float, Any, bool]] = {}  # name: (mtime, replay, replayed and checked)
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.glob("*.json") if p.is_file())

    def get(self, name: str, check: bool = True):
        """The :class:`~keine_ahnung_env.replay.Replay` called ``name`` (a file name in the folder,
        nothing else), read and, with ``check``, replayed once to check it replays exactly;
        RequestError 404 for an unknown name, 422 for a bad file."""
        from keine_ahnung_env.replay import Replay, ReplayError

        if name not in self.names():
            raise RequestError(f"no replay named {name!r} in {str(self.folder)!r}; "
                               f"there are {len(self.names())} (GET /api/replays lists them)", 404)
        path = self.folder / name
        mtime = path.stat().st_mtime
        with self._lock:
            cached = self._cache.get(name)
        if cached is None or cached[0] != mtime:
            try:
                cached = (mtime, Replay.load(path), False)
            except ReplayError as exc:
                raise RequestError(str(exc), 422) from None
        if check and not cached[2]:
            try:
                cached[1].play()
            except ReplayError as exc:
                raise RequestError(f"replay {name!r}: {exc}", 422) from None
            cached = (mtime, cached[1], True)
        with self._lock:
            self._cache[name] = cached
        return cached[1]

    def summary(self, name: str) -> dict[str, Any]:
        """What the list shows of a replay (read, not replayed: a long list stays quick)."""
        try:
            r = self.get(name, check=False)
        except RequestError as exc:
            return {"name": name, "error": str(exc)}
        return {"name": name, "env": r.env, "players": r.num_players, "agents": list(r.agents),
                "moves": len(r.actions), "finished": r.finished,
                "scores": None if r.scores is None else list(r.scores)}


def replay_frame(shelf: ReplayShelf, name: str, move: Any, view: Any) -> dict[str, Any]:
    """One position of a replay from one point of view (see :func:`picture_payload`)."""
    replay = shelf.get(name)
    spec = replay.spec
    moves = len(replay.actions)
    try:
        index = int(move) if move not in (None, "") else 0
    except (TypeError, ValueError):
        raise RequestError(f"move={move!r}; allowed: an integer 0..{moves}") from None
    if not 0 <= index <= moves:
        raise RequestError(f"move={index}; allowed: 0..{moves}")
    seat, reveal_all = parse_view(view, spec.num_players)
    core = replay.core_at(index)
    if index < moves:
        caption = f"move {index + 1}/{moves}: {replay.move_text(int(core.current[0]), replay.actions[index])}"
    else:
        caption = "end - scores: " + ", ".join(f"seat {p} ({n}): {int(s)}" for p, (n, s)
                                              in enumerate(zip(replay.agents, core.scores[0])))
    return {"name": name, "env": spec.name, "title": spec.title or spec.name, "players": spec.num_players,
            "agents": list(replay.agents), "move": index, "moves": moves, "caption": caption,
            "view": "all" if reveal_all else "public" if seat is None else f"seat:{seat}",
            **picture_payload(spec, core, seat, reveal_all)}


# ---------------------------------------------------------------------------------------------- live games


def bot_names(env: str) -> list[str]:
    """The agents a page may seat for ``env``: the registered names (no file paths, no imports)."""
    import agents

    return [name for name in agents.available(env) if name not in agents.PATH_AGENTS]


def check_bot(env: str, spec_text: Any) -> str:
    """A bot spec a page may use: a registered agent name, optionally with arguments (``risk_caller:0.6``);
    user agents by import path and checkpoint paths are refused (a page must not make the server
    import code or read files)."""
    allowed = bot_names(env)
    if not isinstance(spec_text, str) or spec_text.split(":", 1)[0].strip() not in allowed:
        raise RequestError(f"bot {spec_text!r} for {env}; allowed: {', '.join(allowed)} (with arguments, e.g. "
                           f"risk_caller:0.6, where the agent takes them)")
    return spec_text.strip()


@dataclasses.dataclass
class LiveGame:
    """One game in progress: a person at ``seat``, bots on the other seats."""

    id: str
    spec: Any
    core: Any
    seat: int
    seed: int
    names: list[str]
    bots: dict[int, Any]
    actions: list[int] = dataclasses.field(default_factory=list)
    log: list[str] = dataclasses.field(default_factory=list)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    keys: dict[int, str] = dataclasses.field(default_factory=dict)
    """The key of each action, as the terminal game (``training.play``) names it for this seat."""

    def __post_init__(self):
        if not self.keys:
            from .terminal import view_for

            self.keys = dict(view_for(self.spec, self.core, self.seat).keys)

    @property
    def over(self) -> bool:
        return bool(self.core.done[0])

    def play(self, action: int) -> None:
        """Plays one move at ``seat``'s decision, then the bots until the person decides again or the
        game ends."""
        self._move(self.seat, action, "you")
        self.play_bots()

    def play_bots(self) -> None:
        for _ in range(MAX_BOT_MOVES):
            core = self.core
            if self.over or int(core.current[0]) == self.seat:
                return
            seat = int(core.current[0])
            chosen = np.asarray(self.bots[seat].act(core.observe(seat), core.legal_mask.copy())).reshape(-1)
            self._move(seat, int(chosen[0]), self.names[seat])
        raise RuntimeError(f"the bots made {MAX_BOT_MOVES} moves in a row; the game is stuck")

    def _move(self, seat: int, action: int, who: str) -> None:
        spec, core = self.spec, self.core
        if spec.describe_move is not None:
            seen = spec.describe_move(core, 0, seat, action)
        else:
            name = spec.action_name(action)
            seen = lambda core: name  # noqa: E731
        core.step(np.array([action], np.int64))
        self.actions.append(action)
        self.log.append(f"seat {seat} ({who}): {seen(core)}")
        del self.log[:-LOG_LINES]

    def state(self) -> dict[str, Any]:
        """What the person's page shows: their seat's picture and observation, their legal moves."""
        spec, core = self.spec, self.core
        over = self.over
        to_act = None if over else int(core.current[0])
        legal = [] if over or to_act != self.seat else [
            {"id": int(a), "name": spec.action_name(int(a)), "key": self.keys.get(int(a), spec.action_name(int(a)))}
            for a in np.flatnonzero(core.legal_mask[0])]
        state = {"id": self.id, "env": spec.name, "title": spec.title or spec.name, "players": spec.num_players,
                 "seat": self.seat, "agents": self.names, "to_act": to_act, "over": over, "legal": legal,
                 "moves": len(self.actions), "log": list(self.log),
                 **picture_payload(spec, core, self.seat, False, targets=bool(legal))}
        if over:
            scores = [int(s) for s in core.scores[0]]
            winners = spec.winners(core)[0] if core.terminated[0] else np.zeros(spec.num_players, bool)
            state["scores"] = scores
            state["result"] = ("You win!" if winners[self.seat] else "You did not win this time.") if \
                core.terminated[0] else "The game was cut off (max_turns)."
        return state

    def replay(self):
        """The game so far as a :class:`~keine_ahnung_env.replay.Replay`."""
        from keine_ahnung_env.replay import Replay

        return Replay.record(self.spec, self.core, 0, self.seed, 0, self.names, self.actions,
                             note="python -m training.viewer")


class LiveGames:
    """The live games of a server, by id (kept in memory, the oldest dropped beyond MAX_SESSIONS)."""

    def __init__(self, record_dir: Path | None = None):
        self.games: dict[str, LiveGame] = {}
        self.lock = threading.Lock()
        self.record_dir = record_dir
        self._counter = itertools.count()

    def start(self, body: Any) -> LiveGame:
        import agents
        from keine_ahnung_env import registry

        body = _body(body, {"env", "players", "seat", "bots", "seed"}, required={"env"})
        env = body["env"]
        if env not in registry.games():
            raise RequestError(f"env={env!r}; allowed: {', '.join(registry.games())}")
        entry = registry.game(env)
        players = body.get("players", entry.default_players)
        bots_given = body.get("bots")
        if bots_given is not None:
            if not isinstance(bots_given, list) or not bots_given:
                raise RequestError(f"bots={bots_given!r}; allowed: a list of agent names, one per other seat")
            players = body.get("players", len(bots_given) + 1)
        if isinstance(players, bool) or not isinstance(players, int) or players not in entry.players:
            raise RequestError(f"players={players!r}; allowed: {entry.min_players}-{entry.max_players} for {env}")
        spec = registry.game_spec(env, players)
        if spec.scene is None:
            raise RequestError(f"{env} draws no pictures (its GameSpec has no scene); it cannot be played here")
        if bots_given is None:
            bots_given = [spec.default_opponent] * (players - 1)
        if len(bots_given) != players - 1:
            raise RequestError(f"bots: {len(bots_given)} given for {players} players; allowed: {players - 1}, "
                               f"one per other seat")
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise RequestError(f"seat={seat!r}; allowed: 0..{players - 1}")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**32 - 1:
            raise RequestError(f"seed={seed!r}; allowed: an integer 0..{2**32 - 1} or null (a random deal)")
        others = [s for s in range(players) if s != seat]
        bots, names = {}, ["you"] * players
        for i, (s, text) in enumerate(zip(others, bots_given)):
            text = check_bot(env, text)
            # A shipped checkpoint is checked against the table it is seated at; a shipped name
            # (learned, search) picks the agent of that table size.
            shipped = text.startswith("ppo") or text.split(":")[0] in SHIPPED_ROLES
            kwargs = {"num_players": players} if shipped else {}
            try:
                bots[s] = agents.make(text, game=env, seed=seed + 1 + i, **kwargs)
            except (TypeError, ValueError) as exc:
                raise RequestError(f"bot {text!r}: {exc}") from None
            names[s] = text
        core = spec.make_core(1, 0)
        core.seed(seed, game_ids=[0])
        core.reset_games(np.zeros(1, np.intp))
        game = LiveGame(id=f"{next(self._counter)}-{secrets.token_hex(8)}", spec=spec, core=core, seat=seat, seed=seed,
                        names=names, bots=bots)
        game.play_bots()
        with self.lock:
            self.games[game.id] = game
            while len(self.games) > MAX_SESSIONS:
                self.games.pop(next(iter(self.games)))
        self._record(game)
        return game

    def get(self, game_id: str) -> LiveGame:
        with self.lock:
            game = self.games.get(game_id)
        if game is None:
            raise RequestError(f"no live game {game_id!r} (it ended with the server, or was never started); "
                               "start one with POST /api/play", 404)
        return game

    def act(self, game_id: str, body: Any) -> LiveGame:
        game = self.get(game_id)
        body = _body(body, {"action"}, required={"action"})
        action = body["action"]
        with game.lock:
            spec, core = game.spec, game.core
            if game.over:
                raise RequestError("the game is over; start a new one with POST /api/play", 409)
            if int(core.current[0]) != game.seat:
                raise RequestError(f"it is seat {int(core.current[0])}'s turn, not yours (seat {game.seat})", 409)
            legal = np.flatnonzero(core.legal_mask[0]).tolist()
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                raise RequestError(f"action={action!r} is not legal now; legal: {spec.legal_names(core.legal_mask[0])}")
            game.play(action)
        self._record(game)
        return game

    def _record(self, game: LiveGame) -> None:
        if self.record_dir is not None and game.over:
            replay = game.replay()
            replay.save(self.record_dir / f"viewer_{replay.env}_{replay.num_players}p_seed{replay.seed}.json")


def _body(body: Any, allowed: set[str], required: set[str] = frozenset()) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object (Content-Type: application/json)")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise RequestError(f"unknown field(s) {unknown}; allowed: {', '.join(sorted(allowed))}")
    missing = sorted(required - set(body))
    if missing:
        raise RequestError(f"missing field(s) {missing}; required: {', '.join(sorted(required))}")
    return body


# ---------------------------------------------------------------------------------------------- the app


def create_app(replays: str | Path = "replays", record: bool = False):
    """The Flask app: the page at ``/`` and its JSON API under ``/api`` (see the module docstring).
    ``record``: finished live games are written as replays into the ``replays`` folder."""
    from flask import Flask, jsonify, request
    from werkzeug.exceptions import HTTPException

    from keine_ahnung_env import registry

    shelf = ReplayShelf(Path(replays))
    live = LiveGames(Path(replays) if record else None)
    if record:
        Path(replays).mkdir(parents=True, exist_ok=True)
    app = Flask(__name__)
    app.config["JSON_SORT_KEYS"] = False
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    app.config["LIVE_GAMES"] = live  # the games in progress (read by tests)

    @app.errorhandler(RequestError)
    def request_error(exc: RequestError):
        return jsonify({"error": str(exc)}), exc.status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return jsonify({"error": f"{exc.code} {exc.name}: {exc.description}"}), exc.code

    @app.get("/")
    def page():
        return PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}

    @app.get("/api/replays")
    def replays_list():
        return jsonify({"folder": str(shelf.folder), "replays": [shelf.summary(n) for n in shelf.names()]})

    @app.get("/api/replays/<name>")
    def replays_frame(name: str):
        unknown = sorted(set(request.args) - {"move", "view"})
        if unknown:
            raise RequestError(f"unknown parameter(s) {unknown}; allowed: move, view")
        return jsonify(replay_frame(shelf, name, request.args.get("move"), request.args.get("view")))

    @app.get("/api/games")
    def games():
        out = []
        for name in registry.games():
            entry = registry.game(name)
            spec = entry.spec()
            if spec.scene is None:
                continue
            out.append({"env": name, "title": entry.title or name, "min_players": entry.min_players,
                        "max_players": entry.max_players, "default_players": entry.default_players,
                        "bots": bot_names(name), "default_bot": spec.default_opponent})
        names = [g["env"] for g in out]
        default = DEFAULT_GAME if DEFAULT_GAME in names else (names[0] if names else None)
        return jsonify({"games": out, "default": default})

    @app.post("/api/play")
    def play_start():
        return jsonify(live.start(request.get_json(silent=True)).state())

    @app.get("/api/play/<game_id>")
    def play_state(game_id: str):
        return jsonify(live.get(game_id).state())

    @app.post("/api/play/<game_id>/act")
    def play_act(game_id: str):
        return jsonify(live.act(game_id, request.get_json(silent=True)).state())

    return app


def make_server(app, port: int = DEFAULT_PORT):
    """A threaded werkzeug server for ``app`` on 127.0.0.1 (port 0: a free port; ``server.port``)."""
    from werkzeug.serving import make_server as werkzeug_server

    return werkzeug_server(HOST, port, app, threaded=True)


def build_parser() -> Parser:
    parser = Parser(PROG, description=__doc__.split("\n\n")[0], examples=EXAMPLES)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="P",
                        help=f"the port on {HOST} (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--replays", default="replays", metavar="DIR", help="the folder of replay files listed")
    parser.add_argument("--record", action="store_true",
                        help="also write every game played in the browser to the end into --replays")
    return parser


def run(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    with user_errors():
        if not 0 <= args.port <= 65535:
            raise UsageError(f"--port {args.port}; allowed: 0-65535")
        folder = Path(args.replays)
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"--replays {args.replays}; allowed: a folder (this is a file)")
        if args.port:
            import socket

            with socket.socket() as probe:  # werkzeug would exit with its own message instead
                try:
                    probe.bind((HOST, args.port))
                except OSError as exc:
                    raise UsageError(f"--port {args.port}: cannot listen on {HOST}:{args.port} "
                                     f"({exc.strerror or exc}); allowed: a free port, or 0 for any") from None
        server = make_server(create_app(folder, record=args.record), args.port)
    count = len(ReplayShelf(folder).names())
    print(f"viewer on http://{HOST}:{server.port}/  ({count} replays in {folder}; Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: a user's mistake exits with status 2 and one line ``error: ...`` on stderr."""
    run_command(run, argv)


if __name__ == "__main__":
    main()
