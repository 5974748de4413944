"""Keine Ahnung under the shared reliability checks (``tests/conformance.py``): it never breaks, never
leaks, never lies.

Hypothesis draws variants (2-5 players, both memory modes, ``allow_keep``, ``reshuffle_discards``,
every reward mode, ``max_turns`` from 1 to 4000, the default deck, random small decks and a small deck
with every extra function) and action programs mixing legal and bad input. Settings are
derandomized and database-free so that every run (and CI) tries the same examples.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

import agents
from agents.base import sample_masked
import conformance as C
from keine_ahnung_adapter import KA, REVEAL_DECK, rules_of
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung import odds as risk

SETTINGS = dict(deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
HANG_SECONDS = 120  # far above any honest example; only an endless loop trips it

FIXED_VARIANTS = [
    pytest.param({"num_players": 2}, id="2p"),
    pytest.param({"num_players": 3, "memory": "none", "allow_keep": True, "reward": "rank"}, id="3p-none-keep-rank"),
    pytest.param({"num_players": 4, "reshuffle_discards": False, "reward": "score", "max_turns": 40}, id="4p-noreshuffle"),
    pytest.param({"num_players": 5, "memory": "none", "max_turns": 25}, id="5p-none-short"),
    pytest.param({"num_players": 2, "deck": REVEAL_DECK, "allow_keep": True}, id="2p-small-deck"),
]

seeds = st.integers(0, 2 ** 31 - 1)


# ================================================================ never breaks: invariants


@settings(max_examples=200, **SETTINGS)
@given(variant=KA.variant_strategy(), num_envs=st.sampled_from([1, 2, 7, 9]), seed=seeds,
       engine_path=st.sampled_from(KA.engine_paths), program=C.programs(max_ops=12))
def test_invariants_hold_after_every_step_of_random_programs(variant, num_envs, seed, engine_path, program):
    """Random deals, player counts, options and action sequences, legal and illegal: after every step
    cards and trophies are conserved, masks are non-empty exactly for the seat to act, observations
    are finite and in their bounds, finished games stay finished; bad input changes nothing."""
    with C.watchdog(HANG_SECONDS, f"the engine on {variant}"):
        core = KA.make_core(num_envs, variant, seed, engine_path=engine_path)
        stats = C.run_program(KA, core, program, max_steps=200)
    target(float(stats["steps"]), label="steps played")


@settings(max_examples=20, **SETTINGS)
@given(variant=KA.variant_strategy(max_turns=(1, 3, 10, 40)), seed=seeds)
def test_every_aec_move_keeps_observations_in_their_spaces_and_masks_with_the_mover(variant, seed):
    with C.watchdog(HANG_SECONDS):
        C.check_aec_game(KA, variant, seed, normalize_obs=bool(seed % 2))


@pytest.mark.parametrize("variant", FIXED_VARIANTS)
def test_played_to_the_end_every_game_keeps_the_invariants(variant):
    """Whole games (not only their openings), with every game of the batch ended and re-dealt."""
    core = KA.make_core(6, KA.quick_variant(variant), seed=11)
    rng = np.random.default_rng(11)
    ended = 0
    with C.watchdog(HANG_SECONDS):
        for _ in range(3000):
            if C.done_of(core).all():
                core.reset_games(np.arange(core.num_envs))
                if ended >= 12:
                    break
            ended += C.step_checked(KA, core, sample_masked(rng, core.legal_mask)).size
    assert ended >= 12


# ================================================================ never lies: determinism


@settings(max_examples=15, **SETTINGS)
@given(variant=KA.variant_strategy(), seed=seeds)
def test_same_seed_same_trajectories(variant, seed):
    with C.watchdog(HANG_SECONDS):
        C.check_same_seed(KA, variant, seed, num_envs=4, steps=60, policy_seed=seed + 1)


@settings(max_examples=25, **SETTINGS)
@given(variant=KA.variant_strategy(max_turns=(2, 8, 40, 150)), seed=seeds,
       engine_path=st.sampled_from(KA.engine_paths), num_envs=st.sampled_from([3, 8, 12]))
def test_game_i_of_a_batch_equals_game_i_alone(variant, seed, engine_path, num_envs):
    """Whatever the batch size, the other games, partial ``active`` masks and the engine path
    (whole-array or game by game)."""
    with C.watchdog(HANG_SECONDS):
        C.check_batch_independence(KA, variant, seed, num_envs=num_envs, steps=60, policy_seed=seed,
                                   engine_path=engine_path)


@settings(max_examples=15, **SETTINGS)
@given(variant=KA.variant_strategy(max_turns=(3, 12, 30)), seed=seeds)
def test_results_do_not_depend_on_autoreset(variant, seed):
    with C.watchdog(HANG_SECONDS):
        C.check_autoreset_independence(KA, variant, seed, num_envs=3, episodes=2, policy_seed=seed)


@pytest.mark.parametrize("variant", FIXED_VARIANTS)
def test_deepcopy_and_pickle_mid_game_continue_identically_on_every_surface(variant):
    """The core, vector_env, raw and wrapped AEC envs, solo_env and sb3_vec_env: a copy made
    mid-game (deepcopy or a pickle round trip) equals the original and continues exactly as it does,
    and stepping the copy leaves the original untouched."""
    C.check_every_surface_copies(KA, variant, seed=5, warmup=15, steps=20)


def test_different_seeds_give_different_deals():
    a = KA.make_core(4, {"num_players": 4}, seed=1)
    b = KA.make_core(4, {"num_players": 4}, seed=2)
    assert all(a.snapshot(i) != b.snapshot(i) for i in range(4))


# ================================================================ runs for days: memory


class CountingAgent:
    """A random agent that counts how often it was re-seeded."""

    name = "counting"

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.reseeds = 0

    def reseed(self, seed):
        self.rng = np.random.default_rng(seed)
        self.reseeds += 1

    def act(self, observation, action_mask):
        return sample_masked(self.rng, action_mask)


class SnapshotPool:
    """A pool that draws a fixed baseline and a brand-new agent for every episode (as self-play adds
    snapshots); it remembers weak references to the agents it made (not copied with it)."""

    def __init__(self):
        self.baseline = CountingAgent(1)
        self.made = []

    def __call__(self, rng):
        import weakref

        fresh = CountingAgent(int(rng.integers(1000)))
        self.made.append(weakref.ref(fresh))
        return [self.baseline, fresh][:: 1 if rng.random() < 0.5 else -1]

    def __getstate__(self):
        return {"baseline": self.baseline, "made": []}


def test_agents_a_pool_dropped_are_freed_and_kept_ones_are_not_reseeded():
    """Self-play adds a new snapshot to the opponent pool again and again and drops old ones: the
    driver must not keep every agent it ever seated (memory grew without bound), and a baseline the
    pool keeps drawing must keep its generator running (not be re-seeded at every draw)."""
    import gc

    pool = SnapshotPool()
    venv = keine_ahnung_v0.sb3_vec_env(4, pool, num_players=3, seed=0, max_turns=4)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        venv.step(sample_masked(rng, venv.action_masks()))
    gc.collect()
    alive = sum(ref() is not None for ref in pool.made)
    assert len(pool.made) > 100
    assert alive <= venv.num_envs, f"{alive} of {len(pool.made)} dropped pool agents are still alive"
    assert len(venv.games.agents) <= 3 * venv.num_envs + 2, "the agent slots keep growing"
    assert pool.baseline.reseeds == 1, "the baseline was re-seeded when drawn again"
    C.check_copy_continues(venv, C.advance_sb3, C.fingerprint_sb3, steps=10, what="sb3 vec env with a pool")


# ================================================================ never leaks


def observation_functions(core):
    """Everything that claims to read only an observation: the risk model and the policy features."""
    t, P = core.tables, core.num_players
    fns = [
        ("risk.call_success_probability", lambda o: risk.call_success_probability(o[0], t)),
        ("risk.batch_call_success_probability", lambda o: risk.batch_call_success_probability(o, t)),
        ("risk.exact_call_success_probability", lambda o: str(risk.exact_call_success_probability(o[0], t))),
        ("risk.call_is_legal", lambda o: risk.call_is_legal(o, t)),
        ("risk.unknown_fit_probability", lambda o: np.stack(risk.unknown_fit_probability(o, t))),
        ("risk.expected_trophy_value", lambda o: risk.expected_trophy_value(o, t)),
        ("risk.expected_call_value", lambda o: risk.expected_call_value(o, t)),
    ]
    fns += [(f"risk.batch_call_success_probability(seat={s})",
             lambda o, s=s: risk.batch_call_success_probability(o, t, seat=s)) for s in range(1, P)]
    try:
        from agents.features import ObservationFeatures
    except ImportError:
        pass
    else:
        options = {k: v for k, v in core.rules.options().items() if k != "num_players"}
        hints = ObservationFeatures("hints", P, options)
        fns.append(("agents.features hints", hints))
    return fns


HEURISTICS = [name for name in ("greedy", "risk_caller:0.5", "counter") if name.split(":")[0] in agents.available()]


def agent_factories(core):
    deck = core.rules.deck
    return [(name, lambda name=name: agents.make(name, seed=1234, deck=deck)) for name in HEURISTICS]


@settings(max_examples=30, **SETTINGS)
@given(variant=KA.variant_strategy(), seed=seeds, stops=st.lists(st.integers(0, 150), min_size=1, max_size=3))
def test_hidden_cards_and_trophies_never_reach_a_seat(variant, seed, stops):
    """For every seat: relabelling the cards it may not know and permuting the trophies it does not
    own leaves its observation, mask and string view, the risk model's outputs and the heuristic
    agents' actions unchanged."""
    core = KA.make_core(3, variant, seed)
    rng = np.random.default_rng(seed)
    fns, makers = observation_functions(core), agent_factories(core)
    done_steps = 0
    with C.watchdog(HANG_SECONDS):
        for stop in sorted(stops):
            while done_steps < stop and not C.done_of(core).all():
                core.step(sample_masked(rng, core.legal_mask))
                done_steps += 1
            stats = C.check_hidden_information(KA, core, rng, fns, makers)
            assert stats["variants"] == 2 * core.num_envs * core.num_players


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_leak_check_has_teeth_and_holds_through_whole_games(num_players, memory):
    """The control (relabelling visible cards too) does change the view, so the hidden-variant
    comparison can fail; the hidden variants never do, at many points of real games."""
    core = KA.make_core(2, {"num_players": num_players, "memory": memory}, seed=num_players)
    rng = np.random.default_rng(num_players)
    fns, makers = observation_functions(core), agent_factories(core)
    totals = {"variants": 0, "controls": 0, "controls_changed": 0}
    for step in range(400):
        if step % 40 == 5:
            stats = C.check_hidden_information(KA, core, rng, fns, makers)
            for key in totals:
                totals[key] += stats[key]
        if C.done_of(core).all():
            break
        core.step(sample_masked(rng, core.legal_mask))
    assert totals["variants"] >= 40
    assert totals["controls_changed"] >= 0.8 * totals["controls"] > 0


# ================================================================ bad input, everywhere


@pytest.mark.parametrize("variant", FIXED_VARIANTS)
def test_vector_env_rejects_bad_input_and_goes_on(variant):
    C.check_vector_env_bad_input(KA, KA.quick_variant(variant), seed=3)


@pytest.mark.parametrize("variant", FIXED_VARIANTS[:3])
def test_constructors_reject_bad_arguments_options_and_decks(variant):
    C.check_constructors_reject(KA, variant)


@pytest.mark.parametrize("variant", FIXED_VARIANTS)
def test_aec_env_rejects_bad_input_and_goes_on(variant):
    C.check_aec_bad_input(KA, KA.quick_variant(variant), seed=4)


@pytest.mark.parametrize("variant", FIXED_VARIANTS)
def test_solo_env_rejects_bad_input_and_goes_on(variant):
    C.check_solo_bad_input(KA, KA.quick_variant(variant), seed=6)


@pytest.mark.parametrize("variant", FIXED_VARIANTS[:3])
def test_sb3_vec_env_rejects_bad_input_and_goes_on(variant):
    C.check_sb3_bad_input(KA, KA.quick_variant(variant), seed=8)


@pytest.mark.parametrize("spec, match", [
    ("nope", r"unknown agent 'nope' for keine_ahnung_v0; available: .*greedy"),
    ("", r"agent spec ''; expected a non-empty string"),
    ("greedy:1", r"'greedy' takes: none"),
    ("risk_caller:1.5", r"threshold=1.5; allowed: a number from 0 to 1"),
    ("risk_caller:-0.1", r"threshold=-0.1; allowed"),
    ("risk_caller:abc", r"threshold='abc'; allowed"),
    ("risk_caller:nan", r"threshold=nan; allowed"),
    ("risk_caller:0.5:0.7", r"takes: threshold"),
    ("ppo", r"needs path="),
    ("ppo:/nonexistent/model.zip", r"^no such file: /nonexistent/model.zip$"),
])
def test_agents_make_rejects_bad_names_and_arguments(spec, match):
    with pytest.raises(ValueError, match=match):
        agents.make(spec, seed=0)


def test_agents_make_rejects_unknown_games_and_keywords():
    with pytest.raises(ValueError, match=r"unknown game 'chess'; registered games: .*keine_ahnung_v0"):
        agents.make("greedy", game="chess")
    with pytest.raises(ValueError, match=r"agent 'greedy' rejected its arguments \{'speed': 2\}"):
        agents.make("greedy", speed=2)
    with pytest.raises(ValueError, match=r"agent spec None"):
        agents.make(None)
    greedy = agents.make("greedy", seed=0)
    env = keine_ahnung_v0.vector_env(2, num_players=3, seed=0).reset()
    with pytest.raises(ValueError, match=r"action_mask must have 44 columns"):
        greedy.act(env.observation, env.action_mask[:, :10])
    with pytest.raises(ValueError, match=r"rows"):
        greedy.act(env.observation, env.action_mask[:1])
    with pytest.raises(ValueError, match=r"observation width 7 matches no player count.*allowed widths"):
        greedy.act(np.zeros((2, 7), np.float32), env.action_mask)


# ================================================================ decks that cannot be played


def _deck_error(deck):
    with C.watchdog(10, "dealing with this deck"):
        keine_ahnung_v0.vector_env(1, num_players=2, seed=0, deck=deck)


def test_a_deck_of_only_reveal_cards_is_refused():
    cards = [("red", n, "reveal") for n in range(1, 7)] * 7
    with pytest.raises(ValueError, match="reveal"):
        _deck_error({"number_cards": cards, "prizes": []})


@pytest.mark.parametrize("deck", [
    {"number_cards": None},
    {"number_cards": [5] * 40},
    {"number_cards": [("red", 1, "none")] * 40, "prizes": None},
    {"number_cards": [("red", 1, "none")] * 40, "trophies": 3},
], ids=["cards-None", "card-int", "prizes-None", "trophies-int"])
def test_a_malformed_deck_field_is_a_value_error(deck):
    with pytest.raises(ValueError, match=r"deck: .*allowed|deck: .*expected"):
        keine_ahnung_v0.vector_env(1, num_players=2, deck=deck)


# ================================================================ checkpoints


class Payload:
    """Unpickling this creates ``path`` (stands in for any code an archive could run)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _info_fields():
    from agents.ppo import CheckpointInfo

    return {f.name for f in dataclasses.fields(CheckpointInfo)}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A real (untrained) 3-player MaskablePPO checkpoint written by agents.ppo.save_checkpoint."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.base import RandomAgent
    from agents.ppo import CheckpointInfo, save_checkpoint
    from keine_ahnung_env.games.keine_ahnung.actions import NUM_ACTIONS
    from keine_ahnung_env.games.keine_ahnung.observation import OBSERVATION_VERSION

    torch.set_num_threads(1)
    venv = keine_ahnung_v0.sb3_vec_env(2, [RandomAgent(1), RandomAgent(2)], num_players=3, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, seed=0, device="cpu",
                        policy_kwargs=dict(net_arch=[16], activation_fn=torch.nn.Tanh))
    fields = _info_fields()
    info = dict(game="keine_ahnung_v0", num_players=3, rules=rules_of({"num_players": 3}).options(),
                observation_version=OBSERVATION_VERSION, observation_size=venv.observation_space.shape[0],
                num_actions=NUM_ACTIONS, net_arch=(16,), activation="tanh")
    if "features" in fields:
        info["features"] = "raw"
    if "normalize_obs" in fields:
        info["normalize_obs"] = True
    path = save_checkpoint(model, tmp_path_factory.mktemp("ckpt") / "model", CheckpointInfo(**info))
    return Path(path)


def _copy_checkpoint(src: Path, dst_dir: Path, name: str = "model", entries=None, sidecar=None,
                     rehash: bool = True) -> Path:
    """A copy of a checkpoint with replaced archive entries and/or sidecar fields; the sidecar's hash
    is updated to the new archive (as a forger would) unless ``rehash`` is False."""
    dst = dst_dir / f"{name}.zip"
    with zipfile.ZipFile(src) as archive:
        content = {n: archive.read(n) for n in archive.namelist()}
    content.update(entries or {})
    with zipfile.ZipFile(dst, "w") as archive:
        for n, data in content.items():
            archive.writestr(n, data)
    side = json.loads(src.with_suffix(".json").read_text())
    side.update(sidecar or {})
    if rehash:
        side["sha256"] = hashlib.sha256(dst.read_bytes()).hexdigest()
    dst.with_suffix(".json").write_text(json.dumps(side))
    return dst


def _load_both_ways(path: Path, **kwargs):
    from agents.ppo import load_policy

    load_policy(path)
    return agents.make("ppo", path=str(path), **kwargs)


def test_checkpoint_plays_and_refuses_other_variants(checkpoint):
    agent = agents.make("ppo", path=str(checkpoint), num_players=3, seed=0)
    result = keine_ahnung_v0.vector_env(4, num_players=3, seed=0).reset()
    actions = agent.act(result.observation, result.action_mask)
    assert result.action_mask[np.arange(4), actions].all()
    with pytest.raises(ValueError, match=r"trained for 3 players, not 4"):
        agents.make("ppo", path=str(checkpoint), num_players=4)
    with pytest.raises(ValueError, match=r"other rules options: \['memory'\]"):
        agents.make("ppo", path=str(checkpoint), num_players=3, rules={"memory": "none"})
    with pytest.raises(ValueError, match=r"other rules options: \['deck'\]"):
        agents.make("ppo", path=str(checkpoint), num_players=3, rules={"deck": REVEAL_DECK})
    other = keine_ahnung_v0.vector_env(2, num_players=4, seed=0).reset()
    with pytest.raises(ValueError, match=r"observations must be \[batch, \d+\]"):
        agent.act(other.observation, other.action_mask)


def test_checkpoint_for_another_game_is_refused(checkpoint, tmp_path):
    forged = _copy_checkpoint(checkpoint, tmp_path, sidecar={"game": "gap_v0"})
    with pytest.raises(ValueError, match=r"trained for 'gap_v0', not 'keine_ahnung_v0'"):
        agents.make("ppo", path=str(forged))
    with pytest.raises(ValueError, match=r"trained for 'gap_v0'"):
        agents.make("ppo", path=str(forged), num_players=3)


def test_checkpoint_from_another_observation_version_is_refused(checkpoint, tmp_path):
    forged = _copy_checkpoint(checkpoint, tmp_path, sidecar={"observation_version": 999})
    with pytest.raises(ValueError, match=r"observation version 999"):
        agents.make("ppo", path=str(forged))


@pytest.mark.parametrize("field, value, match", [
    ("num_players", "three", r"num_players"),
    ("num_players", 7, r"num_players|players"),
    ("observation_size", "big", r"observation_size"),
    ("num_actions", -1, r"num_actions"),
    ("rules", "default", r"rules"),
    ("rules", {"colour_blind": True}, r"unknown rules option|rules"),
    ("net_arch", ["a"], r"net_arch|malformed"),
    ("net_arch", [0], r"net_arch"),
    ("activation", "sigmoid", r"activation 'sigmoid'; allowed"),
    ("format", "other/1", r"not a keine_ahnung_env.ppo/1 sidecar"),
    ("timesteps", "many", r"timesteps"),
])
def test_tampered_sidecar_fields_are_clear_errors(checkpoint, tmp_path, field, value, match):
    forged = _copy_checkpoint(checkpoint, tmp_path, sidecar={field: value})
    with pytest.raises(ValueError, match=match):
        _load_both_ways(forged)


def test_sidecar_that_lies_about_the_player_count_is_refused(checkpoint, tmp_path):
    # The weights are 3-player ones; a sidecar claiming 4 players must not produce a working agent.
    forged = _copy_checkpoint(checkpoint, tmp_path, sidecar={"num_players": 4})
    with pytest.raises(ValueError, match=r"do not fit|observation_size|players"):
        _load_both_ways(forged, num_players=4)


def test_any_changed_byte_is_caught_by_the_recorded_hash(checkpoint, tmp_path):
    from agents.ppo import load_policy

    forged = _copy_checkpoint(checkpoint, tmp_path)
    data = bytearray(forged.read_bytes())
    for offset in (0, len(data) // 3, len(data) // 2, len(data) - 1):
        changed = bytearray(data)
        changed[offset] ^= 0x01
        forged.write_bytes(bytes(changed))
        with pytest.raises(ValueError, match=r"does not match the SHA-256 in its sidecar"):
            load_policy(forged)


def test_sidecar_missing_malformed_or_not_an_object(checkpoint, tmp_path):
    from agents.ppo import load_policy

    forged = _copy_checkpoint(checkpoint, tmp_path)
    side = forged.with_suffix(".json")
    for text, match in (("{not json", r"not valid JSON"), ("[1, 2]", r"not a keine_ahnung_env.ppo/1 sidecar"),
                        ('{"format": "keine_ahnung_env.ppo/1"}', r"lacks")):
        side.write_text(text)
        with pytest.raises(ValueError, match=match):
            load_policy(forged)
    side.unlink()
    with pytest.raises(ValueError, match=r"no sidecar"):
        agents.make("ppo", path=str(forged))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
@pytest.mark.parametrize("damage", ["truncated", "not_a_zip", "no_policy", "policy_garbage", "policy_truncated"])
def test_corrupted_archives_are_clear_errors(checkpoint, tmp_path, damage):
    from agents.ppo import load_policy

    if damage in ("truncated", "not_a_zip"):
        forged = _copy_checkpoint(checkpoint, tmp_path)
        data = forged.read_bytes()
        data = data[: len(data) // 2] if damage == "truncated" else b"this is not a zip archive" * 10
        forged.write_bytes(data)
        with pytest.raises(ValueError, match=r"SHA-256"):
            load_policy(forged)
        side = json.loads(forged.with_suffix(".json").read_text())
        side["sha256"] = hashlib.sha256(data).hexdigest()  # a matching hash: the archive itself is checked
        forged.with_suffix(".json").write_text(json.dumps(side))
    elif damage == "policy_truncated":
        with zipfile.ZipFile(checkpoint) as archive:
            weights = archive.read("policy.pth")
        forged = _copy_checkpoint(checkpoint, tmp_path, entries={"policy.pth": weights[: len(weights) // 2]})
    elif damage == "no_policy":
        forged = _copy_checkpoint(checkpoint, tmp_path)
        with zipfile.ZipFile(forged, "w") as archive:
            archive.writestr("data", "{}")
        side = json.loads(forged.with_suffix(".json").read_text())
        side["sha256"] = hashlib.sha256(forged.read_bytes()).hexdigest()
        forged.with_suffix(".json").write_text(json.dumps(side))
    else:
        forged = _copy_checkpoint(checkpoint, tmp_path, entries={"policy.pth": b"\x80\x04garbage" * 20})
    with pytest.raises(ValueError, match=r"unreadable|do not fit|SHA-256"):
        load_policy(forged)
    with pytest.raises(ValueError):
        agents.make("ppo", path=str(forged))


def _payloads(marker: Path) -> dict[str, bytes]:
    import torch

    raw = pickle.dumps(Payload(marker))
    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buffer)
    return {"raw pickle": raw, "torch archive": buffer.getvalue()}


def test_the_malicious_payload_really_runs_code_when_unpickled(tmp_path):
    """Control for the next tests: plain unpickling of the payload does create the marker."""
    marker = tmp_path / "marker"
    pickle.loads(_payloads(marker)["raw pickle"])
    assert marker.exists()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
@pytest.mark.parametrize("kind", ["raw pickle", "torch archive"])
def test_loading_never_runs_code_from_policy_weights(checkpoint, tmp_path, kind):
    from agents.ppo import load_policy

    marker = tmp_path / "marker"
    forged = _copy_checkpoint(checkpoint, tmp_path, entries={"policy.pth": _payloads(marker)[kind]})
    with pytest.raises(ValueError, match=r"unreadable|weights"):
        load_policy(forged)
    with pytest.raises(ValueError, match=r"unreadable|weights"):
        agents.make("ppo", path=str(forged), num_players=3)
    assert not marker.exists(), "loading a checkpoint ran code from the file"


def test_loading_never_unpickles_the_sb3_data_entry(checkpoint, tmp_path):
    """SB3's ``data`` entry stores objects as base64 cloudpickle (``MaskablePPO.load`` would run them);
    the safe loader never reads it, so the checkpoint loads and nothing runs."""
    import base64

    marker = tmp_path / "marker"
    with zipfile.ZipFile(checkpoint) as archive:
        data = json.loads(archive.read("data"))
    payload = base64.b64encode(_payloads(marker)["raw pickle"]).decode()
    for key in list(data)[:5]:
        data[key] = {":type:": "<class 'object'>", ":serialized:": payload}
    data["policy_class"] = {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}
    forged = _copy_checkpoint(checkpoint, tmp_path, entries={"data": json.dumps(data).encode()})
    agent = _load_both_ways(forged, num_players=3)
    result = keine_ahnung_v0.vector_env(2, num_players=3, seed=1).reset()
    assert result.action_mask[np.arange(2), agent.act(result.observation, result.action_mask)].all()
    assert not marker.exists(), "loading a checkpoint ran code from the archive's data entry"
