# noqa: D212, D415
"""
# dnp

dnp (published elsewhere as "dnup", Kei Kajino): two-valued cards turned 180 degrees; 3-5 players and
a two-player variant, on the batched compiled core.

| Import             | `from keine_ahnung_env import dnp_v0`                                   |
|--------------------|-------------------------------------------------------------------------|
| Actions            | Discrete                                                                |
| Parallel API       | No                                                                      |
| Manual Control     | No                                                                      |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default)    |
| Agents             | 2-5 (`num_players`, default 4)                                          |
| Action Shape       | (1,)                                                                    |
| Action Values      | Discrete(N + 10): 50 with the default 40-card deck, at every player count |
| Observation Shape  | (O,): 602, 604, 691, 778 floats for 2, 3, 4, 5 players (default deck)   |
| Observation Values | [0, high] (raw values and counts; `ObservationLayout.high`), [0, 1] if normalized |

(N = 40 cards of the deck, of which 16, 24, 32, 40 are in play for 2, 3, 4, 5 players; card ids are
the deck's at every player count; areas = 2 with two players.)

Entry points (made by `keine_ahnung_env.entry_points.make_entry_points`, the same for every game):
`env`, `raw_env`, `solo_env`, `sb3_vec_env`, `vector_env` and `game_spec`. Every rules option is a
keyword of every entry point (`reward`, `max_turns`, `win_points`, `win_rounds`, `finisher_set`,
`deck`; see `games/dnp/config.py`); an unknown option or value raises `ValueError` naming the allowed
ones. After `import keine_ahnung_env.dnp_v0` the AEC environment is registered with PettingZoo as
`keine_ahnung_env/dnp_v0` and the single-agent one with Gymnasium as `keine_ahnung_env/dnp_solo-v0`.

All cards are dealt; each card has two values and lands in the hand upright or rotated at random.
Hand cards are never turned except all at once (action D); cards that come from the table into a
hand are turned (the inactive value becomes the active one). On a turn a player discards the set in
front of them, then plays a set of equal values (A; it must beat a set of the same size on the
table, which goes back to its owner), adds one card to another player's set (B), takes another
player's set into their hand (C) or turns their hand (D). The first to empty their hand scores 2
points, the second 1 and the round ends; 4 points win. Two players: two areas each, two moves a turn,
sets collide with one's own too, two round wins win. `games/dnp/RULES.md` states the rules as
implemented and every choice made where the rulebook is silent.

### Observation Space

A dict with `'observation'` (below) and `'action_mask'`. The observation is a float32 vector of named
sections (`games/dnp/observation.py`, `ObservationLayout`), seats relative to the observer:

| section     | length  | content                                                                  |
|-------------|---------|--------------------------------------------------------------------------|
| acting      | P       | one-hot relative seat of the player to act                               |
| area        | areas   | one-hot area of the current move                                         |
| selection   | 2       | your selection in progress: number of cards, their value                 |
| players     | 4 * P   | per relative seat: hand size, points (round wins), out, known hand cards |
| table       | 2 * T   | per relative position (seat, area): the set's value and size             |
| hand_values | 20      | your hand by active value, then by inactive value                        |
| cards       | N * F   | per card of the deck: both values, active value and orientation where    |
|             |         | where it is (your hand / selection / known to others, table position,    |
|             |         | known in an opponent's hand, discarded, not in this game); F = 8 + T + P |

A seat sees its own hand (both values, which is active), every set on the table, opponents' hand
sizes, the cards known to be in an opponent's hand (taken back or picked up, followed through their
turns of the whole hand), the cards discarded this round, points and round wins; nothing else of
other hands.

#### Legal Actions Mask

`action_mask` (int8) holds the legal moves of the agent to act (all zeros for the others and once
the game is over). A set is chosen card by card: the mask offers a SELECT only while the selection
can still become a legal set (no selection dead-ends; every legal set is reachable). `env()` ends
the game with -1 for an illegal move; `raw_env()` raises `ValueError` naming the legal actions.

### Action Space

| id              | name          | meaning                                                         |
|-----------------|---------------|-----------------------------------------------------------------|
| 0 .. N-1        | SELECT_<c>    | put hand card c into the selection                              |
| N               | PLAY          | A: play the selection as a set in front of you (current area)   |
| N+1 .. N+4      | ADD_<k>[A<a>] | B: add the one selected card to the set of the player k seats on |
| N+5 .. N+8      | TAKE_<k>[A<a>]| C: take that set into your hand, turned                         |
| N+9             | TURN          | D: turn your whole hand                                         |

Four targets at every player count: 3-5 players ``ADD_1`` .. ``ADD_4`` (the player k seats on; those
beyond P - 1 are never legal); 2 players ``ADD_1A1``, ``ADD_1A2`` (the opponent's areas) and two
unused ones. `games/dnp/actions.py`: `ActionLayout`, `action_enum(P)` (an IntEnum).

### Rewards

At the end of a game (every other step rewards 0), by the `reward` option: "win" (default; the
winner +1, the others share -1), "score" (points, or round wins with two players) or "rank"
((players beaten - players beating you) / (players - 1)). A game cut off at `max_turns` moves
(default 3000; random games take 100-750) is truncated and rewards 0. `infos[agent]` holds the scores.

### Version History

* v0: Initial release: AEC, single-agent Gymnasium and SB3 VecEnv interfaces over the compiled core;
  observation encoding version 1.
"""

from __future__ import annotations

from .entry_points import gymnasium_solo_id, make_entry_points, pettingzoo_id, register_entry_points
from .games.dnp.actions import ActionLayout, action_enum
from .games.dnp.config import Rules
from .games.dnp.game import GAME

__all__ = ["Action", "ActionLayout", "Rules", "action_enum", "env", "game_spec", "raw_env", "sb3_vec_env",
           "solo_env", "vector_env"]

ENV_NAME = GAME.name
"""The game's registered name (its declaration, ``games/dnp/game.py``)."""
PETTINGZOO_ID = pettingzoo_id(ENV_NAME)
GYMNASIUM_SOLO_ID = gymnasium_solo_id(ENV_NAME)
Action = action_enum(4)
"""The actions of the default 4-player variant; ``action_enum(P)`` gives another player count's."""

env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec = make_entry_points(ENV_NAME, __name__)
register_entry_points(ENV_NAME, __name__)
