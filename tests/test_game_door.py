"""The game door (issue 13): every registered game, through its spec, its core and its entry points alone.

* The registry: unknown games and player counts are clear errors, duplicates are refused, specs pickle,
  and every game's ``env``/``solo_env`` are registered with PettingZoo and Gymnasium.
* Per registered game (``registry.games()`` plus the test game ``tiny_v0`` of ``tiny_game.py``,
  registered for this module only): the core made by ``spec.make_core`` satisfies the
  :class:`~keine_ahnung_env.game_spec.BatchedCore` protocol with the spec's shapes and dtypes before and
  after random legal steps; the spec's own parts (features, statistics, agents, text views) work;
  PettingZoo's ``api_test`` and ``seed_test``, Gymnasium's ``check_env`` on ``solo_env`` and the
  ``vector_env`` handle pass; game i is reproducible from ``(seed, i)`` whatever the batch size; bad
  input is refused and changes nothing; a seat's view does not change with what it may not know.
* Layering: the environment package imports neither ``agents`` nor ``training`` (each module in a fresh
  import), and no module of ``agents/`` or ``training/`` imports a game's internals.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import importlib
import json
import pickle
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import conformance as C
import keine_ahnung_env
import tiny_game
from keine_ahnung_adapter import KA
from keine_ahnung_env import registry
from keine_ahnung_env.entry_points import gymnasium_solo_id, pettingzoo_id, register_entry_points
from keine_ahnung_env.game_spec import AgentInfo, BatchedCore, GameSpec
from keine_ahnung_env.sampling import sample_masked

ROOT = Path(__file__).resolve().parents[1]


def _entry(name: str) -> registry.GameEntry:
    return tiny_game.ENTRY if name == tiny_game.NAME else registry.game(name)


GAMES = sorted(set(registry.games()) | {tiny_game.NAME})
"""Every registered game, and the test game (registered by the fixture below while this module runs)."""
VARIANTS = [pytest.param(name, p, id=f"{name}-{p}p") for name in GAMES
            for p in sorted({_entry(name).min_players, _entry(name).max_players})]
"""Each game at its smallest and largest table."""


@pytest.fixture(scope="module", autouse=True)
def tiny_registered():
    tiny_game.register()
    yield tiny_game.NAME
    tiny_game.unregister()


class TinyAdapter(C.SpecAdapter):
    """The test game's whole rules state, invariants and hidden information: a seat sees its own hand,
    the table and the counts; the opponents' hands and the stock are hidden."""

    def __init__(self):
        super().__init__(tiny_game.NAME)

    def snapshot(self, core, b):
        return (core.hands[b].tolist(), core.stock[b].tolist(), core.table[b].tolist(), core.points[b].tolist(),
                int(core.round[b]), int(core.acted[b]), int(core.current[b]), int(core.turn[b]),
                bool(core.terminated[b]))

    def fingerprint(self, core, b):
        return (self.snapshot(core, b), core.legal_mask[b].tolist(), core.rewards[b].tolist(),
                repr(core.rngs[b].bit_generator.state))

    def check_game_invariants(self, core):
        for b in range(core.num_envs):
            cards = np.concatenate([core.hands[b].ravel(), core.table[b], core.stock[b]])
            cards = cards[cards > 0]
            assert np.unique(cards).size == cards.size, f"game {b}: a card in two places: {self.snapshot(core, b)}"
            assert core.points[b].sum() <= core.round[b] <= core.rounds and core.acted[b] < core.num_players
            assert core.terminated[b] == (core.round[b] == core.rounds), f"game {b}: terminated is not 'last round'"

    def hidden_variants(self, core, b, seat, rng, count=3):
        """The opponents' hand cards and the stock dealt again among themselves (empty slots stay empty)."""
        opponents = [p for p in range(core.num_players) if p != seat]
        for _ in range(count):
            other = copy.deepcopy(core)
            held = other.hands[b, opponents]
            pool = rng.permutation(np.concatenate([held[held > 0], other.stock[b]]))
            k = int((held > 0).sum())
            held[held > 0] = pool[:k]
            other.hands[b, opponents], other.stock[b] = held, pool[k:]
            yield other

    def visible_variant(self, core, b, seat, rng):
        """The seat's own first card swapped with a stock card: its view must change."""
        other = copy.deepcopy(core)
        own = np.flatnonzero(other.hands[b, seat] > 0)
        if own.size == 0:
            return None
        k = int(own[0])
        other.hands[b, seat, k], other.stock[b, 0] = other.stock[b, 0], other.hands[b, seat, k]
        return other


def adapter_for(name: str) -> C.GameAdapter:
    """The game's own adapter where the tests have one (its rules state and hidden information), else
    the registry's :class:`conformance.SpecAdapter`."""
    if name == KA.name:
        return KA
    if name == tiny_game.NAME:
        return TinyAdapter()
    if name == "dnp_v0":
        from dnp_adapter import DnpAdapter

        return DnpAdapter()
    if name == "gap_v0":
        from gap_adapter import GapAdapter

        return GapAdapter()
    return C.SpecAdapter(name)


def random_agents(n: int, seed: int = 0) -> list:
    from agents.base import RandomAgent

    return [RandomAgent(seed + j) for j in range(n)]


@pytest.fixture
def dict_observation_env(monkeypatch):
    """PettingZoo's api_test warns about Dict observations unless the env's name is on its hard-coded
    lists (its own classic games); every game here uses that {"observation", "action_mask"} convention."""
    module = importlib.import_module("pettingzoo.test.api_test")
    monkeypatch.setattr(module, "env_obs_dicts", [*module.env_obs_dicts, *GAMES])
    monkeypatch.setattr(module, "env_obs_space", [*module.env_obs_space, *GAMES])


# ============================================================================ the registry


def test_unknown_game_is_a_clear_error_listing_the_registered_ones():
    for call in (lambda: registry.game("chess"), lambda: registry.game_spec("chess", 2),
                 lambda: registry.entry_points("chess"), lambda: registry.game(None)):
        with pytest.raises(ValueError, match=r"unknown game .*registered games: ") as info:
            call()
        assert all(name in str(info.value) for name in registry.games())
    assert tiny_game.NAME in registry.games()


@pytest.mark.parametrize("game", GAMES)
def test_player_count_out_of_range_is_a_clear_error(game):
    entry = registry.game(game)
    allowed = rf"allowed: integers {entry.min_players}-{entry.max_players}"
    for bad in (entry.min_players - 1, entry.max_players + 1, 0, "2", 2.0, 2.5, True):
        with pytest.raises(ValueError, match=re.escape(f"players={bad!r}") + f".*{allowed}"):
            registry.game_spec(game, bad)
    with pytest.raises(ValueError, match=allowed):
        registry.entry_points(game).vector_env(2, num_players=entry.max_players + 1)
    with pytest.raises(ValueError, match=allowed):
        registry.entry_points(game).env(num_players=entry.max_players + 1)
    assert registry.check_players(entry, np.int64(entry.min_players)) == entry.min_players
    assert registry.game_spec(game).num_players == entry.default_players


def test_register_game_refuses_a_duplicate_and_bad_entries():
    entry = tiny_game.ENTRY
    assert registry.register_game(entry) is entry  # the very same entry again: nothing changes
    other = dataclasses.replace(entry, title="another game of the same name")
    with pytest.raises(ValueError, match=r"'tiny_v0' is registered already; pass replace=True"):
        registry.register_game(other)
    assert registry.game(tiny_game.NAME) is entry
    try:
        registry.register_game(other, replace=True)
        assert registry.game(tiny_game.NAME).title == other.title
    finally:
        registry.register_game(entry, replace=True)
    with pytest.raises(ValueError, match="takes a GameEntry"):
        registry.register_game({"name": "dict_game"})
    for lo, default, hi in ((0, 1, 2), (3, 2, 4), (2, 5, 4)):
        bad = dataclasses.replace(entry, name="bad_v0", min_players=lo, default_players=default, max_players=hi)
        with pytest.raises(ValueError, match=r"need 1 <= min <= default <= max"):
            registry.register_game(bad)
    assert "bad_v0" not in registry.games()


@pytest.mark.parametrize("game,players", VARIANTS)
def test_spec_pickles_and_copies_as_itself(game, players):
    spec = registry.game_spec(game, players)
    again = pickle.loads(pickle.dumps(spec))
    assert (again.name, again.num_players, again.rules) == (spec.name, spec.num_players, spec.rules)
    np.testing.assert_array_equal(again.observation_high, spec.observation_high)
    assert copy.copy(spec) is spec and copy.deepcopy(spec) is spec


def test_spec_pickles_with_its_rules_options():
    spec = registry.game_spec(tiny_game.NAME, 3, rounds=1)
    again = pickle.loads(pickle.dumps(spec))
    assert (again.num_players, again.rules, again.observation_size) == (3, {"rounds": 1}, spec.observation_size)


@pytest.mark.parametrize("game", GAMES)
def test_entry_points_are_registered_with_pettingzoo_and_gymnasium(game):
    entry = registry.game(game)
    module = registry.entry_points(game)
    if hasattr(pettingzoo, "aec_registry"):  # PettingZoo >= 1.27 (its registry keys read "<name>-vN")
        assert pettingzoo.spec("aec", pettingzoo_id(game)).entry_point == f"{entry.module}:env"
        env = pettingzoo.make("aec", pettingzoo_id(game), num_players=entry.max_players)
        env.reset(seed=0)
        assert env.unwrapped.metadata["name"] == game and len(env.possible_agents) == entry.max_players
    assert gymnasium.spec(gymnasium_solo_id(game)).entry_point == f"{entry.module}:solo_env"
    solo = gymnasium.make(gymnasium_solo_id(game), opponents=random_agents(entry.min_players - 1),
                          num_players=entry.min_players)
    assert solo.unwrapped.action_space.n == module.game_spec().num_actions


def test_keine_ahnung_is_registered_under_its_documented_ids():
    assert gymnasium_solo_id("keine_ahnung_v0") == "keine_ahnung_env/keine_ahnung_solo-v0"
    assert pettingzoo_id("keine_ahnung_v0") == "keine_ahnung_env/keine_ahnung_v0"
    solo = gymnasium.spec("keine_ahnung_env/keine_ahnung_solo-v0")
    assert solo.entry_point == "keine_ahnung_env.keine_ahnung_v0:solo_env"
    if hasattr(pettingzoo, "aec_registry"):
        spec = pettingzoo.spec("aec", "keine_ahnung_env/keine_ahnung_v0")
        assert spec.entry_point == "keine_ahnung_env.keine_ahnung_v0:env"


@pytest.mark.parametrize("game", GAMES)
def test_registering_entry_points_again_changes_nothing(game):
    """``register_entry_points`` runs on every import of a game module (and again after a module is
    reloaded): a second call must find the first registration, not override it with a warning."""
    module = registry.game(game).module
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_entry_points(game, module)


# ============================================================================ per registered game


@pytest.mark.parametrize("game,players", VARIANTS)
def test_core_satisfies_the_protocol_with_the_specs_shapes(game, players):
    spec = registry.game_spec(game, players)
    assert isinstance(spec.make_core(2, 0), BatchedCore)
    stats = C.check_spec_core(spec, num_envs=5, seed=3, steps=120)
    assert stats["steps"] == 120
    if game == tiny_game.NAME:
        assert stats["ended"] > 0


@pytest.mark.parametrize("game,players", VARIANTS)
def test_spec_describes_the_game(game, players):
    import agents

    entry, spec = registry.game(game), registry.game_spec(game, players)
    assert isinstance(spec, GameSpec) and spec.name == game and spec.num_players == players
    assert (spec.min_players, spec.max_players) == (entry.min_players, entry.max_players)
    assert len(spec.action_names) == spec.num_actions and spec.action_name(-1) == "?"
    assert spec.observation_high.dtype == np.float32 and (spec.observation_high > 0).all()
    assert spec.agent_names == [f"player_{p}" for p in range(players)]
    core = spec.make_core(4, 1)
    obs = core.observe(core.current)
    # Policy features: "raw" first; each set maps observations (and masks) to [n, size] float32 inputs.
    assert spec.feature_names[0] == "raw"
    for kind in spec.feature_names:
        features = spec.features(kind)
        out = features(obs, core.legal_mask)
        assert out.shape == (4, features.size) and out.dtype == np.float32 and features.input_size == obs.shape[1]
    with pytest.raises(ValueError, match=r"features='nonsense'.*allowed: raw"):
        spec.features("nonsense")
    privileged = spec.privileged_features(core, core.current)
    assert privileged.shape == (4, spec.privileged_size) and privileged.dtype == np.float32
    assert isinstance(spec.render(core, 0, False), str) and isinstance(spec.render(core, 0, True), str)
    assert isinstance(spec.observation_string(obs[0]), str)
    np.testing.assert_array_equal(spec.check_observation(obs[0]), obs[:1])
    # The game's own statistics, counted around a step the way the drivers do.
    stats = spec.episode_stats
    if stats is not None:
        active = np.ones(4, bool)
        actions = sample_masked(np.random.default_rng(0), core.legal_mask)
        token = stats.before_step(core, actions, active)
        core.step(actions, active=active)
        counts = stats.after_step(core, token)
        assert counts.shape == (4, players, len(stats.counters)) and counts.dtype.kind in "iu"
        if stats.final is not None:
            assert stats.final(core).shape == (4, players, len(stats.finals))
        for column in stats.columns:
            assert {column.numerator, column.denominator or column.numerator} <= set(stats.names)
    # The game's heuristic agents, offered by agents.make, play legal moves.
    assert set(spec.agents) <= set(agents.available(game)) and {"random", "ppo"} <= set(agents.available(game))
    for name, info in spec.agents.items():
        assert isinstance(info, AgentInfo) and (callable(info.factory) or ":" in info.factory)
        agent = agents.make(name, game=game, seed=0)
        live = ~core.done
        if live.any():
            chosen = agent.act(core.observe(core.current)[live], core.legal_mask[live])
            assert chosen.dtype == np.int64 and core.legal_mask[live][np.arange(live.sum()), chosen].all(), name


@pytest.mark.parametrize("game,players", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_pettingzoo_api(game, players, dict_observation_env):
    api_test(registry.entry_points(game).env(num_players=players), num_cycles=300)


@pytest.mark.parametrize("game,players", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_pettingzoo_seed(game, players):
    seed_test(functools.partial(registry.entry_points(game).env, num_players=players), num_cycles=200)


@pytest.mark.parametrize("game,players", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_gymnasium_check_env_on_solo_env(game, players, monkeypatch):
    # Made through gymnasium.make so that check_env also exercises every declared render mode ("human"
    # with SDL's dummy video driver: a window without a screen).
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    made = gymnasium.make(gymnasium_solo_id(game), opponents=random_agents(players - 1), num_players=players)
    check_env(made.unwrapped)
    solo = registry.entry_points(game).solo_env(random_agents(players - 1), num_players=players, normalize_obs=False)
    check_env(solo, skip_render_check=True)


@pytest.mark.parametrize("game,players", VARIANTS)
def test_vector_env_reset_and_step(game, players):
    spec = registry.game_spec(game, players)
    B, P, A, O = 4, players, spec.num_actions, spec.observation_size

    def play(seed: int) -> list:
        env = registry.entry_points(game).vector_env(B, num_players=players, seed=seed)
        assert env.spec.name == game and env.num_envs == B and env.num_players == P
        rng = np.random.default_rng(0)
        result = env.reset()
        trace, ended = [], 0
        for _ in range(2000):
            assert result.action_mask.shape == (B, A) and result.action_mask.dtype == bool
            assert result.action_mask.any(axis=1).all(), "autoreset: every game is at a decision"
            assert result.observation.shape == (B, O) and result.observation.dtype == np.float32
            assert result.rewards.shape == (B, P) and result.scores.shape == (B, P)
            np.testing.assert_array_equal(result.observation, env.observe(result.current_player))
            trace.append((result.observation.tobytes(), result.rewards.tobytes(), result.final_index.tolist()))
            result = env.step(sample_masked(rng, result.action_mask))
            assert result.final_observation.shape == (result.final_index.size, P, O)
            ended += result.final_index.size
            if ended >= 2:
                return trace
        raise AssertionError("no game ended in 2000 steps")

    assert play(5) == play(5), "the same seed and actions gave other games"
    assert play(5)[0] != play(6)[0], "another seed dealt the same games"


@pytest.mark.parametrize("game,players", VARIANTS)
def test_game_i_is_reproducible_from_seed_and_i_whatever_the_batch_size(game, players):
    adapter, variant = adapter_for(game), {"num_players": players}
    stats = C.check_batch_independence(adapter, variant, seed=7, num_envs=5, steps=80)
    assert stats["steps"] > 0
    C.check_same_seed(adapter, variant, seed=8, num_envs=3, steps=80)
    # Row k of any batch can take the stream of any game id (the protocol's seed(seed, indices, game_ids)).
    big = adapter.make_core(7, variant, seed=9)
    small = adapter.make_core(2, variant, seed=123)
    small.seed(9, indices=[1], game_ids=[6])
    small.reset_games(np.array([1]))
    assert adapter.snapshot(small, 1) == adapter.snapshot(big, 6)
    with pytest.raises(ValueError, match=r"seed=.*allowed"):
        small.seed(-1)


@pytest.mark.parametrize("game,players", VARIANTS)
def test_bad_input_is_refused_and_changes_nothing(game, players):
    adapter, variant = adapter_for(game), {"num_players": players}
    core = adapter.make_core(4, variant, seed=2)
    kinds = len(C.BAD_STEP_KINDS)
    program = [("steps", 3), ("partial", 1)] + [("bad", k) for k in range(kinds)] + [("reset", 5), ("steps", 39)] \
        + [("bad", kinds + k) for k in range(kinds)] + [("partial", 2), ("steps", 20)]
    stats = C.run_program(adapter, core, program)
    assert stats["rejected"] >= kinds
    C.check_vector_env_bad_input(adapter, variant, seed=1)
    C.check_aec_bad_input(adapter, variant, seed=1)
    C.check_solo_bad_input(adapter, variant, seed=1)
    C.check_sb3_bad_input(adapter, variant, seed=1)


@pytest.mark.parametrize("game,players", VARIANTS)
def test_copies_continue_like_the_original_on_every_surface(game, players):
    C.check_every_surface_copies(adapter_for(game), {"num_players": players}, seed=4, warmup=10, steps=12)


@pytest.mark.parametrize("game,players", VARIANTS)
def test_a_seat_sees_nothing_it_may_not_know(game, players):
    import agents

    adapter = adapter_for(game)
    if type(adapter).hidden_variants is C.GameAdapter.hidden_variants:
        pytest.skip(f"the tests have no hidden-information adapter for {game}")
    variant = {"num_players": players}
    spec = registry.game_spec(game, players)
    core = adapter.make_core(3, variant, seed=5)
    rng = np.random.default_rng(5)
    # Feature sets that read the mask (advice) are left out: the check calls them with observations only.
    functions = [(f"features {kind}", spec.features(kind)) for kind in spec.feature_names
                 if not spec.features(kind).needs_mask]
    factories = [(name, functools.partial(agents.make, name, game=game, seed=0)) for name in spec.agents]
    totals = {"variants": 0, "controls_changed": 0}
    for _ in range(4):
        stats = C.check_hidden_information(adapter, core, rng, functions, factories)
        for key in totals:
            totals[key] += stats[key]
        for _ in range(int(rng.integers(1, 4))):
            if core.done.all():
                core.reset_games(np.arange(core.num_envs))
            core.step(sample_masked(rng, core.legal_mask))
    assert totals["variants"] > 0 and totals["controls_changed"] > 0


# ============================================================================ the test game itself


def test_tiny_game_hides_the_opponents_cards():
    spec = registry.game_spec(tiny_game.NAME, 3)
    core = spec.make_core(2, seed=0)
    before = [core.observe(seat) for seat in range(3)]
    changed = copy.deepcopy(core)
    changed.hands[0, 1, 0], changed.stock[0, 0] = changed.stock[0, 0], changed.hands[0, 1, 0]  # seat 1's card
    np.testing.assert_array_equal(changed.observe(0), before[0])
    np.testing.assert_array_equal(changed.observe(2), before[2])
    assert not np.array_equal(changed.observe(1)[0], before[1][0])
    assert "??" in spec.render(core, 0, False) and str(core.hands[0, 1, 0]) in spec.render(core, 0, True)
    assert spec.observation_string(before[0][0]).startswith("round 1; your hand: ")


def test_tiny_game_deals_game_i_alike_in_every_batch_size():
    deals = {B: registry.game_spec(tiny_game.NAME, 2).make_core(B, seed=11).hands.copy() for B in (1, 3, 8)}
    np.testing.assert_array_equal(deals[1][0], deals[8][0])
    np.testing.assert_array_equal(deals[3], deals[8][:3])
    assert len({deals[8][i].tobytes() for i in range(8)}) > 1


# ============================================================================ layering


ENV_MODULES = sorted(m.name for m in pkgutil.walk_packages(keine_ahnung_env.__path__, "keine_ahnung_env."))
IMPORT_REPORT = r"""
import importlib, json, sys
# First the public entry: exactly what a user imports.
import keine_ahnung_env, keine_ahnung_env.keine_ahnung_v0, keine_ahnung_env.registry, keine_ahnung_env.game_spec
report = {"<public entry>": sorted({m.split(".")[0] for m in sys.modules} & {"agents", "training"})}
# Then every module on its own: the package is forgotten before each, so each import starts from scratch
# (an import loop shows as an ImportError, a module pulling in agents/training is named).
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("keine_ahnung_env", "agents", "training")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
        report[name] = sorted({m.split(".")[0] for m in sys.modules} & {"agents", "training"})
    except Exception as exc:
        report[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def import_report() -> dict:
    """What importing each environment module pulls in, from one fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", IMPORT_REPORT, json.dumps(ENV_MODULES)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["<public entry>"] + ENV_MODULES)
def test_environment_package_imports_neither_agents_nor_training(module, import_report):
    assert import_report[module] == [], f"importing {module} gave {import_report[module]}"


ALLOWED_GAME_IMPORTS: dict[str, str] = {}
"""``path: why`` of modules of agents/ or training/ allowed to import ``keine_ahnung_env.games`` (none)."""


def game_internal_imports(path: Path) -> list[str]:
    """The ``keine_ahnung_env.games`` imports of one source file: import statements anywhere (also inside
    functions) and ``importlib.import_module``/``__import__`` calls or ``"module:attribute"`` strings
    naming such a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and " " not in node.value:
            names = [node.value.split(":")[0]]
        found += [f"line {node.lineno}: {name}" for name in names
                  if name == "keine_ahnung_env.games" or name.startswith("keine_ahnung_env.games.")]
    return found


def test_agents_and_training_never_import_a_games_internals():
    offenders = {}
    for folder in ("agents", "training"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found = game_internal_imports(path)
            if found and relative not in ALLOWED_GAME_IMPORTS:
                offenders[relative] = sorted(set(found))
    assert not offenders, "modules above the games import a game's internals:\n" + "\n".join(
        f"  {path}: {', '.join(found)}" for path, found in offenders.items())
