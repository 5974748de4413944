"""Agents for every registered game, and a registry by name.

    import agents
    agent = agents.make("greedy", game="keine_ahnung_v0", seed=0)
    agent = agents.make("risk_caller:0.6")              # a spec: name, then ':'-separated arguments
    agent = agents.make("risk_caller", threshold=0.6)   # the same with keywords
    agents.available("keine_ahnung_v0")                 # ['always_call', 'counter', ...]

Every agent has one batched method ``act(observation [B, O], action_mask [B, A]) -> int64 [B]``, a
``name``, and a seedable generator (``seed=`` here, ``reseed(seed)`` later).

Where agents come from: ``random`` and ``ppo`` (a trained checkpoint) serve every game; each game's
heuristic agents live in the game's folder and are declared in its spec (``GameSpec.agents``; Keine
Ahnung: ``keine_ahnung_env/games/keine_ahnung/agents.py``), and the named agents it ships (trained
models, a tuned search: Keine Ahnung's ``ppo_4p``, ``advantage_4p``, ``ismcts_4p``, ...) in its
declaration (``GameDeclaration.presets``, ``games/<game>/game.py``); :func:`register` adds more for a game.
Two generic names reach a game's shipped agents: ``learned`` and ``search`` build the preset the game's
declaration ships for the table size at hand (``GameDeclaration.shipped``; ``num_players=``, else the game's
default player count), e.g. ``agents.make("learned", game="gap_v0", num_players=4)``; where it ships none,
a ValueError names what it ships (:func:`shipped_preset`).
``game=`` takes any game of :mod:`keine_ahnung_env.registry`.

Player count: the heuristic Keine Ahnung agents infer it from the observation width on every call,
so one agent object plays any table size. ``make`` also accepts ``num_players=`` (and ``rules=``, a
dict of rules options): the heuristic agents then refuse observations of another table size, and a PPO
checkpoint trained for another variant is refused when it is built. A non-default deck is passed as
``deck=`` (or inside ``rules``).

Spec strings: ``name`` or ``name:arg1:arg2`` (positional, in the order of the entry's
``positional`` parameters) or ``name:key=value``. Numbers are parsed as int or float where they
look like one. ``ppo:path/to/checkpoint`` loads a checkpoint (``agents/ppo.py``) safely, and
``rllib:path/to/policy.npz`` a policy trained on Ray RLlib (``agents/rllib.py``; Ray is not needed to play),
``advantage:path/to/model.npz`` a heuristic overruled by a network of roll-out advantages
(``agents/advantage.py``, trained by ``python -m training.advantage``).

Your own agent, by its Python import path (the rule that tells it from ``name:arg``):

* ``py:MODULE:ATTRIBUTE[:key=value...]`` always names a user agent (``py:my_agent:MyAgent`` for a
  top-level module ``my_agent``);
* ``PKG.MODULE:ATTRIBUTE[:key=value...]``, where the part before the first ``:`` contains a ``.``
  and is not a registered name, is the same without the prefix (``my_pkg.bots:Agent:depth=2``).

``ATTRIBUTE`` (dotted for a nested one) is a class or factory, called as ``factory(seed=seed,
**kwargs)`` with the spec's ``key=value`` arguments; the context keywords ``num_players``, ``rules``
and ``game`` that commands pass are handed on only where the factory accepts them. It may also be a
ready agent object (one with ``act``, e.g. ``my_agent = agents.batched(my_function)``), used as it is
and reseeded with ``seed`` where it has ``reseed``. What it builds needs the batched ``act(observation,
action_mask)``; a one-observation-at-a-time agent (a function or an object with ``act(obs, mask) ->
int``) becomes one with :func:`batched`. A module that cannot be imported, a missing attribute or an
object without ``act`` is a ValueError. Module paths, not files: put the module's folder on
``PYTHONPATH``. The module is imported in this process: it is your code, run by your choice, as
``python -m`` would. Nothing named inside a file the library reads (a checkpoint, a result JSON) is
ever imported.

Installed packages publish agents under the entry-point group ``keine_ahnung_env.agents``
(:data:`ENTRY_POINT_GROUP`; ``[project.entry-points."keine_ahnung_env.agents"] my_bot =
"my_pkg.bots:make"``): each entry-point name is then an agent name for every game, built like a
registered one (``my_bot``, ``my_bot:key=value``). A built-in or registered name wins over an entry
point of the same name. The entry points are read once per process
(``installed_entry_points.cache_clear()`` reads them again).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import re
from typing import Any, Callable, Mapping

from keine_ahnung_env import registry
from keine_ahnung_env.game_declaration import SHIPPED_ROLES

from .base import Agent, RandomAgent, batched, sample_masked

__all__ = ["Agent", "RandomAgent", "sample_masked", "batched", "make", "available", "describe", "parse_spec",
           "register", "unregister", "is_user_spec", "installed_entry_points", "ENTRY_POINT_GROUP", "SHIPPED_ROLES",
           "shipped_preset"]

DEFAULT_GAME = registry.DEFAULT_GAME
ENTRY_POINT_GROUP = "keine_ahnung_env.agents"
"""The entry-point group under which installed packages publish agents (name -> factory)."""
PATH_AGENTS = ("ppo", "rllib", "advantage")
"""Agents whose first argument is a file path (kept whole, ':' included), told the game they must fit."""
USER_PREFIX = "py:"
"""The prefix of a spec that names a user agent by import path: ``py:module:attribute``."""


@dataclasses.dataclass(frozen=True)
class _Entry:
    """A registered agent: how to build it and what its spec arguments are called."""

    factory: Callable[..., Any] | str  # a callable, or "module:attr|other_attr" resolved on first use
    positional: tuple[str, ...] = ()
    description: str = ""
    bound: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """keyword arguments every build passes (``AgentInfo.bound``); a spec or caller may not set them."""

    def resolve(self) -> Callable[..., Any]:
        if callable(self.factory):
            return self.factory
        module, attribute = self.factory.split(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and (exc.name == module or module.startswith(exc.name + ".")):
                raise ValueError(f"agent factory {self.factory!r} cannot be built: module {module!r} does not exist") \
                    from exc
            raise
        for candidate in attribute.split("|"):
            if hasattr(mod, candidate):
                return getattr(mod, candidate)
        raise ValueError(f"module {module!r} defines none of {attribute.split('|')}; one is needed to build the agent")


_COMMON: dict[str, _Entry] = {}
"""Agents that play every game."""
_ADDED: dict[str, dict[str, _Entry]] = {}
"""Agents added with ``register`` for one game."""


def register(name: str, factory: Callable[..., Any] | str, game: str | None = DEFAULT_GAME,
             positional: tuple[str, ...] = (), description: str = "") -> None:
    """Adds an agent constructor under ``name`` for ``game`` (``None``: every game). ``factory`` is called
    as ``factory(seed=seed, **kwargs)``; a ``"module:attribute"`` string is imported on first use."""
    entry = _Entry(factory, tuple(positional), description)
    if game is None:
        _COMMON[name] = entry
    else:
        _game_entry(game)
        _ADDED.setdefault(game, {})[name] = entry


def unregister(name: str, game: str | None = DEFAULT_GAME) -> None:
    """Removes an agent added with :func:`register` (a game's own agents stay)."""
    (_COMMON if game is None else _ADDED.get(game, {})).pop(name, None)


def _game_entry(game: str):
    return registry.game(game)  # ValueError listing the registered games


class _EntryPointFactory:
    """An installed package's agent (an entry point of :data:`ENTRY_POINT_GROUP`), loaded on first use."""

    def __init__(self, entry_point: Any):
        self.entry_point = entry_point

    def __call__(self, **kwargs: Any) -> Any:
        try:
            factory = self.entry_point.load()
        except Exception as exc:  # the package's import failed: say which agent and why
            raise ValueError(f"agent {self.entry_point.name!r} (entry point {self.entry_point.value!r} of "
                             f"{ENTRY_POINT_GROUP}) cannot be loaded: {type(exc).__name__}: {exc}") from exc
        return _call_factory(factory, kwargs, f"entry point {self.entry_point.name!r}")


@functools.lru_cache(maxsize=1)
def installed_entry_points() -> tuple[Any, ...]:
    """The entry points of :data:`ENTRY_POINT_GROUP` (read once per process; ``.cache_clear()`` reads
    them again). Names containing ``.``, ``:``, ``,`` or ``=`` are skipped: a spec could not name them."""
    from importlib.metadata import entry_points

    try:
        found = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # a broken distribution's metadata must not break the built-in agents
        return ()
    return tuple(ep for ep in found if ep.name and not any(c in ep.name for c in ".:,="))


def _entry_points() -> dict[str, _Entry]:
    """The agents installed packages publish (names only; nothing is imported here)."""
    return {ep.name: _Entry(_EntryPointFactory(ep), description=f"installed: {ep.value}")
            for ep in installed_entry_points()}


def _check_game(game: str) -> dict[str, _Entry]:
    """Every agent offered for ``game``: installed packages' entry points, then the common ones, the
    game's own (its heuristics, ``GameSpec.agents``, and its presets, ``GameDeclaration.presets``) and
    added ones (a later one wins a name)."""
    entry = _game_entry(game)
    own = {**entry.spec().agents, **entry.presets}
    table = _entry_points()
    table.update(_COMMON)
    table.update(_shipped_entries(entry))
    table.update({name: _Entry(info.factory, tuple(info.positional), info.description, info.bound)
                  for name, info in own.items()})
    table.update(_ADDED.get(game, {}))
    return table


def _shipped_entries(entry) -> dict[str, _Entry]:
    """``learned`` and ``search`` for the game of ``entry``: each builds the preset its declaration
    ships for the table size at hand (``GameDeclaration.shipped``)."""
    def where(role: str) -> str:
        sizes = [f"{entry.shipped[p][role]} at {p} players" for p in sorted(entry.shipped) if role in entry.shipped[p]]
        return "; ".join(sizes) if sizes else "none yet"

    return {role: _Entry(functools.partial(_make_shipped, role),
                         description=f"the game's shipped {role} agent for the table size at hand ({where(role)})")
            for role in SHIPPED_ROLES}


def shipped_preset(role: str, game: str = DEFAULT_GAME, num_players: int | None = None) -> str:
    """The preset that ``role`` (``"learned"`` or ``"search"``) stands for in ``game`` at ``num_players``
    (None: the game's default player count). ValueError naming what the game ships where it ships none."""
    if role not in SHIPPED_ROLES:
        raise ValueError(f"shipped agent kind {role!r}; allowed: {', '.join(SHIPPED_ROLES)}")
    entry = _game_entry(game)
    size = entry.default_players if num_players is None else int(num_players)
    preset = entry.shipped.get(size, {}).get(role)
    if preset is None:
        offered = [f"{r} at {p} players" for p in sorted(entry.shipped) for r in SHIPPED_ROLES if r in entry.shipped[p]]
        raise ValueError(f"no shipped {role!r} agent for {game} at {size} players; shipped: "
                         f"{', '.join(offered) if offered else 'none'}")
    return preset


def _make_shipped(role: str, seed: int | None = None, game: str = DEFAULT_GAME, num_players: int | None = None,
                  **kwargs: Any):
    """``agents.make("learned" | "search", game=..., num_players=...)``: the game's shipped preset."""
    preset = shipped_preset(role, game, num_players)
    if num_players is not None:
        kwargs["num_players"] = num_players
    return make(preset, game=game, seed=seed, **kwargs)


def available(game: str = DEFAULT_GAME) -> list[str]:
    """The agent names offered for ``game``, sorted."""
    return sorted(_check_game(game))


def describe(game: str = DEFAULT_GAME) -> dict[str, str]:
    """``{name: description}`` of the agents offered for ``game``."""
    return {name: entry.description for name, entry in sorted(_check_game(game).items())}


def _literal(text: str) -> Any:
    """A spec value: int, float, true/false (any case) as bool, none as None, else the string."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    words = {"true": True, "false": False, "none": None}
    return words.get(text.lower(), text)


def is_user_spec(spec: str, game: str = DEFAULT_GAME) -> bool:
    """Whether ``spec`` names a user agent by import path: it starts with ``py:``, or the part before
    its first ``:`` contains a ``.`` and is not a registered name (see the module docstring)."""
    if not isinstance(spec, str):
        return False
    text = spec.strip()
    if text.startswith(USER_PREFIX):
        return True
    head = text.split(":", 1)[0]
    return "." in head and ":" in text and head not in _check_game(game)


_MODULE_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _parse_user_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``(module, attribute, kwargs)`` of a user spec ``[py:]module:attribute[:key=value...]``."""
    text = spec.strip()
    body = text[len(USER_PREFIX):] if text.startswith(USER_PREFIX) else text
    module, _, rest = body.partition(":")
    attribute, *args = rest.split(":") if rest else ("",)
    example = "py:my_agent:MyAgent or my_pkg.bots:MyAgent:depth=2"
    if module.endswith(".py") or "/" in module or "\\" in module:
        raise ValueError(f"agent spec {spec!r}: {module!r} is a file, not a module path; put its folder on "
                         f"PYTHONPATH and name the module, e.g. py:{module.rsplit('/', 1)[-1].removesuffix('.py')}:"
                         f"{attribute or 'MyAgent'}")
    if not _MODULE_PATH.fullmatch(module) or not attribute or not _MODULE_PATH.fullmatch(attribute):
        raise ValueError(f"agent spec {spec!r}; a user agent is module:attribute[:key=value...], e.g. {example}")
    kwargs: dict[str, Any] = {}
    for arg in args:
        if "=" not in arg:
            raise ValueError(f"agent spec {spec!r}: argument {arg!r} of a user agent must be key=value "
                             "(user agents take keywords only)")
        key, value = arg.split("=", 1)
        kwargs[key.strip()] = _literal(value.strip())
    return module, attribute, kwargs


def _import_attribute(module: str, attribute: str, spec: str) -> Any:
    """``module.attribute`` (dotted attribute paths too); ValueError when the import or a lookup fails."""
    try:
        target = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == module or module.startswith(exc.name + ".")):
            raise ValueError(f"agent spec {spec!r}: no module named {exc.name!r} (is its folder on PYTHONPATH?)") \
                from exc
        raise ValueError(f"agent spec {spec!r}: importing {module!r} failed: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # the user's module raised while importing
        raise ValueError(f"agent spec {spec!r}: importing {module!r} failed: {type(exc).__name__}: {exc}") from exc
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent spec {spec!r}: {getattr(target, '__name__', module)!r} has no attribute {part!r}")
        target = getattr(target, part)
    return target


_CONTEXT_KEYWORDS = ("num_players", "rules", "game")
"""Keywords commands pass to every agent: handed to a user factory only where it accepts them."""


def _call_factory(factory: Any, kwargs: dict[str, Any], what: str) -> Any:
    """Builds an agent from a user factory (or takes a ready agent object as it is) and checks it has
    ``act``."""
    seed = kwargs.pop("seed", None)
    if not isinstance(factory, type) and callable(getattr(factory, "act", None)):
        agent = factory  # a ready agent object, e.g. agents.batched(my_function)
        extra = {k: v for k, v in kwargs.items() if k not in _CONTEXT_KEYWORDS}
        if extra:
            raise ValueError(f"{what} is an agent object, not a factory; it takes no arguments (got {extra})")
        if seed is not None and callable(getattr(agent, "reseed", None)):
            agent.reseed(seed)
    else:
        if not callable(factory):
            raise ValueError(f"{what} is a {type(factory).__name__}, neither an agent (an object with "
                             "act(observation, action_mask)) nor a class or factory building one")
        try:
            parameters = inspect.signature(factory).parameters.values()
            open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
            accepted = {p.name for p in parameters}
        except (TypeError, ValueError):  # no signature (a builtin): pass everything
            open_ended, accepted = True, set()
        call = {k: v for k, v in kwargs.items() if open_ended or k in accepted or k not in _CONTEXT_KEYWORDS}
        if open_ended or "seed" in accepted:
            call["seed"] = seed
        try:
            agent = factory(**call)
        except TypeError as exc:
            raise ValueError(f"{what} rejected its arguments {call}: {exc}") from exc
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{what} built a {type(agent).__name__} without an act(observation, action_mask) method; "
                         "a one-observation-at-a-time agent (act(obs, mask) -> int, or a function) is wrapped with "
                         "agents.batched(...)")
    if not isinstance(getattr(agent, "name", None), str):
        try:
            agent.name = getattr(factory, "__name__", type(agent).__name__)
        except AttributeError:
            pass
    return agent


def parse_spec(spec: str, game: str = DEFAULT_GAME) -> tuple[str, dict[str, Any]]:
    """Splits ``"name:arg:key=value"`` into ``(name, kwargs)`` using the entry's positional names.

    A user agent's spec (``[py:]module:attribute[:key=value...]``, see :func:`is_user_spec`) gives
    ``("module:attribute", kwargs)`` without importing anything. Raises ValueError for an unknown
    name (listing the available ones) or too many positional arguments."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {spec!r}; expected a non-empty string such as 'greedy' or 'risk_caller:0.6'")
    if is_user_spec(spec, game):
        module, attribute, kwargs = _parse_user_spec(spec)
        return f"{module}:{attribute}", kwargs
    registry = _check_game(game)
    name, *args = spec.strip().split(":")
    if name in PATH_AGENTS and args and "=" not in args[0]:
        # A checkpoint path may itself contain ':' (e.g. a Windows drive): keep it whole, taking only
        # trailing key=value segments (ppo:runs/x.zip:deterministic=False) as keywords.
        keywords = []
        while len(args) > 1 and re.fullmatch(r"[A-Za-z_]\w*=.*", args[-1]):
            keywords.insert(0, args.pop())
        args = [":".join(args)] + keywords
    if name not in registry:
        raise ValueError(f"unknown agent {name!r} for {game}; available: {', '.join(available(game))}")
    entry = registry[name]
    kwargs: dict[str, Any] = {}
    positional = [a for a in args if "=" not in a]
    if len(positional) > len(entry.positional):
        allowed = ", ".join(entry.positional) if entry.positional else "none"
        raise ValueError(f"agent spec {spec!r} has {len(positional)} positional argument(s); "
                         f"{name!r} takes: {allowed}")
    for key, value in zip(entry.positional, positional):
        kwargs[key] = value if name in PATH_AGENTS else _literal(value)
    for arg in args:
        if "=" in arg:
            key, value = arg.split("=", 1)
            kwargs[key.strip()] = _literal(value.strip())
    return name, kwargs


def make(name: str, game: str | None = None, seed: int | None = None, **kwargs: Any):
    """Builds the agent registered as ``name`` (or a spec such as ``"risk_caller:0.6"``) for ``game``.

    ``game`` omitted: the game a path agent's spec names (``ppo:m.zip:env=gap_v0:players=3``), else
    ``keine_ahnung_v0``. Keyword arguments go to the agent's constructor (they override spec
    arguments). Raises ValueError for an unknown game or agent name (listing what is available) and
    for bad arguments.
    """
    if game is None:
        game = DEFAULT_GAME
        if isinstance(name, str) and name.strip().split(":")[0] in PATH_AGENTS:
            game = str(parse_spec(name, game)[1].get("env", game)).strip()
    if is_user_spec(name, game):
        module, attribute, spec_kwargs = _parse_user_spec(name)
        spec_kwargs.update(kwargs)
        factory = _import_attribute(module, attribute, name)
        agent = _call_factory(factory, {**spec_kwargs, "seed": seed, "game": game}, f"agent {name.strip()!r}")
        try:
            agent.name = name.strip()  # tables label it by its spec
        except AttributeError:
            pass
        return agent
    spec_name, spec_kwargs = parse_spec(name, game)
    spec_kwargs.update(kwargs)
    if spec_name in _GAME_AWARE:
        spec_kwargs.setdefault("game", game)
    entry = _check_game(game)[spec_name]
    factory = entry.resolve()
    if isinstance(factory, _EntryPointFactory):
        spec_kwargs.setdefault("game", game)
    fixed = sorted(set(entry.bound) & set(spec_kwargs))
    if fixed:
        raise ValueError(f"agent {spec_name!r} fixes {', '.join(fixed)}; "
                         f"leave {'it' if len(fixed) == 1 else 'them'} out")
    try:
        agent = factory(seed=seed, **entry.bound, **spec_kwargs)
    except TypeError as exc:
        raise ValueError(f"agent {spec_name!r} rejected its arguments {spec_kwargs}: {exc}") from exc
    if isinstance(factory, _EntryPointFactory) or (":" in name and getattr(agent, "name", None) == spec_name):
        try:
            agent.name = name.strip()  # tables label it by its spec
        except AttributeError:
            pass
    return agent


_GAME_AWARE = PATH_AGENTS + ("ismcts",) + SHIPPED_ROLES
"""Agents for every game whose factory is told the game it plays (``game=``)."""


def _random(seed=None, num_players=None, rules=None, **kwargs):
    if kwargs:
        raise TypeError(f"unexpected arguments {sorted(kwargs)}")
    return RandomAgent(seed)


register("random", _random, game=None, description="uniform over legal actions")
register("ppo", "agents.ppo:make_agent", game=None, positional=("path",), description="a trained PPO checkpoint")
register("rllib", "agents.rllib:make_agent", game=None, positional=("path",),
         description="a policy trained on Ray RLlib (training.train_rllib's .npz export)")
register("advantage", "agents.advantage:make_agent", game=None, positional=("path",),
         description="a heuristic overruled by a network of roll-out advantages (training.advantage's model)")
register("ismcts", "agents.ismcts:make_agent", game=None,
         description="determinized search over belief-sampled states, counter roll-outs (agents/ismcts.py)")
