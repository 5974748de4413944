"""``python -m training.play`` driven through a pseudo-terminal as a person plays it: a whole game of
every game to its end screen, the prompt, the legend, keys that keep their meaning, the recap of the
other seats' moves, no internal names, colour only where wanted, and ``q``, Ctrl-C and Ctrl-D that
leave cleanly and write the replay."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from play_keys import first_key

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "your move (? for help, q to quit)> "
FIRST_USE = 900  # seconds to the first prompt: the kernels may compile on first use


class Terminal:
    """A child process on a pseudo-terminal (its controlling terminal, so Ctrl-C is a SIGINT)."""

    def __init__(self, args: list[str], colour: bool = False):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm-256color"
        if not colour:
            env["NO_COLOR"] = "1"
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: as a shell starts a program (Ctrl-C neither blocked nor ignored), then exec
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "training.play", *args], env)
        self.text = ""  # everything the child wrote
        self.seen = 0  # how much of it ``expect`` has consumed
        self.status: int | None = None

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            return False
        self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, *patterns: str, timeout: float = 60) -> tuple[int, str]:
        """Waits for the first of ``patterns`` (plain text) after what was consumed; returns its
        index and the text up to and including it."""
        deadline = time.monotonic() + timeout
        while True:
            hits = [(self.text.find(p, self.seen), i, p) for i, p in enumerate(patterns)]
            hits = [h for h in hits if h[0] >= 0]
            if hits:
                at, i, p = min(hits)
                chunk = self.text[self.seen:at + len(p)]
                self.seen = at + len(p)
                return i, chunk
            if time.monotonic() > deadline or not self._read(min(1.0, max(0.0, deadline - time.monotonic()))):
                raise AssertionError(f"none of {patterns!r} came; the terminal shows:\n{self.text[-3000:]}")

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 60) -> int:
        """Reads until the child ends; returns its exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.5):
            pass
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                os.close(self.fd)
                return self.status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"the game did not end; the terminal shows:\n{self.text[-3000:]}")


# Per game: the arguments of a small game, and what "You: ..." says for a key (the key's meaning).
GAMES = {
    "keine_ahnung_v0": (["--opponents", "greedy"], [
        (r"r(\d)", r"revealed slot {0}: "), (r"c", r"called 'Nothing fits anymore!'"),
        (r"([a-z]{2}\d)", r"placed \S+ on pile {0}")]),
    "gap_v0": (["--opponents", "gap_hunter", "--rules", "rounds=1"], [
        (r"p", r"passes"), (r"([a-z]{2}\d+)l", r"plays {0} on the left pile"),
        (r"([a-z]{2}\d+)r", r"plays {0} on the right pile"), (r"l", r"no gap: turned up \S+ onto the left pile"),
        (r"r", r"no gap: turned up \S+ onto the right pile"),
        (r"([a-z]{2}\d+)", r"lays {0} face down as a hidden card")]),
    "dnp_v0": (["--opponents", "shedder,tactician", "--rules", "win_points=2"], [
        (r"(\d+)", r"selected #{0} "), (r"p", r"plays "), (r"t(\d)", r"takes .* from seat {0}'s set"),
        (r"a(\d)", r"adds .* to seat {0}'s set"), (r"turn", r"turns their whole hand")]),
}
INTERNAL = ("MAIN", "PLACE_", "REVEAL_", "PLAY_", "HIDE_", "FLIP", "SELECT_", "TAKE_", "(+1", " +1:")


def meaning(game: str, key: str) -> str:
    for pattern, said in GAMES[game][1]:
        match = re.fullmatch(pattern, key)
        if match:
            return said.format(*(re.escape(g) for g in match.groups()))
    raise AssertionError(f"key {key!r} of {game} has no known meaning")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_through_a_terminal(game, tmp_path):
    args = ["--env", game, *GAMES[game][0], "--seed", "3", "--record", str(tmp_path)]
    term = Terminal(args)
    _, screen = term.expect(PROMPT, timeout=FIRST_USE)
    term.send("?\n")
    _, legend = term.expect(PROMPT)
    assert "Commands:" in legend and "q   leave the game" in legend and len(legend.splitlines()) <= 24
    term.send("u\n")
    term.expect(PROMPT)
    used: dict[str, int] = {}
    moves = 0
    while True:
        key = first_key(screen)
        term.send(key + "\n")
        index, screen = term.expect(PROMPT, "Game over.", timeout=60)
        said = re.search(r"^You: (.*)$", screen, re.M)
        assert said and re.match(meaning(game, key), said.group(1)), (key, screen)
        used[key] = used.get(key, 0) + 1
        moves += 1
        if index == 1:
            break
        assert moves < 2000
    assert term.wait() == 0
    text = term.text
    assert "Traceback" not in text and "\x1b[" not in text  # NO_COLOR: plain text
    assert "Scores:" in text and re.search(r"you \(seat 0\): -?\d+", text)
    assert "Since your last move:" in text and re.search(r"^  seat 1 \(\S+\): \S", text, re.M)
    assert text.count("Your turn: ") >= moves and not any(name in text for name in INTERNAL)
    assert text.count("Unknown cards") <= 1  # only when asked for with u
    assert max(used.values()) >= 2  # a key used on two turns meant the same move both times
    (path,) = tmp_path.glob("*.json")
    replay = json.loads(path.read_text())
    assert replay["finished"] and replay["env"] == game and replay["agents"][0] == "you"


@pytest.mark.parametrize("leave, colour", [("q\n", True), ("\x03", False), ("\x04", False)])
def test_q_ctrl_c_and_ctrl_d_leave_cleanly_and_write_the_replay(leave, colour, tmp_path):
    term = Terminal(["--opponents", "greedy,counter", "--seed", "5", "--record", str(tmp_path)], colour=colour)
    _, screen = term.expect(PROMPT, timeout=FIRST_USE)
    key = first_key(screen)
    term.send(key + "\n")
    term.expect(PROMPT)
    term.send(leave)
    assert term.wait() == 0
    text = term.text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert "left the game" in text and "Replay written to" in text
    assert ("\x1b[" in text) == colour
    (path,) = tmp_path.glob("*.json")
    replay = json.loads(path.read_text())
    assert not replay["finished"] and replay["actions"]
    assert replay["agents"] == ["you", "greedy", "counter"]


@pytest.mark.parametrize("game, players", [("keine_ahnung_v0", 4), ("gap_v0", 3), ("dnp_v0", 2), ("dnp_v0", 5)])
def test_every_action_has_its_own_key_whatever_the_state(game, players):
    from keine_ahnung_env import registry
    from training.terminal import PlainView, view_for

    spec = registry.game_spec(game, players)
    core = spec.make_core(1, 0)
    for seat in range(players):
        view = view_for(spec, core, seat)
        assert not isinstance(view, PlainView)
        keys = [view.keys[a] for a in range(spec.num_actions)]
        assert len(set(keys)) == spec.num_actions  # one key per action id, no key for two
        assert not {"?", "q", "u", "t", "h", "help", "quit"} & set(keys)  # the commands stay commands
        core.step(np.flatnonzero(core.legal_mask[0])[:1])  # another state: the keys do not move
        assert [view_for(spec, core, seat).keys[a] for a in range(spec.num_actions)] == keys


def test_a_ctrl_c_taken_by_another_thread_still_ends_the_wait_for_a_line(monkeypatch):
    """Linux hands a Ctrl-C to any thread that does not block it; the wait for the player's line
    must still end in a KeyboardInterrupt on the main thread, and lines typed at once come one by one."""
    import threading

    from training import play

    master, slave = pty.openpty()
    stdin = os.fdopen(slave, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    # Python's own Ctrl-C handler, whatever an earlier test in this process left in place
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(play, "_pending_input", bytearray())
    try:
        os.write(master, b"r0\nq\n")
        assert play.read_terminal_line() == "r0" and play.read_terminal_line() == "q"

        interrupted = threading.Event()

        def interrupt_from_this_thread():
            time.sleep(0.3)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            if not interrupted.wait(10):
                os.write(master, b"too late\n")  # ends the wait if the interrupt was lost: the test fails, not hangs

        helper = threading.Thread(target=interrupt_from_this_thread, daemon=True)
        helper.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                play.read_terminal_line()
        finally:
            interrupted.set()
            helper.join()
        os.write(master, b"\x04")  # Ctrl-D on an empty line: the end of input
        with pytest.raises(EOFError):
            play.read_terminal_line()
    finally:
        signal.signal(signal.SIGINT, previous)
        stdin.close()
        os.close(master)
