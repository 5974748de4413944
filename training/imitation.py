"""Warm start for PPO: imitate a heuristic teacher before reinforcement learning takes over.

Learning a game (Keine Ahnung, say) from scratch against strong opponents is slow, because a new
policy almost never wins and the reward says little. :func:`collect_demonstrations` lets a teacher (any batched
agent) play every seat of many games and records, for a random sample of its decisions, the policy
inputs, the legal mask, the action and the deciding seat's final reward. :func:`pretrain` then fits
the policy to the teacher's actions (cross-entropy under the mask) and the value head to those
rewards, so PPO starts from the teacher's level and only has to improve on it.

A teacher that picks at random among alike moves (``counter`` revealing one of its unknown cards)
would teach a policy to spread its probability over them, and then another move can top each of
them: with ``samples`` > 1 the teacher is asked that many times per decision, the moves it plays
form the decision's ``choices``, and the policy learns to put its probability on that set (the
loss is -log of the set's probability), so its most likely move is one the teacher plays. Any registered game
works: its games are made through ``keine_ahnung_env.registry``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from agents import DEFAULT_GAME


@dataclasses.dataclass
class Demonstrations:
    """Teacher decisions: ``inputs [N, F] float32``, ``masks [N, A] bool``, ``actions [N]``,
    ``returns [N] float32`` (the deciding seat's reward at the end of its game) and ``choices [N, A]
    bool`` (every move the teacher played when asked ``samples`` times; None: the action alone)."""

    inputs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    choices: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def collect_demonstrations(teacher, features, num_players: int, games: int, seed: int = 0, keep: float = 0.5,
                           batch: int = 256, rules: dict | None = None, game: str = DEFAULT_GAME,
                           samples: int = 1) -> Demonstrations:
    """Plays ``games`` games of ``game`` (a registered game, with these rules options) with ``teacher``
    in every seat; keeps each decision with chance ``keep``. ``features`` is a feature set of the same
    variant (``GameSpec.features``). ``samples`` > 1: the teacher is asked that many times at each kept
    decision (the first answer is played) and ``choices`` holds the moves it gave."""
    if samples < 1:
        raise ValueError(f"samples={samples}; allowed: a positive integer")
    from keine_ahnung_env import registry
    from keine_ahnung_env.vector import VectorEnv

    spec = registry.game_spec(game, num_players, **(rules or {}))
    rng = np.random.default_rng(seed)
    inputs, masks, actions, returns, choices = [], [], [], [], []
    for start in range(0, games, batch):
        n = min(batch, games - start)
        env = VectorEnv(spec, n, seed + start, autoreset=False)
        result = env.reset()
        rows: list[tuple[np.ndarray, np.ndarray]] = []  # (game index, seat) of each kept decision
        final = np.zeros((n, num_players), np.float32)
        while True:
            live = np.flatnonzero(~(result.terminated | result.truncated))
            if live.size == 0:
                break
            chosen = np.zeros(n, np.int64)
            chosen[live] = teacher.act(result.observation[live], result.action_mask[live])
            kept = live[rng.random(live.size) < keep]
            if kept.size:
                inputs.append(features(result.observation[kept], result.action_mask[kept]))
                masks.append(result.action_mask[kept])
                actions.append(chosen[kept])
                if samples > 1:
                    alike = np.zeros(result.action_mask[kept].shape, bool)
                    alike[np.arange(kept.size), chosen[kept]] = True
                    for _ in range(samples - 1):
                        again = teacher.act(result.observation[kept], result.action_mask[kept])
                        alike[np.arange(kept.size), again] = True
                    choices.append(alike)
                rows.append((kept + start, result.current_player[kept]))
            result = env.step(chosen)
            final += result.rewards
        for games_idx, seats in rows:
            returns.append(final[games_idx - start, seats])
    return Demonstrations(np.concatenate(inputs), np.concatenate(masks), np.concatenate(actions),
                          np.concatenate(returns).astype(np.float32), np.concatenate(choices) if choices else None)


def pretrain(policy, demos: Demonstrations, epochs: int = 4, batch_size: int = 1024, learning_rate: float = 1e-3,
             seed: int = 0) -> dict[str, float]:
    """Fits ``policy`` (a MaskableActorCriticPolicy) to the demonstrations; returns the final
    imitation accuracy (the share of decisions whose most likely move is the teacher's, or one of its
    ``choices``) and losses on the data. The fit runs on the policy's device (``policy.device``)."""
    import torch

    device = policy.device
    generator = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(demos.inputs, device=device)
    acts = torch.as_tensor(demos.actions, device=device)
    rets = torch.as_tensor(demos.returns, device=device)
    # The set each decision's probability goes to: the teacher's move, or every move it gave.
    if demos.choices is not None:
        targets = torch.as_tensor(demos.choices, device=device)
    else:
        targets = torch.nn.functional.one_hot(acts, demos.masks.shape[1]).bool()
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = generator.permutation(len(demos))
        for start in range(0, len(demos), batch_size):
            idx = order[start : start + batch_size]
            dist = policy.get_distribution(obs[idx], action_masks=demos.masks[idx])
            values = policy.predict_values(obs[idx])
            log_probs = dist.distribution.logits  # normalised log-probabilities; masked moves very low
            set_log_prob = torch.logsumexp(log_probs.masked_fill(~targets[idx], float("-inf")), dim=1)
            loss = -set_log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), rets[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        correct, nll = 0, 0.0
        for start in range(0, len(demos), 8192):
            sl = slice(start, start + 8192)
            dist = policy.get_distribution(obs[sl], action_masks=demos.masks[sl])
            log_probs = dist.distribution.logits
            best = log_probs.argmax(dim=1)
            correct += int(targets[sl][torch.arange(best.shape[0], device=device), best].sum())
            nll += float(-torch.logsumexp(log_probs.masked_fill(~targets[sl], float("-inf")), dim=1).sum())
    return {"accuracy": correct / len(demos), "nll": nll / len(demos), "samples": len(demos)}
