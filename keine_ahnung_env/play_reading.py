"""Reading the play: a seat's belief conditioned on the opponents' moves this round.

A game's belief (``GameSpec.belief.sample_states``) draws every hidden state consistent with what a
seat sees, each as likely as the deal makes it: it takes the opponents' decisions as saying nothing
about their hidden cards. Real opponents play by their cards: a dnp player who turns its whole hand
probably held a poor one. Given a *stated model* of the opponents (an agent: what each of them would do
in each position), :func:`read_play` weights the belief's states by how likely the moves the seat saw
were in each of them, so the sample follows the posterior given the play::

    from keine_ahnung_env import registry
    from keine_ahnung_env.play_reading import PlayRecorder, read_play
    import agents

    spec = registry.game_spec("dnp_v0", 4)
    recorder = PlayRecorder(spec, core, readers=[0])          # records what seat 0 sees, step by step
    ...  # step the core; call recorder.after_step(actors, actions, stepped) after every step
    reading = read_play(spec, recorder.log(game, 0), observation, count=256, rng=rng,
                        model=agents.make("tactician", game="dnp_v0", num_players=4))
    reading.states, reading.weights, reading.effective_size

**The method** (importance sampling with the belief as the proposal, exact as ``count`` grows): draw
``count`` states from the belief at the current observation; put each back to the round's start
(``GameSpec.play.rewind``) and replay the round's logged actions in it; at every run of decisions of
one opponent (its moves until another seat is to act), let the model play that run in the state as it
stood and compare what the reading seat would then have seen with what it did see. The state's
likelihood is the product over the runs of 1 where the model's run shows the same, ``slack`` where it
does not. **The model**: each opponent plays the model's moves, except that with some small chance it
plays anything else, a chance that does not depend on its cards (``slack`` is the ratio of the two;
0 takes the model as exact, 1 ignores the play). The weights are the likelihoods, normalised; with
them the sample is the posterior given the play under the model, up to the usual error of importance
sampling (see ``effective_size``).

Where a game's opponents decide on nothing the seat cannot see (``GameSpec.play.reveals_nothing``,
Keine Ahnung: nobody sees a face-down card), the moves say nothing new: the belief's samples come back
unweighted. A game without play hooks is refused, naming the games that have them.

**The log** is recorded by :class:`PlayRecorder` from the steps of a core: for one seat and the
current round, its observation at the round's start and after every step, each step's actor and its
public action (``GameSpec.play.public_action``). It holds nothing the seat did not see. Where a step
does something the replay cannot repeat (``GameSpec.play.restarts``: the gap game's reshuffle, whose
order nobody saw), the log starts afresh after it; the belief at the current observation keeps what the
seat knows of what came before. The
tournament (``training.tournament``) keeps one for every seat of an agent that reads the play
(``reads_play = True``) and hands it to ``act_reading(observation, mask, logs)``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np

from . import registry
from .game_spec import GameSpec

NEGLIGIBLE = 30.0
"""Log-likelihood below the best state's past which a state is no longer weighed (weight < 1e-13 of it)."""

__all__ = ["PlayLog", "PlayRecorder", "PlayReading", "read_play", "weigh", "resample", "play_hooks", "check_slack"]


@dataclasses.dataclass
class PlayLog:
    """What one seat saw of the current round of one game.

    Attributes:
      start: ``float32 [O]`` the seat's observation when the log began: the round's start (after the
        deal), or the step after the last one the replay cannot repeat (``GameSpec.play.restarts``).
      actors: ``int [T]`` each step's actor, relative to the seat (0: the seat itself).
      actions: ``int64 [T]`` each step's public action (``GameSpec.play.public_action``).
      seen: ``float32 [T, O]`` the seat's observation after each step.
    """

    start: np.ndarray
    actors: np.ndarray
    actions: np.ndarray
    seen: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.size)

    def runs(self) -> list[tuple[int, int, int]]:
        """``(actor, first, stop)`` of every run of consecutive steps by one actor, in order."""
        out, first = [], 0
        for t in range(1, len(self) + 1):
            if t == len(self) or self.actors[t] != self.actors[first]:
                out.append((int(self.actors[first]), first, t))
                first = t
        return out


class PlayRecorder:
    """Keeps a :class:`PlayLog` for every reading seat of every game of a core, from its steps.

    ``readers``: the absolute seats whose logs are kept: a list of seats (the same in every game), a
    ``[B, P] bool`` array (per game) or None (every seat). A game's log is valid from the start of a
    round the recorder saw begin (a game where nothing was played yet when the recorder was made, or
    any later round); until then :meth:`log` returns None for it. Call :meth:`after_step` after every
    ``core.step`` with the seats that acted, their actions and the games stepped. A log keeps one
    observation per step of the round for each reading seat: memory grows with the batch, so record
    only the seats that read.
    """

    def __init__(self, spec: GameSpec, core: Any, readers: Sequence[int] | np.ndarray | None = None):
        self.spec = spec
        self.hooks = play_hooks(spec, "recording the play")
        self.core = core
        P, B = spec.num_players, core.num_envs
        if readers is None:
            mask = np.ones((B, P), bool)
        elif isinstance(readers, np.ndarray) and readers.dtype == bool:
            if readers.shape != (B, P):
                raise ValueError(f"readers of shape {readers.shape}; allowed: [{B}, {P}] (games x seats) or a list "
                                 "of seats")
            mask = readers.copy()
        else:
            seats = sorted({int(s) for s in readers})
            if not seats or min(seats) < 0 or max(seats) >= P:
                raise ValueError(f"readers={readers!r}; allowed: seats 0..{P - 1}")
            mask = np.zeros((B, P), bool)
            mask[:, seats] = True
        self.reading = mask
        """``[B, P] bool``: the seats whose logs are kept in each game."""
        self.round = np.asarray(self.hooks.round_index(core)).copy()
        self.valid = np.asarray(self.hooks.game_start(core), bool).copy()
        self._start: dict[tuple[int, int], np.ndarray] = {}
        self._steps: list[list[tuple[int, int, dict[int, np.ndarray]]]] = [[] for _ in range(B)]
        if not self.hooks.reveals_nothing:
            self._begin(np.flatnonzero(self.valid))

    def _begin(self, games: np.ndarray) -> None:
        """Starts the logs of ``games`` at their current position (a round's start)."""
        for g in games:
            self._steps[g] = []
            for seat in np.flatnonzero(self.reading[g]).tolist():
                self._start[(int(g), seat)] = self.core.observe(seat, games=np.array([g]))[0].copy()

    def after_step(self, actors: np.ndarray, actions: np.ndarray, stepped: np.ndarray) -> None:
        """Records one step: ``stepped`` (``[B] bool`` or game indices) the games stepped, ``actors``
        and ``actions`` (``[B]``, read where stepped) who acted and what they did (the real action;
        the log keeps its public form)."""
        if self.hooks.reveals_nothing:
            return
        stepped = np.asarray(stepped)
        games = np.flatnonzero(stepped) if stepped.dtype == bool else stepped.astype(np.intp)
        if games.size == 0:
            return
        now = np.asarray(self.hooks.round_index(self.core))
        new_round = games[(now[games] != self.round[games]) & ~np.asarray(self.core.done)[games]]
        ended = games[np.asarray(self.core.done)[games]]
        keep = games[(now[games] == self.round[games]) & self.valid[games] & ~np.asarray(self.core.done)[games]]
        restart = []
        if keep.size:
            games_of, seats_of = np.nonzero(self.reading[keep])
            seen = self.core.observe(seats_of, games=keep[games_of]) if games_of.size else None
            at = 0
            for i, g in enumerate(keep):
                actor, action = int(actors[g]), int(self.hooks.public_action(int(actions[g])))
                views = {}
                while at < games_of.size and games_of[at] == i:
                    views[int(seats_of[at])] = seen[at].copy()
                    at += 1
                if views:
                    # What restarts a log is public: any reading seat's two views tell it.
                    seat, view = next(iter(views.items()))
                    steps = self._steps[g]
                    if self.hooks.restarts(steps[-1][2][seat] if steps else self._start[(int(g), seat)], view):
                        restart.append(g)
                        continue
                self._steps[g].append((actor, action, views))
        self.round[games] = now[games]
        self.valid[ended] = False
        self.valid[new_round] = True
        self._begin(np.concatenate([new_round, np.asarray(restart, new_round.dtype)]))

    def log(self, game: int, seat: int) -> PlayLog | None:
        """The log of ``seat`` (absolute) in ``game`` this round; None where the recorder did not see
        the round begin (or the game is over). Where the game reveals nothing, an empty log."""
        if not self.reading[game, seat]:
            raise ValueError(f"seat {seat} is not recorded in game {game}; recorded seats there: "
                             f"{np.flatnonzero(self.reading[game]).tolist()}")
        O = self.spec.observation_size
        if self.hooks.reveals_nothing:
            return PlayLog(np.zeros(O, np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64),
                           np.zeros((0, O), np.float32))
        if not self.valid[game]:
            return None
        steps = self._steps[game]
        P = self.spec.num_players
        return PlayLog(start=self._start[(int(game), seat)],
                       actors=np.array([(a - seat) % P for a, _, _ in steps], np.int64),
                       actions=np.array([b for _, b, _ in steps], np.int64),
                       seen=np.array([s[seat] for _, _, s in steps], np.float32).reshape(len(steps), O))

    def logs(self, games: np.ndarray, seats: np.ndarray) -> list[PlayLog | None]:
        """:meth:`log` of each ``(games[i], seats[i])``."""
        return [self.log(int(g), int(s)) for g, s in zip(games, seats)]


@dataclasses.dataclass
class PlayReading:
    """The result of :func:`read_play`.

    Attributes:
      states: a core of the ``count`` sampled states (from the belief at the current observation).
      weights: ``float64 [count]`` their posterior weights given the play (summing to 1).
      log_likelihood: ``float64 [count]`` each state's log-likelihood of the logged runs (-inf: the
        logged moves are impossible in it; never happens with a consistent log).
      runs: opponents' runs weighed.
      effective_size: ``(sum w)^2 / sum w^2``, how many equally weighted states the sample is worth.
    """

    states: Any
    weights: np.ndarray
    log_likelihood: np.ndarray
    runs: int

    @property
    def effective_size(self) -> float:
        w = self.weights
        return float(1.0 / np.sum(w * w)) if w.size else 0.0


def play_hooks(spec: GameSpec, needed_by: str) -> Any:
    """``spec.play``; ValueError naming the games that offer it where this one does not."""
    return registry.game_hook(spec, "play", "play reading", f", which {needed_by} needs")


def check_slack(slack: Any) -> float:
    """``slack`` as a float in [0, 1]; ValueError otherwise."""
    if isinstance(slack, bool) or not isinstance(slack, (int, float, np.integer, np.floating)) or \
            not 0.0 <= float(slack) <= 1.0:
        raise ValueError(f"slack={slack!r}; allowed: a number from 0 (the opponents play exactly the model's "
                         "moves) to 1 (the play says nothing)")
    return float(slack)


def _check_log(spec: GameSpec, log: Any) -> PlayLog:
    if not isinstance(log, PlayLog):
        raise ValueError(f"log must be a PlayLog (from PlayRecorder.log); got {type(log).__name__}")
    O, T = spec.observation_size, len(log)
    if np.shape(log.start) != (O,) or np.shape(log.seen) != (T, O) or np.shape(log.actors) != (T,):
        raise ValueError(f"log shapes: start {np.shape(log.start)}, actors {np.shape(log.actors)}, actions "
                         f"{np.shape(log.actions)}, seen {np.shape(log.seen)}; allowed: [{O}], [T], [T], [T, {O}]")
    if T and (np.min(log.actors) < 0 or np.max(log.actors) >= spec.num_players or np.min(log.actions) < 0
              or np.max(log.actions) >= spec.num_actions):
        raise ValueError(f"log: actors must be relative seats 0..{spec.num_players - 1} and actions ids "
                         f"0..{spec.num_actions - 1}")
    return log


def read_play(spec: GameSpec, log: PlayLog, observation: np.ndarray, count: int, rng: np.random.Generator,
              model: Any, slack: float = 0.4, max_run: int = 64) -> PlayReading:
    """The belief at ``observation`` (the reading seat's, at its decision; the last of ``log``'s
    round) weighted by the play (see the module docstring).

    Args:
      spec: the variant.
      log: what the seat saw this round (:class:`PlayRecorder`).
      observation: ``[O]`` the seat's current observation.
      count: states to draw.
      rng: draws the states.
      model: the stated model of the opponents, an agent (``act(observation, mask)``); it is reseeded
        at 0 before every run it plays, so the weights are a function of the inputs.
      slack: the likelihood of a run the model would not play, relative to one it would (0 to 1; the
        default 0.4 is the value measured best with dnp's tacticians, docs/results.md "Reading the play").
      max_run: the most decisions of a model's run (a run that does not end by then does not match).
    """
    belief = registry.game_hook(spec, "belief", "belief sampler", ", which reading the play needs")
    play_hooks(spec, "reading the play")
    check_slack(slack)
    states = belief.sample_states(np.asarray(observation, np.float32), count, rng)
    return weigh(spec, log, states, observation, model, slack, max_run)


def weigh(spec: GameSpec, log: PlayLog, states: Any, observation: np.ndarray, model: Any, slack: float = 0.4,
          max_run: int = 64) -> PlayReading:
    """:func:`read_play` for given ``states`` (a core of states consistent with ``observation``, in each of
    which the reading seat is to act, as ``GameSpec.belief.sample_states`` returns them): their weights
    given the play."""
    hooks = play_hooks(spec, "reading the play")
    slack = check_slack(slack)
    n = states.num_envs
    if hooks.reveals_nothing:
        return PlayReading(states, np.full(n, 1.0 / n), np.zeros(n), 0)
    log = _check_log(spec, log)
    P = spec.num_players
    reader = np.asarray(states.current).astype(np.int64).copy()  # the reading seat of each state
    core = hooks.rewind(states, log)
    if not np.array_equal(core.observe(reader), np.broadcast_to(log.start, (n, spec.observation_size))):
        raise ValueError("the rewound states do not show the seat its observation at the round's start: the log is "
                         "not of this game's current round, or not of this seat")
    log_lik = np.zeros(n)
    live = np.ones(n, bool)
    all_rows = np.arange(n)
    log_slack = math.log(slack) if slack > 0 else -math.inf
    runs = 0
    for relative, first, stop in log.runs():
        if not live.any():
            break
        actor = (reader + relative) % P
        if relative != 0 and slack < 1.0:
            runs += 1
            # States already NEGLIGIBLE below the best keep a weight under e^-NEGLIGIBLE of it whatever
            # the model does next; leaving them out of the model's runs saves most of the cost.
            rows = all_rows[live & (log_lik > log_lik[live].max() - NEGLIGIBLE)]
            trial = type(core).gather([(core, rows)])
            same = _model_run(trial, actor[rows], model, max_run)
            seen = trial.observe(reader[rows])
            same &= (seen == log.seen[stop - 1][None, :]).all(axis=1)
            log_lik[rows[~same]] += log_slack
        for t in range(first, stop):
            action = int(log.actions[t])
            can = live & (np.asarray(core.current) == actor) & np.asarray(core.legal_mask)[:, action]
            live &= can
            core.step(np.full(n, action, np.int64), active=live.copy())
    live &= (core.observe(reader) == np.asarray(observation, np.float32)[None, :]).all(axis=1)
    log_lik[~live] = -math.inf
    if not np.isfinite(log_lik).any():
        raise ValueError("no state replays the logged round to the current observation under the model: the log is "
                         "not this seat's record of this round" + (", or slack=0 rules out every state" if slack == 0
                                                                    else ""))
    w = np.exp(log_lik - log_lik.max())
    return PlayReading(states, w / w.sum(), log_lik, runs)


def _model_run(trial: Any, actors: np.ndarray, model: Any, max_run: int) -> np.ndarray:
    """Lets ``model`` play each game's run of seat ``actors[i]`` in every game of ``trial``; ``[n] bool``:
    the run ended (another seat to act, or the game over) within ``max_run`` decisions."""
    n = trial.num_envs
    going = np.flatnonzero(np.asarray(trial.current) == actors)
    actions = np.zeros(n, np.int64)
    for _ in range(max_run):
        going = going[(np.asarray(trial.current)[going] == actors[going]) & ~np.asarray(trial.done)[going]]
        if going.size == 0:
            return np.ones(n, bool)
        if callable(getattr(model, "reseed", None)):
            model.reseed(0)
        actions[going] = np.asarray(model.act(trial.observe(actors[going], games=going), trial.legal_mask[going]),
                                    np.int64)
        active = np.zeros(n, bool)
        active[going] = True
        trial.step(actions, active=active)
    ended = np.ones(n, bool)
    ended[going[(np.asarray(trial.current)[going] == actors[going]) & ~np.asarray(trial.done)[going]]] = False
    return ended


def resample(reading: PlayReading, count: int, rng: np.random.Generator) -> Any:
    """``count`` states drawn from ``reading`` by its weights (systematic resampling): a core of equally
    weighted states that follow the posterior."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"count={count!r}; allowed: a positive integer")
    cdf = np.cumsum(reading.weights)
    cdf[-1] = 1.0
    points = (rng.random() + np.arange(count)) / count
    rows = np.searchsorted(cdf, points, side="right")
    rows = np.minimum(rows, reading.weights.size - 1)
    return type(reading.states).gather([(reading.states, rows)])
