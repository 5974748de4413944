"""The packed state (``keine_ahnung_env/packing.py``): every game's ``unpack`` rebuilds exactly its state and
constant tuples from the buffer, the core's arrays are that buffer, and a packed core plays exactly as one
that passes the tuples (after an array is replaced by assignment, the core falls back to the tuples)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from numba import njit

from keine_ahnung_env import registry
from keine_ahnung_env.packing import check_unpacked, pack, unpack_source

GAMES = ("keine_ahnung_v0", "gap_v0", "dnp_v0")


def _echo(kernels):
    """A compiled function returning ``kernels.unpack(buf, meta)`` to Python (one per game module)."""
    unpack = kernels.unpack
    return njit(lambda buf, meta: unpack(buf, meta))


@pytest.mark.parametrize("game", GAMES)
def test_unpack_rebuilds_the_state_and_constants_exactly(game):
    core = registry.game_spec(game, 3).make_core(5, 2)
    buf, meta = core._packed
    state, consts = _echo(core.kernels)(buf, meta)
    assert check_unpacked(core._state(), core._k, state, consts) == []


def test_check_unpacked_finds_a_wrong_dtype_shape_value_and_memory():
    core = registry.game_spec("keine_ahnung_v0", 4).make_core(2, 0)
    state, consts = core._state(), core._k
    bad_state = state._replace(draw_pos=state.draw_pos.astype(np.int32),  # dtype
                               layout=state.layout.reshape(2, -1),          # shape
                               current=state.current.copy())                # memory
    bad_consts = consts._replace(max_turns=consts.max_turns + 1, allow_keep=int(consts.allow_keep))
    problems = check_unpacked(state, consts, bad_state, bad_consts)
    assert any(p.startswith("state.draw_pos:") for p in problems)
    assert any(p.startswith("state.layout:") for p in problems)
    assert "state.current: not the core's memory" in problems
    assert any(p.startswith("consts.max_turns:") for p in problems)
    assert any(p.startswith("consts.allow_keep:") for p in problems)
    assert len(problems) == 5


@pytest.mark.parametrize("game", GAMES)
def test_the_cores_arrays_are_views_into_the_buffer(game):
    core = registry.game_spec(game, 4).make_core(3, 1)
    buf, meta = core._packed
    for name in core.kernels.STATE_FIELDS:
        array = getattr(core, name)
        assert np.shares_memory(array, buf), name
        assert array.flags.c_contiguous and array.ctypes.data % 64 == 0, name
    assert meta.shape == (len(core.kernels.STATE_FIELDS) + len(core._k), 5)


def test_pack_copies_values_and_records_offsets_and_shapes():
    import collections
    S = collections.namedtuple("S", "a b")
    C = collections.namedtuple("C", "c n flag x")
    state = S(np.arange(6, dtype=np.int16).reshape(2, 3), np.array([True, False]))
    consts = C(np.ones((2, 2, 2), np.float32), 7, True, 0.25)
    buf, meta, views = pack(state, consts)
    assert [v.shape for v in views] == [(2, 3), (2,)]
    assert np.array_equal(views[0], state.a) and views[0].dtype == np.int16
    assert meta[:, 0].tolist() == [0, 64, 128, 192, 256, 320]
    assert meta[:, 1].tolist() == [12, 2, 32, 8, 8, 8]
    assert meta[0, 2:].tolist() == [2, 3, 0] and meta[2, 2:].tolist() == [2, 2, 2] and meta[3, 2:].tolist() == [0, 0, 0]
    assert buf[192:200].view(np.int64)[0] == 7 and buf[256:264].view(np.int64)[0] == 1
    assert buf[320:328].view(np.float64)[0] == 0.25
    with pytest.raises(ValueError, match="a field must be an array, an integer, a boolean or a float"):
        pack(state, C(consts.c, "seven", True, 0.25))
    with pytest.raises(ValueError, match="at most 3 dimensions"):
        pack(S(np.zeros((1, 1, 1, 1)), state.b), consts)


def test_unpack_source_names_every_field_in_order():
    core = registry.game_spec("gap_v0", 4).make_core(1, 0)
    source = unpack_source(core._state(), core._k)
    assert "field2(buf, meta, 0, np.int8),  # card_loc" in source
    assert "field2(buf, meta, 2, np.bool_),  # card_seen" in source
    row = {name: len(core.kernels.STATE_FIELDS) + i for i, name in enumerate(core._k._fields)}
    assert f"float_at(buf, meta, {row['round_reward_scale']}),  # round_reward_scale" in source
    assert f"bool_at(buf, meta, {row['flip_on_extra_turns']}),  # flip_on_extra_turns" in source
    assert f"int_at(buf, meta, {row['num_players']}),  # num_players" in source


def _play(core, steps, seed):
    """Random legal play at batch ``core.num_envs``; the observations of every step, stacked."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)
        u = rng.random((core.num_envs, 1))
        mask = core.legal_mask
        actions = (np.cumsum(mask, axis=1) > u * mask.sum(axis=1, keepdims=True)).argmax(axis=1)
        core.step(actions)
        seen.append(core.observe(core.current.astype(np.intp)))
        seen.append(core.rewards.copy())
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_a_packed_core_plays_as_one_that_passes_the_tuples(game):
    packed = registry.game_spec(game, 4).make_core(2, 5)
    tuples = registry.game_spec(game, 4).make_core(2, 5)
    tuples.legal_mask = tuples.legal_mask.copy()  # a replaced array: this core falls back to the tuples
    assert "_packed" in packed.__dict__ and "_packed" not in tuples.__dict__
    for a, b in zip(_play(packed, 300, 9), _play(tuples, 300, 9)):
        assert np.array_equal(a, b)


def test_a_replaced_array_is_the_one_the_kernels_use():
    core = registry.game_spec("keine_ahnung_v0", 4).make_core(1, 3)
    mine = core.rewards.copy()
    core.rewards = mine
    legal = np.flatnonzero(core.legal_mask[0])
    core.rewards[:] = 7.0
    core.step(np.array([legal[0]]))
    assert core.rewards is mine and (mine == 0).all()  # the step reset the rewards in the caller's array


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_are_packed_and_play_on_identically(how):
    core = registry.game_spec("keine_ahnung_v0", 4).make_core(1, 4)
    _play(core, 20, 1)
    twin = copy.deepcopy(core) if how == "deepcopy" else pickle.loads(pickle.dumps(core))
    assert "_packed" in twin.__dict__ and not np.shares_memory(twin.layout, core._packed[0])
    for a, b in zip(_play(core, 200, 2), _play(twin, 200, 2)):
        assert np.array_equal(a, b)


def test_gather_and_from_state_arrays_give_packed_cores():
    spec = registry.game_spec("keine_ahnung_v0", 4)
    core = spec.make_core(3, 6)
    gathered = type(core).gather([(core, np.array([2, 0]))])
    assert "_packed" in gathered.__dict__
    assert np.array_equal(gathered.layout, core.layout[[2, 0]])
    rebuilt = type(core).from_state_arrays(core.rules, core.state_arrays([1]), seeds=[0], rng_state=core.rng_state[[1]])
    assert "_packed" in rebuilt.__dict__ and np.array_equal(rebuilt.legal_mask, core.legal_mask[[1]])


@pytest.mark.parametrize("game", GAMES)
def test_a_bad_action_on_a_packed_batch_raises_and_changes_nothing(game):
    core = registry.game_spec(game, 4).make_core(2, 8)
    before = {name: getattr(core, name).copy() for name in core.kernels.STATE_FIELDS}
    illegal = np.flatnonzero(~core.legal_mask[1])[0]
    legal = np.flatnonzero(core.legal_mask[0])[0]
    with pytest.raises(ValueError, match=f"illegal action {illegal} .* for game 1"):
        core.step(np.array([legal, illegal]))
    with pytest.raises(ValueError, match="out of range"):
        core.step(np.array([legal, 10_000]))
    for name, array in before.items():
        assert np.array_equal(getattr(core, name), array), name


@pytest.mark.parametrize("game", GAMES)
def test_the_packed_entry_points_are_the_serial_loops_spliced_in(game):
    # Compiled once inside the entry point, not compiled on their own and called: a packed entry point
    # names none of the serial loops; the tuple version step_range_checked still calls step_range.
    kernels = registry.game_spec(game).make_core(1, 0).kernels
    loops = {"step_range", "deal_range", "observe_range"}
    for name in ("step_range_packed", "step_range_checked_packed", "deal_range_packed", "observe_range_packed"):
        code = getattr(kernels, name).py_func.__code__
        assert not set(code.co_names) & loops, name
        assert code.co_filename == kernels.__file__
    assert "step_range" in kernels.step_range_checked.py_func.__code__.co_names


def _loop_binding_findings(s, k, actions, active, lo, hi):
    for b in range(lo, hi):
        findings = b  # a name step_range_checked_packed's template binds too
        actions[b] = findings


def _plain_deal(s, k, games, lo, hi):
    for i in range(lo, hi):
        games[i] = i


def _plain_observe(s, k, games, seats, out, lo, hi):
    for i in range(lo, hi):
        out[i, 0] = seats[i]


def test_a_loop_that_binds_a_name_of_the_template_is_called_not_spliced():
    from keine_ahnung_env import packing

    namespace = {"__file__": packing.__file__, "np": np, "check_actions_kernel": packing.check_actions_kernel,
                 "step_range": njit(_loop_binding_findings), "deal_range": njit(_plain_deal),
                 "observe_range": njit(_plain_observe)}
    packed = packing.define_packed_entry_points(namespace)
    names = lambda name: set(namespace[name].py_func.__code__.co_names)  # noqa: E731
    assert "step_range" in names("step_range_checked_packed")  # would clash with its ``findings``: called
    assert "step_range" not in names("step_range_packed")  # no clash there: spliced
    assert "deal_range" not in names("deal_range_packed") and "observe_range" not in names("observe_range_packed")
    assert packed == {namespace["step_range"]: namespace["step_range_packed"],
                      namespace["step_range_checked"]: namespace["step_range_checked_packed"],
                      namespace["deal_range"]: namespace["deal_range_packed"],
                      namespace["observe_range"]: namespace["observe_range_packed"]}
