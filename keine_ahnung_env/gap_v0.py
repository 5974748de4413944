# noqa: D212, D415
"""
# The gap game

The gap game (Steffen Benndorf; the rulebook text does not print its published name), 2-4 players
(5 as an extension), on the compiled batched core.

| Import             | `from keine_ahnung_env import gap_v0`                                |
|--------------------|----------------------------------------------------------------------|
| Actions            | Discrete                                                             |
| Parallel API       | No                                                                   |
| Manual Control     | No                                                                   |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default) |
| Agents             | 2-5 (`num_players`, default 4; 5 is an extension of the rulebook)    |
| Action Shape       | (1,)                                                                 |
| Action Values      | Discrete(201)                                                        |
| Observation Shape  | (325 + 72 * P,): 469, 541, 613, 685 floats for 2, 3, 4, 5 players (version 2) |
| Observation Values | [0, high] (raw counts; `ObservationLayout.high`), [0, 1] if normalized |

Entry points (the same five as every game of the library, made by `entry_points.make_entry_points`):

* `env(num_players=4, render_mode=None, render_reveal_all=False, normalize_obs=False, **rules)`: the
  PettingZoo AEC environment, wrapped the PettingZoo way (an illegal move ends the game with reward
  -1 for the mover, out-of-range actions fail an assertion, call order is enforced).
* `raw_env(...)`: the same, unwrapped; an illegal action raises `ValueError` naming the legal ones.
* `solo_env(opponents, seat=None, num_players=4, normalize_obs=True, illegal_reward=-1.0, ...)`: one
  seat against fixed opponent agents, a single-agent `gymnasium.Env` with `action_masks()`.
* `sb3_vec_env(num_envs, opponents, num_players=4, seat="rotate", seed=None, ...)`: `num_envs` such
  games as one Stable-Baselines3 `VecEnv` stepped in one engine call.
* `vector_env(num_envs, num_players=4, seed=None, autoreset=True, **rules)`: the raw batched handle.

Rules options (every entry point; `games/gap/config.py`): `rounds` (None: 4 with 2 or 4 players, 3
with 3, 5 with 5), `flip_on_extra_turns` (True), `reward` ("win", "score", "rank"),
`round_reward_scale` (0.0: shaping off), `max_turns` (10,000). An unknown option or value raises
`ValueError` naming the allowed ones. Importing this module (`from keine_ahnung_env import gap_v0`, or
`registry.entry_points("gap_v0")`) registers the AEC environment with PettingZoo as
`keine_ahnung_env/gap_v0` and the single-agent one with Gymnasium as `keine_ahnung_env/gap_solo-v0`.

66 cards: numbers 1-11 in six colours. Each round every player is dealt 12 cards and lays 2 of them
face down as hidden cards; two cards face up start the left and right discard piles. On a turn a
player plays a hand card in the *gap* (a colour matching neither pile top, a number strictly between
the two tops' numbers; on either pile) and takes another turn, or plays a card matching a top's colour
or number on that pile (the turn ends), or passes and takes the top draw card. A turn that starts with
no gap begins by turning the top draw card face up onto a pile of the player's choice. The player who
lays their last card ends the round and scores the stars of their hidden cards; everybody else loses
the stars in their hand. The highest total after the last round wins. `games/gap/RULES.md` states the
rules as implemented and every choice made where the rulebook is silent.

### Observation Space

A dictionary with `'observation'` and `'action_mask'`. The observation is a float32 vector of named
sections (`games/gap/observation.py`, `ObservationLayout`), seats relative to the observer (0 = you):

| section      | length | content                                                                  |
|--------------|--------|--------------------------------------------------------------------------|
| phase        | 4      | one-hot: HIDE, FLIP, PLAY, OVER                                          |
| acting_seat  | P      | one-hot relative seat of the player to act                               |
| hand         | 66     | your hand cards                                                          |
| hidden       | 66     | your hidden cards                                                        |
| pile_tops    | 34     | left and right top: colour (6) and number (11) one-hot each              |
| flip_card    | 17     | the turned-up draw card awaiting your pile choice                        |
| discards     | 66     | the cards in the discard piles now                                       |
| seen         | 66     | every card face up this round (starting cards, plays, turned-up cards)   |
| hand_sizes   | P      | cards in each seat's hand                                                |
| hidden_sizes | P      | hidden cards each seat has laid                                          |
| table        | 6      | draw pile, cards below the tops, gap width, rounds played, dry passes, extra turn |
| dealer       | P      | one-hot relative seat of the dealer                                      |
| scores       | 2P     | per seat: plus part and minus part of its total                          |
| pool         | 66     | per card in the draw pile or a hand that was shuffled back this round: its pool (1 = the latest reshuffle) |
| pool_holdings | 66(P-1) | per opponent and pool label: how many cards of that pool it holds       |

Never encoded: the opponents' hands and hidden cards, the draw order (and, while hidden cards are
being chosen, the starting cards). `normalize_obs=True` divides every feature by its bound.

#### Legal Actions Mask

The legal moves of the agent to act are the `action_mask` element (int8, 1 = legal); it is exact in
every phase and all zeros for the other agents and once the game is over.

### Action Space

| id      | name                     | meaning                                                           |
|---------|--------------------------|-------------------------------------------------------------------|
| 0-131   | PLAY_<COLOUR>_<N>_<PILE> | play that hand card on the left / right pile (id = 2 * card + pile) |
| 132     | PASS                     | take the top draw card (always legal in the PLAY phase)            |
| 133-198 | HIDE_<COLOUR>_<N>        | lay that hand card face down as a hidden card (id = 133 + card)    |
| 199-200 | FLIP_LEFT, FLIP_RIGHT    | the turned-up draw card goes onto the left / right pile            |

`card = colour * 11 + number - 1`, colours blue, grey, green, yellow, red, purple. `gap_v0.Action`
names every id.

### Rewards

| reward          | each agent's reward at the end                                        |
|-----------------|-----------------------------------------------------------------------|
| "win" (default) | winners share +1, the others share -1 (0 for all when everybody ties)  |
| "score"         | the agent's final total                                               |
| "rank"          | (players beaten - players beating you) / (players - 1), in [-1, 1]    |

Ties share (no tie-break). `round_reward_scale=s` adds `s` times each seat's score change at the end
of every round. A game cut off at `max_turns` is truncated and its last step rewards 0. At the end
`infos[agent]` holds `{"scores": [...], "winner": bool, "seat": int}`.

### Rendering

`render_mode="ansi"` returns the table as text, `"rgb_array"` as a picture (`[H, W, 3]` uint8, from
`render_seat`'s point of view; None: the public table), `"human"` shows the picture in a window (needs
a display and pygame; docs/pictures.md); hands and hidden cards show as counts or card backs unless
`render_reveal_all=True` (debugging).

### Version History

* v0: Initial release: AEC, single-agent Gymnasium and SB3 VecEnv interfaces over the compiled batched
  core; observation encoding version 1.
"""

from __future__ import annotations

from .entry_points import gymnasium_solo_id, make_entry_points, pettingzoo_id, register_entry_points
from .games.gap.actions import NUM_ACTIONS, Action, Phase
from .games.gap.config import Rules
from .games.gap.game import GAME

__all__ = ["Action", "NUM_ACTIONS", "Phase", "Rules", "env", "game_spec", "raw_env", "sb3_vec_env", "solo_env",
           "vector_env"]

ENV_NAME = GAME.name
"""The game's registered name (its declaration, ``games/gap/game.py``)."""
PETTINGZOO_ID = pettingzoo_id(ENV_NAME)
"""The id under which ``env`` is registered with PettingZoo (>= 1.27) on import."""
GYMNASIUM_SOLO_ID = gymnasium_solo_id(ENV_NAME)
"""The id under which ``solo_env`` is registered with Gymnasium on import."""

env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec = make_entry_points(ENV_NAME, __name__)
register_entry_points(ENV_NAME, __name__)
