# noqa: D212, D415
"""
# Keine Ahnung (No Idea)

Keine Ahnung / No Idea (Steffen & Florian Benndorf), 2-5 players, on the batched NumPy core.

| Import             | `from keine_ahnung_env import keine_ahnung_v0`                       |
|--------------------|----------------------------------------------------------------------|
| Actions            | Discrete                                                             |
| Parallel API       | No                                                                   |
| Manual Control     | No                                                                   |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default) |
| Agents             | 2-5 (`num_players`, default 4)                                       |
| Action Shape       | (1,)                                                                 |
| Action Values      | Discrete(44)                                                         |
| Observation Shape  | (123 + 112 * P,): 347, 459, 571, 683 floats for 2, 3, 4, 5 players   |
| Observation Values | [0, high] (raw counts; `ObservationLayout.high`), [0, 1] if normalized |

Entry points:

* `env(num_players=4, render_mode=None, render_reveal_all=False, normalize_obs=False, **rules)`: the
  PettingZoo AEC environment, wrapped the PettingZoo way (an illegal move ends the game with reward
  -1 for the mover, out-of-range actions fail an assertion, call order is enforced).
* `raw_env(...)`: the same, unwrapped; an illegal action raises `ValueError` naming the legal ones.
* `solo_env(opponents, seat=None, num_players=4, normalize_obs=True, illegal_reward=-1.0,
  render_mode=None, render_reveal_all=False, **rules)`: one seat against fixed opponent agents, a
  single-agent `gymnasium.Env` with `action_masks()` for sb3-contrib's MaskablePPO.
* `sb3_vec_env(num_envs, opponents, num_players=4, seat="rotate", seed=None, normalize_obs=True,
  illegal_reward=-1.0, **rules)`: `num_envs` such games as one Stable-Baselines3 `VecEnv` stepped
  in one engine call, the opponents acting in batch too.
* `vector_env(num_envs, num_players=4, seed=None, autoreset=True, **rules)`: the raw batched handle
  (every seat is played by the caller).

Every rules option of the engine is a keyword of every entry point (`allow_keep`, `memory`,
`reward`, `max_turns`, `reshuffle_discards`, `deck`; see `games/keine_ahnung/config.py`); an unknown
option or value raises `ValueError` naming the allowed ones. After `import keine_ahnung_env` the AEC
environment is also registered with PettingZoo (`pettingzoo.make("aec",
"keine_ahnung_env/keine_ahnung_v0", num_players=3)`) and the single-agent one with Gymnasium
(`gymnasium.make("keine_ahnung_env/keine_ahnung_solo-v0", opponents=[...])`).

Each player has a layout of six face-down cards (two rows of three). On a turn the top card of the
draw pile is revealed and goes onto a discard pile whose top it fits (same colour or same number),
or opens a new pile. Then the player reveals one of their face-down cards: if it fits a pile top it
is played (and the player may choose the pile), a consolation prize is kept, and a card that fits
nowhere goes back face down, now known to the table. With at most three layout cards a player may
instead call "Nothing fits anymore!": if truly none of their cards fits, they win the top trophy;
otherwise they refill their layout. A player who empties their layout also wins a trophy and
refills. Some cards carry an extra function (reveal another draw-pile card, remove the other discard
piles, opponents refill to three). The game ends when the last trophy is won; the highest score
(trophy points + prize points) wins. `games/keine_ahnung/RULES.md` states the rules as implemented
and every choice made where the rulebook is silent.

### Observation Space

The observation is a dictionary which contains an `'observation'` element which is the usual RL
observation described below, and an `'action_mask'` which holds the legal moves, described in the
Legal Actions Mask section.

The main observation is a float32 vector of named sections (`games/keine_ahnung/observation.py`,
`ObservationLayout`), with seats relative to the observer (0 = you, 1 = the next player, ...):

| section           | length  | content                                                               |
|-------------------|---------|-----------------------------------------------------------------------|
| phase             | 4       | one-hot decision phase: MAIN, PLACE_DRAWN, PLACE_REVEALED, OVER        |
| acting_seat       | P       | one-hot relative seat of the player to act                            |
| pending_card      | 15      | card awaiting a pile: colour (6), number (6), extra function (3)       |
| pending_slot      | 6       | one-hot layout slot that card was revealed from                       |
| pile_tops         | 36      | number of discard piles whose top shows each colour and number        |
| layouts           | P*6*18  | per relative seat and slot: empty / face down / known, and known card |
| table_counts      | 4       | draw pile, set-aside cards, trophies left, discard piles              |
| players           | P*3     | per relative seat: trophies won, prize points, prizes won             |
| own_trophy_points | 1       | your trophy points (opponents' trophy values are secret)              |
| unknown_cards     | 57      | copies of each card type whose place you do not know                  |

With `memory="perfect"` (default) a face-down card that was ever revealed is shown with its identity;
with `memory="none"` only what is face up right now is shown. Nothing a seat may not know is ever
encoded. `normalize_obs=True` divides every feature by its bound, giving values in [0, 1].

#### Legal Actions Mask

The legal moves available to the current agent are found in the `action_mask` element of the
dictionary observation (int8, 1 = legal). The `action_mask` is all zeros for any agent except the one
whose turn it is, and for everybody once the game is over. Taking an illegal move under `env()` ends
the game with a reward of -1 for the illegally moving agent and 0 for all others; `raw_env()` raises
`ValueError` naming the legal actions instead.

### Action Space

| id    | name          | meaning                                                                    |
|-------|---------------|----------------------------------------------------------------------------|
| 0-5   | REVEAL_0..5   | reveal the face-down card in your layout slot s (slots 0-2, 3-5 by row)    |
| 6     | CALL          | "Nothing fits anymore!" (legal with 1-3 layout cards)                      |
| 7-42  | PLACE_<C>_<N> | put the pending card on the pile whose top shows colour C, number N        |
| 43    | KEEP          | put the revealed card back face down although it fits (`allow_keep=True`)  |

Colours in order: blue, grey, green, yellow, red, purple; `PLACE` id = 7 + colour * 6 + number - 1.
`keine_ahnung_v0.Action` names every id.

### Rewards

Rewards are given when the game ends (every other step rewards 0), by the `reward` option:

| reward           | each agent's reward at the end                                          |
|------------------|-------------------------------------------------------------------------|
| "win" (default)  | winners share +1, the others share -1 (0 for all when everybody ties)   |
| "score"          | the agent's final score                                                 |
| "rank"           | (players beaten - players beating you) / (players - 1), in [-1, 1]      |

Ties on score go to the player holding more trophies and prizes. A game cut off at `max_turns`
(default 4000; real games take a few hundred turns) is truncated and rewards 0. At the end
`infos[agent]` holds `{"scores": [score of each seat], "winner": bool, "seat": int}` (`winner` is
False for everybody in a truncated game).

### Rendering

`render_mode="ansi"` returns the table as text, `"rgb_array"` as a picture (`[H, W, 3]` uint8, from
`render_seat`'s point of view; None: the public table), `"human"` shows the picture in a window after
every move (needs a display and pygame; docs/pictures.md). Face-down cards show as `??` or card backs
(cards the table has seen, with `memory="perfect"`, in parentheses or with a "seen" band) and
opponents' trophies as a count; `render_reveal_all=True` shows every card, the draw pile and the
trophy values, for debugging only.

### Single-agent and vectorized training

`solo_env` and `sb3_vec_env` seat one learner against opponent agents: anything with the batched
`act(observation [n, O], action_mask [n, A]) -> int64 [n]` of `agents/base.py` (opponents receive the
raw observation). `opponents` is a list of P-1 agents, or a callable `pool(rng)` returning such a list
for every new episode (so line-ups may differ between games). Opponent j sits j + 1 seats after the
learner. `solo_env(seat=None)` picks the learner's seat at random each game from the env's seeded
generator; `sb3_vec_env(seat="rotate")` seats game i's k-th episode at `(i + k) % P`. An illegal
learner action ends the episode with `illegal_reward`. Both default to `normalize_obs=True`.
`sb3_vec_env` puts `terminal_observation`, `episode`, `scores`, `winner`, `learner_seat` and
`TimeLimit.truncated` in the info of a finished game, deals the next one at once, and answers
`env_method("action_masks")`.

### Version History

* v0: Initial release (keine_ahnung_env 0.1.0): AEC, single-agent Gymnasium and SB3 VecEnv
  interfaces over the batched core; observation encoding version 1.
"""

from __future__ import annotations

from .entry_points import gymnasium_solo_id, make_entry_points, pettingzoo_id, register_entry_points
from .games.keine_ahnung.actions import NUM_ACTIONS, Action, Phase
from .games.keine_ahnung.config import Rules
from .games.keine_ahnung.game import GAME

__all__ = ["Action", "NUM_ACTIONS", "Phase", "Rules", "env", "game_spec", "raw_env", "sb3_vec_env", "solo_env",
           "vector_env"]

ENV_NAME = GAME.name
"""The game's registered name (its declaration, ``games/keine_ahnung/game.py``)."""
PETTINGZOO_ID = pettingzoo_id(ENV_NAME)
"""The id under which ``env`` is registered with PettingZoo (>= 1.27) on import."""
GYMNASIUM_SOLO_ID = gymnasium_solo_id(ENV_NAME)
"""The id under which ``solo_env`` is registered with Gymnasium on import."""

env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec = make_entry_points(ENV_NAME, __name__)
register_entry_points(ENV_NAME, __name__)
