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
Ahnung: ``keine_ahnung_env/games/keine_ahnung/agents.py``); :func:`register` adds more for a game.
``game=`` takes any game of :mod:`keine_ahnung_env.registry`.

Player count: the heuristic Keine Ahnung agents infer it from the observation width on every call,
so one agent object plays any table size. ``make`` also accepts ``num_players=`` (and ``rules=``, a
dict of rules options): the heuristic agents then refuse observations of another table size, and a PPO
checkpoint trained for another variant is refused when it is built. A non-default deck is passed as
``deck=`` (or inside ``rules``).

Spec strings: ``name`` or ``name:arg1:arg2`` (positional, in the order of the entry's
``positional`` parameters) or ``name:key=value``. Numbers are parsed as int or float where they
look like one. ``ppo:path/to/checkpoint`` loads a checkpoint (``agents/ppo.py``) safely.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import Any, Callable

from .base import Agent, RandomAgent, sample_masked

__all__ = ["Agent", "RandomAgent", "sample_masked", "make", "available", "describe", "parse_spec", "register",
           "unregister"]

DEFAULT_GAME = "keine_ahnung_v0"


@dataclasses.dataclass(frozen=True)
class _Entry:
    """A registered agent: how to build it and what its spec arguments are called."""

    factory: Callable[..., Any] | str  # a callable, or "module:attr|other_attr" resolved on first use
    positional: tuple[str, ...] = ()
    description: str = ""

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
    from keine_ahnung_env import registry

    return registry.game(game)  # ValueError listing the registered games


def _check_game(game: str) -> dict[str, _Entry]:
    """Every agent offered for ``game``: the common ones, the game's own (its spec), then added ones."""
    entry = _game_entry(game)
    own = entry.spec().agents
    table = dict(_COMMON)
    table.update({name: _Entry(info.factory, tuple(info.positional), info.description) for name, info in own.items()})
    table.update(_ADDED.get(game, {}))
    return table


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


def parse_spec(spec: str, game: str = DEFAULT_GAME) -> tuple[str, dict[str, Any]]:
    """Splits ``"name:arg:key=value"`` into ``(name, kwargs)`` using the entry's positional names.

    Raises ValueError for an unknown name (listing the available ones) or too many positional
    arguments."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {spec!r}; expected a non-empty string such as 'greedy' or 'risk_caller:0.6'")
    registry = _check_game(game)
    name, *args = spec.strip().split(":")
    if name == "ppo" and args and "=" not in args[0]:
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
        kwargs[key] = value if name == "ppo" else _literal(value)
    for arg in args:
        if "=" in arg:
            key, value = arg.split("=", 1)
            kwargs[key.strip()] = _literal(value.strip())
    return name, kwargs


def make(name: str, game: str = DEFAULT_GAME, seed: int | None = None, **kwargs: Any):
    """Builds the agent registered as ``name`` (or a spec such as ``"risk_caller:0.6"``) for ``game``.

    Keyword arguments go to the agent's constructor (they override spec arguments). Raises ValueError
    for an unknown game or agent name (listing what is available) and for bad arguments.
    """
    spec_name, spec_kwargs = parse_spec(name, game)
    spec_kwargs.update(kwargs)
    if spec_name == "ppo":
        spec_kwargs.setdefault("game", game)
    entry = _check_game(game)[spec_name]
    factory = entry.resolve()
    try:
        agent = factory(seed=seed, **spec_kwargs)
    except TypeError as exc:
        raise ValueError(f"agent {spec_name!r} rejected its arguments {spec_kwargs}: {exc}") from exc
    if ":" in name and getattr(agent, "name", None) == spec_name:
        agent.name = name.strip()
    return agent


def _random(seed=None, num_players=None, rules=None, **kwargs):
    if kwargs:
        raise TypeError(f"unexpected arguments {sorted(kwargs)}")
    return RandomAgent(seed)


register("random", _random, game=None, description="uniform over legal actions")
register("ppo", "agents.ppo:make_agent", game=None, positional=("path",), description="a trained PPO checkpoint")
register("ppo_4p", "agents.ppo:make_ready_agent", description="the shipped 4-player PPO agent (counter's advice)")
