"""The one door into every game: the batched-core interface and what a game variant tells the layers above.

Everything above a game (the wrappers ``aec.py``, ``solo.py``, ``sb3_vec.py``, ``vector.py``; the
agents, training, evaluation, play and search commands; the benchmark and the conformance suite)
knows a game only through two objects defined here:

* :class:`BatchedCore` - the engine: B games of one variant as arrays, stepped together. This
  ``typing.Protocol`` is the only description of the interface; the conformance suite checks it for
  every registered game (:func:`check_core`).
* :class:`GameSpec` - one variant (game, player count, rules options): its sizes and names, how to
  make a core, how to read results from it, its text views, its policy feature sets, the hidden inputs
  of an oracle critic, its own per-episode statistics and its heuristic agents.

What training and research commands need beyond the environment (search and belief hooks, the
skill-ceiling players, advantage recipes, a tuned training recipe) is a separate, optional
:class:`GameHooks` the spec carries (``GameSpec.hooks``).

Games are found by name in :mod:`keine_ahnung_env.registry`, which sits above this module (it imports
it, never the other way round); a game's ``<name>.py`` module builds its user-facing entry points from
its spec with :mod:`keine_ahnung_env.entry_points`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from .pictures import RENDER_MODES  # noqa: F401 (re-exported: the wrappers' render modes)


# ---------------------------------------------------------------------------------------------- the core


@runtime_checkable
class BatchedCore(Protocol):
    """B games of one variant, stepped together (B = ``num_envs``, P = ``num_players``, A actions, O
    observation features). Game i of a core made with seed s is reproducible from ``(s, i)`` whatever B.

    Between calls every live game waits for one decision of seat ``current[b]``, whose legal actions
    are ``legal_mask[b]``. A finished game (``terminated | truncated``) keeps its final state, has an
    all-False mask and ignores actions until it is dealt again with ``reset_games``.
    """

    num_envs: int
    """B, the number of games (fixed at construction)."""
    num_players: int
    """P, seats per game."""
    current: np.ndarray
    """[B] integer: the seat to act in each game."""
    legal_mask: np.ndarray
    """[B, A] bool: the legal actions of the seat to act (all False for a finished game)."""
    rewards: np.ndarray
    """[B, P] float32: the rewards of the last ``step`` (non-zero only in the step that ends a game)."""
    terminated: np.ndarray
    """[B] bool: the game ended by its rules."""
    truncated: np.ndarray
    """[B] bool: the game was cut off (a turn limit) and pays no reward."""
    turn: np.ndarray
    """[B] integer: turns played in the current game."""

    @property
    def scores(self) -> np.ndarray:
        """[B, P] integer: every seat's score as it stands (final scores once a game is over)."""
        ...

    @property
    def done(self) -> np.ndarray:
        """[B] bool: ``terminated | truncated``."""
        ...

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Applies one action per game ([B] integers; ignored where ``active`` [B] bool is False and for
        finished games) and resolves every game to its next decision. An illegal action for an active
        live game raises ``ValueError`` naming it and the legal ones, and changes nothing."""
        ...

    def reset_games(self, indices: np.ndarray) -> None:
        """Deals new games in the rows ``indices`` from their own random streams (their ``rewards`` rows
        are cleared, ``terminated``/``truncated`` False, ``turn`` counted from 0 again; a game may play turns
        that need no decision before its first one, so ``turn`` can already be past 0)."""
        ...

    def seed(self, seed: int | None, indices: Sequence[int] | None = None,
             game_ids: Sequence[int] | None = None) -> None:
        """Re-seeds the random streams of rows ``indices`` (all by default): row ``indices[k]`` takes the
        stream of game ``game_ids[k]`` (default ``indices[k]``) of a batch seeded with ``seed``; the next
        ``reset_games`` of the row deals that game. A bad seed raises ``ValueError`` and changes nothing."""
        ...

    def observe(self, seats: Any, games: np.ndarray | None = None) -> np.ndarray:
        """[B, O] float32 observations of ``seats`` (one int, or one seat per game); with ``games``,
        only those rows: ``[len(games), O]``. Nothing a seat may not know is encoded. A seat outside
        ``0..P-1`` (or a game row outside ``0..B-1``) raises ``ValueError``."""
        ...


CORE_ATTRIBUTES = ("num_envs", "num_players", "current", "legal_mask", "rewards", "terminated", "truncated", "turn",
                   "scores", "done")
CORE_METHODS = ("step", "reset_games", "seed", "observe")


def check_core(core: Any, spec: "GameSpec") -> None:
    """Asserts that ``core`` has the :class:`BatchedCore` interface with the shapes and dtypes of ``spec``
    (raises ``AssertionError`` naming the first mismatch). Used by the conformance suite."""
    missing = [n for n in CORE_ATTRIBUTES + CORE_METHODS if not hasattr(core, n)]
    assert not missing, f"{type(core).__name__} lacks {missing} of the BatchedCore protocol"
    assert isinstance(core, BatchedCore)
    B, P, A = core.num_envs, core.num_players, spec.num_actions
    assert P == spec.num_players, f"core has {P} players, spec {spec.num_players}"
    expect = {"current": ((B,), "iu"), "legal_mask": ((B, A), "b"), "rewards": ((B, P), "f"),
              "terminated": ((B,), "b"), "truncated": ((B,), "b"), "turn": ((B,), "iu"), "scores": ((B, P), "iu"),
              "done": ((B,), "b")}
    for name, (shape, kinds) in expect.items():
        value = np.asarray(getattr(core, name))
        assert value.shape == shape, f"core.{name} has shape {value.shape}; the protocol says {shape}"
        assert value.dtype.kind in kinds, f"core.{name} has dtype {value.dtype}; the protocol says kind {kinds!r}"
    obs = core.observe(np.zeros(B, np.int64))
    assert obs.shape == (B, spec.observation_size) and obs.dtype == np.float32, \
        f"observe gave {obs.shape} {obs.dtype}; the protocol says ({B}, {spec.observation_size}) float32"


# ------------------------------------------------------------------------------------------ statistics


@dataclasses.dataclass(frozen=True)
class StatColumn:
    """One figure of a game's own statistics in tables and JSON: ``numerator`` per game (``denominator``
    None) or the ratio of two totals."""

    key: str
    """JSON key, e.g. ``"calls_per_game"``."""
    header: str
    """table header, e.g. ``"calls/g"``."""
    numerator: str
    denominator: str | None = None
    percent: bool = False
    """shown as a percentage in tables."""
    long_header: str = ""
    """Markdown table header, e.g. ``"calls/game"`` (default: ``header``)."""


@dataclasses.dataclass(frozen=True)
class EpisodeStats:
    """A game's own per-seat, per-episode statistics (Keine Ahnung: calls, successful calls, trophies).

    Drivers (tournaments, the solo and SB3 environments) count them around every core step::

        token = stats.before_step(core, actions, active)
        core.step(actions, active=active)
        counts += stats.after_step(core, token)      # [B, P, len(counters)]
        ...                                           # when a game ends:
        values = stats.final(core)                    # [B, P, len(finals)]
    """

    counters: tuple[str, ...]
    """names of the quantities counted step by step."""
    before_step: Callable[[Any, np.ndarray, np.ndarray], Any]
    """``(core, actions [B], active [B] bool) -> token``, called before ``core.step``."""
    after_step: Callable[[Any, Any], np.ndarray]
    """``(core, token) -> [B, P, len(counters)]`` integer increments of this step."""
    finals: tuple[str, ...] = ()
    """names of the quantities read when a game ends."""
    final: Callable[[Any], np.ndarray] | None = None
    """``core -> [B, P, len(finals)]`` values as they stand."""
    columns: tuple[StatColumn, ...] = ()
    """how tables and JSON summarise the totals."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every total: the counters, then the finals."""
        return self.counters + self.finals


@dataclasses.dataclass(frozen=True)
class AgentInfo:
    """A heuristic agent a game ships: ``factory`` (a callable, or ``"module:attribute"`` imported on
    first use) is called as ``factory(seed=seed, **bound, **kwargs)``; ``positional`` names the arguments
    of a spec string such as ``"risk_caller:0.6"``; ``bound`` holds keyword arguments the entry always
    passes (e.g. which shipped model file a preset plays), so several presets share one factory."""

    factory: Callable[..., Any] | str
    positional: tuple[str, ...] = ()
    description: str = ""
    bound: Mapping[str, Any] = dataclasses.field(default_factory=dict)


class SearchHooks(Protocol):
    """What a determinized roll-out planner (``training.search``) needs of a game beyond the core: a
    game offers it as ``GameSpec.search``. A *state* is whatever the game's ``determinize`` returns."""

    def remaining(self, core: Any, game: int) -> int:
        """How much of ``game`` is left, in the game's own unit (Keine Ahnung: trophies left); the
        planner searches only where this is small (the end game)."""
        ...

    def candidate_moves(self, core: Any, game: int, default: int) -> tuple[list[int], int]:
        """The distinct legal moves of the seat to act in ``game`` (one per class of moves with the
        same effect) and the index of ``default``'s class (``default`` represents its class)."""
        ...

    def determinize(self, core: Any, game: int, copies: int, rng: np.random.Generator) -> Any:
        """``copies`` versions of ``game``'s position as the seat to act may imagine it: what it
        cannot see drawn again at random, what it sees unchanged."""
        ...

    def branch(self, core: Any, states: Sequence[Any], seeds: np.ndarray) -> Any:
        """A new core of the same variant whose rows are the copies of ``states`` in order; row i's
        later chance events draw from ``seeds[i]``."""
        ...


class BeliefHooks(Protocol):
    """What a seat may know, exactly: a game's beliefs from one seat's point of view, built
    from that seat's observation alone (so an ``act(observation, mask)`` agent can use them). A game
    offers it as ``GameSpec.belief``, made for the spec's variant (players and rules).

    "Exact" means: given everything the rules let the seat remember (``memory="perfect"``: its whole
    history; ``memory="none"``: what is on the table now), not a summary that drops information. Where
    the observation lacks what that needs, the game extends its observation (a new section, the
    observation version bumped)."""

    def sample_states(self, observation: np.ndarray, count: int, rng: np.random.Generator) -> Any:
        """A core of ``count`` games of the spec's variant, each a complete state (every hidden card,
        the draw order, ...) drawn from the seat's belief: every state consistent with what it knows,
        weighted by its probability given that knowledge. ``observation [O]`` is one seat's observation
        at one of its decisions; in every returned game that seat (``core.current``) is to act, its
        observation equals ``observation`` and its legal mask equals the observed mask. Later chance
        events of the returned games draw from ``rng``-derived streams. An observation no real game
        produces raises ValueError."""
        ...

    def event_probabilities(self, observation: np.ndarray) -> dict[str, float]:
        """Exact probabilities of the game's named events (documented per game, e.g. Keine Ahnung's
        ``"call_succeeds"``) from the observing seat's point of view, NaN where an event is undefined."""
        ...


class PlayHooks(Protocol):
    """What reading the play needs of a game (``keine_ahnung_env.play_reading``): a game offers it as
    ``GameSpec.play``, made for the spec's variant. The play-reading belief weights the states of
    :meth:`BeliefHooks.sample_states` by how likely the opponents' moves this round were in each of
    them; to value those moves it puts every sampled state back to the round's start and replays the
    round. A *log* is a :class:`~keine_ahnung_env.play_reading.PlayLog`: what one seat saw of the
    current round (its observation at the round's start, then each step's actor, public action and
    its observation after the step)."""

    reveals_nothing: bool
    """True where an opponent's decision depends on nothing the reading seat cannot see (every seat's
    knowledge is public): the moves carry no information the belief lacks, so reading the play gives
    the belief's own samples, unweighted, and the other methods are never called."""

    def round_index(self, core: Any) -> np.ndarray:
        """``[B]`` a public counter of each game's rounds (what happened in an earlier round says
        nothing of the cards of this one); a log restarts when it changes. A game may count more than
        rounds (the gap game also counts the hidden cards laid, so no hidden choice enters a log)."""
        ...

    def game_start(self, core: Any) -> np.ndarray:
        """``[B] bool``: nothing has been played yet in each game (a recorder created at that moment
        sees the whole round)."""
        ...

    def public_action(self, action: int) -> int:
        """The action as the other seats see it: an id the replay can step in every sampled state
        (a game whose actions carry something hidden maps them to ids that do not)."""
        ...

    def restarts(self, before: np.ndarray, after: np.ndarray) -> bool:
        """Whether a step the replay cannot repeat lies between two observations of a seat (one step
        apart): something happened that no seat saw and the log's actions do not say (the gap game: a
        reshuffle, whose order nobody saw). The log then starts afresh after that step; the belief at the
        current observation holds what the seat knows of what came before."""
        ...

    def rewind(self, states: Any, log: Any) -> Any:
        """A new core of the same rows as ``states`` (a core from ``sample_states`` at the log's last
        observation, the reading seat to act in each row) holding each row's position at the round's
        start, the reading seat where it sits in that row: the position that, stepped with the log's
        actions, gives that row's state again. Raises ValueError where the log and the states disagree."""
        ...


class CeilingHooks(Protocol):
    """Privileged players for the skill-ceiling study (``training.skill_ceiling``): the game's strongest
    heuristic fed more knowledge than a seat has, read from the engine's state. A game offers it as
    ``GameSpec.ceiling``; it is a research tool, never an agent of the public API."""

    levels: Mapping[str, str]
    """level name -> what it sees; one of them is ``"control"``, the heuristic itself."""
    baseline: str
    """agent spec of the opponents (the heuristic, e.g. ``"counter"``)."""

    def player(self, level: str, seed: int | None = None, rules: dict | None = None) -> Callable[[Any, np.ndarray,
                                                                                                  np.ndarray], np.ndarray]:
        """``player(core, games [n], seats [n]) -> int64 [n]``: the level's moves for the seats to act
        in those games of a core of the variant (``rules``)."""
        ...


@dataclasses.dataclass(frozen=True)
class AdvantageRecipe:
    """Where a learned advantage may improve on a heuristic one decision at a time (``training.advantage``
    learns it, ``agents/advantage.py`` plays it): data a game declares, read by a game-independent loop.
    At a decision where one of the recipe's actions (the *take* set: ``action`` alone, or the actions
    ``take_flags`` marks) is legal beside other moves and the feature ``gate_column`` of the feature set
    ``features`` lies in ``[gate_low, gate_high)``, a network reads the feature columns ``inputs``
    (``(start, stop)`` ranges) and predicts how much more the seat wins by ``base``'s best move of the
    take set than by its best other move, ``base`` playing on afterwards and ``opponents`` in the other
    seats. Everywhere else ``base`` decides. A game offers its recipes as ``GameSpec.advantage``, a
    mapping from a decision's name to its recipe, built per variant (columns depend on the player
    count); the first is the default. Besides the recipes the loop needs the game's belief sampler
    (``GameSpec.belief.sample_states``) and a core that branches rows (``gather``); :meth:`check` says
    what is missing. Each game's recipes and what they decide: ``docs/skill_ceiling.md``."""

    base: str
    """agent spec of the heuristic improved on (roll-outs are fastest where it offers the compiled
    ``play_together``; otherwise its ``act`` plays them, gathered into large batches)."""
    opponents: str
    """agent spec of the opponents the roll-outs seat (the agent is valued against them)."""
    action: str
    """the action name whose advantage is learned (with ``take_flags``: the first action of the set)."""
    features: str
    """the feature set (``GameSpec.features``) the gate and the inputs are columns of."""
    gate_column: int | None
    """the feature column that gates the decision (None: no gate)."""
    gate_low: float
    gate_high: float
    inputs: tuple[tuple[int, int], ...]
    take_flags: tuple[int, int] | None = None
    """where the take set holds several actions: the feature columns ``(start, stop)`` flagging them, one
    column per action from ``action`` on (flag >= 0.5: in the set); None: ``action`` alone."""
    other_not: tuple[str, ...] = ()
    """action names that, as ``base``'s best other move, leave the decision to ``base`` (Keine Ahnung's
    reserve: a call, which after a card known to fit is the plan of playing the card first)."""

    def take_width(self) -> int:
        """How many consecutive actions from ``action`` on the take set may hold."""
        return 1 if self.take_flags is None else int(self.take_flags[1] - self.take_flags[0])

    def candidates(self, mask: np.ndarray, first: int) -> np.ndarray:
        """[n] bool: decisions that may belong to the recipe, from the legal masks alone (one of the take
        actions legal, more than one move legal); ``first``: the id of ``action``."""
        mask = np.asarray(mask, bool)
        return mask[:, first: first + self.take_width()].any(1) & (mask.sum(1) > 1)

    def take_mask(self, features: np.ndarray, mask: np.ndarray, first: int) -> np.ndarray:
        """[n, A] bool: the legal actions of the take set, per row of the feature set."""
        mask = np.asarray(mask, bool)
        take = np.zeros_like(mask)
        if self.take_flags is None:
            take[:, first] = mask[:, first]
        else:
            start, stop = self.take_flags
            take[:, first: first + stop - start] = np.asarray(features)[:, start:stop] >= 0.5
            take &= mask
        return take

    def in_gate(self, features: np.ndarray) -> np.ndarray:
        """[n] bool: which rows of the feature set the gate lets the network decide: ``gate_low <=
        features[:, gate_column] < gate_high`` (every row without a gate column)."""
        features = np.asarray(features)
        if self.gate_column is None:
            return np.ones(features.shape[0], bool)
        gate = features[:, self.gate_column]
        return (gate >= self.gate_low) & (gate < self.gate_high)

    def decided(self, features: np.ndarray, mask: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, take)``: the rows (of candidate decisions' features and masks) the network decides
        before ``other_not`` is applied (a take action and another move legal, inside the gate) and those
        rows' take masks."""
        take = self.take_mask(features, mask, first)
        rest = np.asarray(mask, bool) & ~take
        rows = np.flatnonzero(take.any(1) & rest.any(1) & self.in_gate(features))
        return rows, take[rows]

    def check(self, spec: "GameSpec", decision: str = "") -> None:
        """ValueError naming what the recipe ``decision`` of ``spec`` gets wrong or what the game's door
        lacks for it: an action or feature set the game does not have, columns outside the feature set,
        no belief sampler, a core that cannot branch rows."""
        where = f"{spec.name}'s advantage recipe {decision!r}" if decision else f"{spec.name}'s advantage recipe"
        for name in (self.action, *self.other_not):
            if name not in spec.action_names:
                raise ValueError(f"{where} names the action {name!r}, which {spec.name} does not have")
        width = spec.features(self.features).size
        ranges = [("inputs", r) for r in self.inputs] + ([("take_flags", self.take_flags)] if self.take_flags else [])
        if self.gate_column is not None:
            ranges.append(("gate_column", (self.gate_column, self.gate_column + 1)))
        for field, (start, stop) in ranges:
            if not 0 <= start < stop <= width:
                raise ValueError(f"{where}: {field} {(start, stop)} lies outside the {self.features!r} feature set "
                                 f"(columns 0..{width - 1})")
        if self.take_flags is not None and spec.action_names.index(self.action) + self.take_width() > spec.num_actions:
            raise ValueError(f"{where}: take_flags flag more actions than follow {self.action!r}")
        if spec.belief is None:
            raise ValueError(f"{where}: {spec.name} offers no belief sampler (GameSpec.belief), which the "
                             "roll-outs start from")
        if not callable(getattr(type(spec.make_core(1, 0)), "gather", None)):
            raise ValueError(f"{where}: {spec.name}'s core cannot branch rows (a classmethod gather(parts)), which "
                             "the paired roll-outs need")

    def input_columns(self) -> np.ndarray:
        """The network's input columns of the feature set, in order."""
        return np.concatenate([np.arange(start, stop) for start, stop in self.inputs]).astype(np.intp)

    def as_record(self) -> dict:
        """The recipe as a model's sidecar records it (JSON types)."""
        record = dataclasses.asdict(self)
        record["inputs"] = [list(map(int, r)) for r in self.inputs]
        record["take_flags"] = None if self.take_flags is None else list(map(int, self.take_flags))
        record["other_not"] = list(self.other_not)
        return record

    def matches(self, record: dict) -> list[str]:
        """The fields in which a sidecar's recorded recipe differs from this one (a field a record written
        before it existed counts as its default)."""
        defaults = {f.name: f.default for f in dataclasses.fields(self) if f.default is not dataclasses.MISSING}
        mine = self.as_record()
        theirs = {**{k: mine[k] if getattr(self, k) == v else v for k, v in defaults.items()}, **dict(record)}
        for name in ("inputs", "take_flags", "other_not"):
            value = theirs.get(name)
            if isinstance(value, (list, tuple)):
                theirs[name] = [list(map(int, v)) if isinstance(v, (list, tuple)) else v for v in value]
        return sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))


class Features(Protocol):
    """A policy feature set: maps raw observations (and masks) to policy inputs."""

    kind: str
    input_size: int
    """O, the raw observation width it reads."""
    size: int
    """width of the policy inputs it makes."""
    needs_mask: bool
    num_actions: int
    """A when ``needs_mask`` (the mask width; a finished game is given an all-False ``[1, A]`` mask), else 0."""

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """``[B, size]`` float32 inputs of ``observation [B, O]`` (and ``action_mask [B, A]``)."""
        ...


class RawFeatures:
    """The feature set every game has: the observation scaled into [0, 1] (``GameSpec.observation_scale``)."""

    kind = "raw"
    needs_mask = False
    num_actions = 0
    """0: the raw set reads no mask."""

    def __init__(self, spec: "GameSpec"):
        self.scale = spec.observation_scale
        self.input_size = self.size = spec.observation_size

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        return np.asarray(observation, np.float32) * self.scale


class OlderObservationFeatures:
    """A feature set as a policy trained on an older observation version saw it: ``inner`` (the set on
    current observations) with the scaled observation cut back to its first ``width`` features (the
    older version; see ``GameSpec.older_observations``). Every feature set begins with the scaled
    observation, so what follows it (hints, advice) is kept, computed from the current observation."""

    def __init__(self, inner: Any, width: int):
        self.inner = inner
        self.kind = inner.kind
        self.width = int(width)
        self.input_size = inner.input_size
        self.size = inner.size - (inner.input_size - self.width)
        self.needs_mask = inner.needs_mask
        self.num_actions = inner.num_actions

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        x = self.inner(observation, action_mask)
        return np.concatenate([x[:, : self.width], x[:, self.input_size :]], axis=1)


# ------------------------------------------------------------------------------------------ the hooks


@dataclasses.dataclass(frozen=True)
class GameHooks:
    """What training and research commands need of a game beyond the environment; every hook is
    optional (None or empty: the game offers none, and the command that needs it says so through
    ``registry.game_hook``).

    Attributes:
      search: :class:`SearchHooks` of a determinized roll-out planner (``training.search``).
      belief: :class:`BeliefHooks`: exact beliefs and a state sampler from one seat's observation
        (search agents, ``training.advantage``).
      play: :class:`PlayHooks`: what reading the opponents' moves needs (the play-reading belief of
        ``keine_ahnung_env.play_reading``).
      ceiling: :class:`CeilingHooks`: privileged players for the skill-ceiling study
        (``training.skill_ceiling``).
      advantage: decision names -> :class:`AdvantageRecipe`: where a network trained on roll-out
        advantages may overrule the game's heuristic (``training.advantage``; the first decision is
        the command's default).
      training_recipe: the game's tuned recipe for ``training.train``: argument name (a field of
        ``training.train.Args``) -> value, used for every argument the user leaves out unless they pass
        ``--recipe plain``. Empty: the command's generic defaults.
    """

    search: SearchHooks | None = None
    belief: BeliefHooks | None = None
    ceiling: CeilingHooks | None = None
    advantage: Mapping[str, AdvantageRecipe] | None = None
    play: PlayHooks | None = None
    training_recipe: Mapping[str, Any] = dataclasses.field(default_factory=dict)


GameHooks.NAMES = tuple(field.name for field in dataclasses.fields(GameHooks))
"""The hooks' names (each also readable as ``GameSpec.<name>``)."""


NO_HOOKS = GameHooks()
"""The hooks of a game that offers none."""


# ------------------------------------------------------------------------------------------ the spec


@dataclasses.dataclass(frozen=True, eq=False)
class GameSpec:
    """One game variant (game, player count, rules options) as every game-independent layer sees it.

    Attributes:
      name: the versioned environment name, e.g. ``"keine_ahnung_v0"``; the registry key.
      version: the environment's version (the ``N`` of ``_vN``); checkpoints record it.
      num_players: seats per game; ``min_players`` .. ``max_players`` is the game's range.
      num_actions: size of the discrete action space (A); ``action_names[a]`` names action a.
      observation_high: [O] float32 upper bound of every observation feature (lower bounds are 0).
      observation_version: the observation encoding's version (checkpoints record it).
      make_core: ``(num_envs, seed) -> BatchedCore``; game i is reproducible from ``(seed, i)``.
      standings: ``core -> [B, P]`` numbers, higher is better; seats with the top number share the win.
      render: ``(core, game, reveal_all) -> str``, the table of one game as text; face-down cards
        hidden unless ``reveal_all``.
      observation_string: ``observation [O] -> str``, what a seat knows, readably.
      rules: the variant's validated rules options (JSON-ready; for reprs and checkpoints).
      policy_neutral_rules: the rules options that change neither what a seat observes nor what it
        may do (Keine Ahnung: ``reward``, ``max_turns``): a policy trained under other values of them
        still plays this variant, so checkpoint checks ignore them.
      episode_stats: the game's own per-episode statistics, or None.
      feature_sets: policy feature sets by name: ``spec -> Features``; ``"raw"`` is always there.
      default_features: the feature set training uses unless told otherwise (one of ``feature_names``).
      privileged_size, privileged: the hidden inputs of an oracle critic: ``(core, seats [B]) ->
        [B, privileged_size]`` float32 in [0, 1] (None: the game has none).
      agents: the game's heuristic agents by name (the ``agents`` registry offers them).
      default_opponent: the agent spec a command seats when the user names none (``training.play``).
      title: a human name, e.g. ``"Keine Ahnung / No Idea"``.
      describe_move: optional ``(core, game, seat, action) -> (core -> str)``, called before ``action``
        is played; the returned function, called after, tells what everybody at the table saw
        (``training.play``'s recap). None: the action's name.
      terminal_view: optional ``(spec, core, seat) -> view``: what ``training.play`` shows ``seat`` of a
        game of ``core`` (stable move keys, the table, a legend; ``training/terminal.py`` says what a view
        offers). None: the generic view of the observation text and the action names.
      scene: optional ``(core, game, seat | None, reveal_all) -> keine_ahnung_env.pictures.Scene``: the
        table of one game laid out as a picture (the game's ``picture.py``) from ``seat``'s point of
        view (None: what the whole table sees; ``reveal_all``: every card); :meth:`draw` draws it.
        None: the game draws no pictures.
      older_observations: earlier observation versions a policy may have been trained on, each
        ``version -> width``: that version's vector is the first ``width`` features of the current
        one (a game extends its observation by appending sections), so such a policy still plays
        (:class:`OlderObservationFeatures`).
      hooks: the game's optional training and research hooks (:class:`GameHooks`); each is also
        readable as ``spec.<hook>`` (``spec.search``, ``spec.belief``, ``spec.ceiling``,
        ``spec.advantage``, ``spec.training_recipe``).

    A spec is immutable: ``copy``/``deepcopy`` return it unchanged. It pickles as its name, player
    count and rules and is rebuilt through the game registry, so environments holding one pickle.
    """

    name: str
    num_players: int
    num_actions: int
    observation_high: np.ndarray
    make_core: Callable[[int, int | None], Any]
    action_names: tuple[str, ...]
    standings: Callable[[Any], np.ndarray]
    render: Callable[[Any, int, bool], str]
    observation_string: Callable[[np.ndarray], str]
    rules: dict = dataclasses.field(default_factory=dict)
    policy_neutral_rules: tuple[str, ...] = ()
    version: int = 0
    min_players: int = 2
    max_players: int = 2
    observation_version: int = 1
    episode_stats: EpisodeStats | None = None
    feature_sets: Mapping[str, Callable[["GameSpec"], Any]] = dataclasses.field(default_factory=dict)
    default_features: str = "raw"
    privileged_size: int = 0
    privileged: Callable[[Any, np.ndarray], np.ndarray] | None = None
    agents: Mapping[str, AgentInfo] = dataclasses.field(default_factory=dict)
    default_opponent: str = "random"
    title: str = ""
    describe_move: Callable[[Any, int, int, int], Callable[[Any], str]] | None = None
    terminal_view: Callable[[Any, Any, int], Any] | None = None
    scene: Callable[[Any, int, int | None, bool], Any] | None = None
    older_observations: Mapping[int, int] = dataclasses.field(default_factory=dict)
    hooks: GameHooks = NO_HOOKS

    def __post_init__(self):
        if len(self.action_names) != self.num_actions:
            raise ValueError(f"{self.name}: {len(self.action_names)} action names for {self.num_actions} actions")
        if self.default_features not in self.feature_names:
            raise ValueError(f"{self.name}: default_features={self.default_features!r}; allowed: "
                             f"{', '.join(self.feature_names)}")

    def __copy__(self) -> "GameSpec":
        return self

    def __deepcopy__(self, memo: dict) -> "GameSpec":
        return self

    def __reduce__(self):
        rules = {k: v for k, v in self.rules.items() if k != "num_players"}
        return rebuild_game_spec, (self.name, self.num_players, rules)

    # ------------------------------------------------------------------ the hooks, by their names

    @property
    def search(self) -> SearchHooks | None:
        """``hooks.search``."""
        return self.hooks.search

    @property
    def belief(self) -> BeliefHooks | None:
        """``hooks.belief``."""
        return self.hooks.belief

    @property
    def play(self) -> PlayHooks | None:
        """``hooks.play``."""
        return self.hooks.play

    @property
    def ceiling(self) -> CeilingHooks | None:
        """``hooks.ceiling``."""
        return self.hooks.ceiling

    @property
    def advantage(self) -> Mapping[str, AdvantageRecipe] | None:
        """``hooks.advantage``."""
        return self.hooks.advantage

    @property
    def training_recipe(self) -> Mapping[str, Any]:
        """``hooks.training_recipe``."""
        return self.hooks.training_recipe

    # ------------------------------------------------------------------ sizes and names

    @property
    def observation_size(self) -> int:
        """Length O of one observation vector."""
        return int(self.observation_high.shape[0])

    @property
    def observation_scale(self) -> np.ndarray:
        """[O] float32 ``1 / high``: multiplies an observation into [0, 1]."""
        return (1.0 / np.maximum(self.observation_high, 1e-12)).astype(np.float32)

    @property
    def agent_names(self) -> list[str]:
        """``player_0 ... player_{P-1}``: seat p is ``player_p``."""
        return [f"player_{p}" for p in range(self.num_players)]

    def action_name(self, action: int) -> str:
        """The name of action id ``action`` (``"?"`` outside the action range)."""
        a = int(action)
        return self.action_names[a] if 0 <= a < self.num_actions else "?"

    def legal_names(self, mask: np.ndarray) -> str:
        """The legal actions of one [A] mask as ``"id (NAME), ..."`` for error messages."""
        return ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(mask).tolist())

    def draw(self, core: Any, game: int = 0, seat: int | None = None, reveal_all: bool = False) -> np.ndarray:
        """Game ``game`` of ``core`` as an ``[H, W, 3]`` uint8 picture from ``seat``'s point of view
        (None: the public table; ``reveal_all``: every card); ValueError where the game has no
        :attr:`scene` or the point of view is bad."""
        from .pictures import draw_table

        return draw_table(self, core, game, seat, reveal_all)

    # ------------------------------------------------------------------ results

    def winners(self, core: Any) -> np.ndarray:
        """[B, P] bool: the seats that share the win by the standings (read for finished games)."""
        key = np.asarray(self.standings(core))
        return key == key.max(axis=-1, keepdims=True)

    def win_shares(self, core: Any) -> np.ndarray:
        """[B, P] float: each seat's share of the win (1 / number of winners for a winner, else 0)."""
        win = self.winners(core)
        return win / win.sum(axis=-1, keepdims=True)

    def seat_win_shares(self, core: Any, seats: np.ndarray) -> np.ndarray:
        """[B] float: game i's ``seats[i]``'s share of the win (ties split); a truncated game, which
        has no winner, counts ``1 / num_players``."""
        share = np.asarray(self.win_shares(core))[np.arange(len(seats)), seats]
        return np.where(np.asarray(core.truncated), 1.0 / self.num_players, share)

    # ------------------------------------------------------------------ policies

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The policy feature sets of this game, ``"raw"`` first."""
        return ("raw",) + tuple(k for k in self.feature_sets if k != "raw")

    def features(self, kind: str):
        """The feature set ``kind`` (see :class:`Features`); ValueError names the allowed ones."""
        if kind == "raw" and "raw" not in self.feature_sets:
            return RawFeatures(self)
        if kind not in self.feature_sets:
            raise ValueError(f"features={kind!r} for {self.name}; allowed: {', '.join(self.feature_names)}")
        return self.feature_sets[kind](self)

    def features_for_version(self, kind: str, observation_version: int):
        """The feature set ``kind`` for a policy trained on ``observation_version`` (the current one or
        one of ``older_observations``); it reads current observations. ValueError otherwise."""
        if observation_version == self.observation_version:
            return self.features(kind)
        if observation_version not in self.older_observations:
            allowed = sorted({self.observation_version, *self.older_observations})
            raise ValueError(f"observation version {observation_version!r} of {self.name}; allowed: {allowed}")
        return OlderObservationFeatures(self.features(kind), self.older_observations[observation_version])

    def privileged_features(self, core: Any, seats: np.ndarray) -> np.ndarray:
        """[B, privileged_size] float32 hidden inputs of an oracle critic for ``seats``."""
        if self.privileged is None:
            return np.zeros((core.num_envs, 0), np.float32)
        return self.privileged(core, seats)

    def check_observation(self, observation: np.ndarray) -> np.ndarray:
        """``observation`` as ``[n, O]`` float32; ValueError if its width is not this variant's."""
        obs = np.asarray(observation, np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        if obs.ndim != 2 or obs.shape[1] != self.observation_size:
            raise ValueError(f"observation of shape {np.shape(observation)}; {self.name} with {self.num_players} "
                             f"players needs [n, {self.observation_size}]")
        return obs


_spec_finder: list[Callable[..., GameSpec]] = []
"""How unpickling finds a game's spec by name: the game registry, which sits above this module, puts
its ``game_spec`` here when it loads (``import keine_ahnung_env`` loads it before any spec exists)."""


def set_spec_finder(finder: Callable[..., GameSpec]) -> None:
    """Makes ``finder(name, num_players, **rules) -> GameSpec`` the way pickled specs are rebuilt."""
    _spec_finder[:] = [finder]


def rebuild_game_spec(name: str, num_players: int, rules: dict) -> GameSpec:
    """The spec of registered game ``name`` for these options (used by unpickling)."""
    if not _spec_finder:
        raise RuntimeError("no game registry is loaded: import keine_ahnung_env first")
    return _spec_finder[0](name, num_players, **rules)


def check_render_mode(render_mode: str | None, allowed: Sequence[str] = RENDER_MODES) -> str | None:
    """Returns ``render_mode`` if it is None or one of ``allowed``; raises ValueError otherwise."""
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode={render_mode!r}; allowed: None, {', '.join(map(repr, allowed))}")
    return render_mode


def check_bool(name: str, value: Any) -> bool:
    """Returns ``value`` if it is a bool; raises ValueError naming the option otherwise."""
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r}; allowed: True or False")
    return value
