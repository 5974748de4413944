"""Replays on the command line: ``python -m training.replay FILE [--gif OUT.gif]``.

Checks that a replay file (written by ``python -m training.evaluate ... --record DIR`` or
``python -m training.play ... --record DIR``) replays exactly, prints its game, agents and result,
and with ``--gif`` turns it into an animated GIF: one frame per move from one seat's point of view
(``--seat``), the public table (the default) or every card (``--reveal-all``), each captioned with the
move about to be played. ``--from-move``/``--to-move`` keep a stretch of a long game, ``--scale``
shrinks the frames. See docs/pictures.md.
"""

from __future__ import annotations

from typing import Sequence

from keine_ahnung_env.cli import Parser, UsageError, run_command, user_errors

PROG = "python -m training.replay"
EXAMPLES = (
    "replays/gap_v0_4p_seed0_deal000000_lineup000.json",
    "replays/gap_v0_4p_seed0_deal000000_lineup000.json --gif game.gif --seat 0 --scale 0.6",
    "replays/keine_ahnung_v0_3p_seed5_game000000.json --gif game.gif --reveal-all --from-move 0 --to-move 40",
)


def build_parser() -> Parser:
    """The command-line parser of ``python -m training.replay``."""
    parser = Parser(PROG, description=__doc__.split("\n\n")[0], examples=EXAMPLES)
    parser.add_argument("file", metavar="FILE", help="a replay file (JSON)")
    parser.add_argument("--gif", default=None, metavar="PATH", help="write the game as an animated GIF here")
    parser.add_argument("--seat", type=int, default=None, metavar="N",
                        help="draw the game as seat N sees it (default: the public table)")
    parser.add_argument("--reveal-all", action="store_true", help="draw every card, hidden ones too")
    parser.add_argument("--from-move", type=int, default=0, metavar="N", help="first position drawn (default 0)")
    parser.add_argument("--to-move", type=int, default=None, metavar="N", help="last position drawn (default: the end)")
    parser.add_argument("--scale", type=float, default=1.0, metavar="X", help="frame size factor, 0.1-4 (default 1)")
    parser.add_argument("--seconds-per-frame", type=float, default=0.6, metavar="S",
                        help="how long each frame shows, 0.02-10 (default 0.6; the last frame 2.5)")
    return parser


def run(argv: Sequence[str] | None = None) -> dict:
    """Checks the replay, prints it, writes ``--gif``; returns a summary. Bad arguments or a bad
    replay file raise UsageError (one line and exit status 2 on the command line)."""
    from keine_ahnung_env.pictures import frames_to_gif
    from keine_ahnung_env.replay import ReplayError, Replay, replay_frames

    args = build_parser().parse_args(argv)
    with user_errors():
        try:
            replay = Replay.load(args.file)
            core = replay.play()
        except ReplayError as exc:
            raise UsageError(str(exc)) from None
        spec = replay.spec
        if args.seat is not None and not 0 <= args.seat < spec.num_players:
            raise UsageError(f"--seat {args.seat}; allowed: 0..{spec.num_players - 1} ({spec.num_players} players)")
        if args.seat is not None and args.reveal_all:
            raise UsageError("--seat and --reveal-all; allowed: one of them (--reveal-all shows every seat)")
        if not 0.02 <= args.seconds_per_frame <= 10:
            raise UsageError(f"--seconds-per-frame {args.seconds_per_frame}; allowed: 0.02 to 10")
        if args.gif is not None and spec.scene is None:
            raise UsageError(f"--gif: {spec.name} draws no pictures (its GameSpec has no scene)")
    print(f"{spec.title or spec.name} ({spec.name} v{spec.version}), {spec.num_players} players, seed {replay.seed}, "
          f"game {replay.game_id}, {len(replay.actions)} moves; replays exactly")
    print("agents: " + ", ".join(f"seat {p}: {name}" for p, name in enumerate(replay.agents)))
    result = "scores: " + ", ".join(f"seat {p}: {int(s)}" for p, s in enumerate(core.scores[0]))
    print(result if replay.finished else f"not finished ({result})")
    summary = {"env": spec.name, "moves": len(replay.actions), "finished": replay.finished,
               "scores": [int(s) for s in core.scores[0]]}
    if args.gif is not None:
        from pathlib import Path

        with user_errors():
            try:
                frames = list(replay_frames(replay, args.seat, args.reveal_all, args.from_move, args.to_move,
                                            args.scale))
            except ReplayError as exc:
                raise UsageError(f"--from-move/--to-move/--scale: {exc}") from None
        out = Path(args.gif)
        out.parent.mkdir(parents=True, exist_ok=True)
        frames_to_gif(frames, out, seconds_per_frame=args.seconds_per_frame)
        print(f"wrote {out} ({len(frames)} frames, {out.stat().st_size // 1024} KiB)")
        summary["gif"] = str(out)
        summary["frames"] = len(frames)
    return summary


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: a user's mistake exits with status 2 and one line ``error: ...`` on stderr."""
    run_command(run, argv)


if __name__ == "__main__":
    main()
