"""Times the `axelrod` library playing a round robin like the assays' (the bench's reference).

Usage: axelrod_timing.py '<json: {strategies, turns, repetitions, noise, seed}>'
Prints {"turns_played": n, "seconds": s}: every distinct pair (i < j) plays one axelrod
Match per repetition, with the noise, each seeded. Only the play is timed (not the import).
"""

import json
import sys
import time

import axelrod as axl
from axelrod_players import DETERMINISTIC

PLAYERS = {**DETERMINISTIC, "random": lambda: axl.Random(0.5)}


def main(spec):
    strategies = spec["strategies"]
    played = 0
    started = time.perf_counter()
    for repetition in range(spec["repetitions"]):
        for i in range(len(strategies)):
            for j in range(i + 1, len(strategies)):
                match = axl.Match(
                    (PLAYERS[strategies[i]](), PLAYERS[strategies[j]]()),
                    turns=spec["turns"],
                    noise=spec["noise"],
                    seed=spec["seed"] + played,
                )
                match.play()
                played += 1
    seconds = time.perf_counter() - started
    print(json.dumps({"turns_played": played * spec["turns"], "seconds": seconds}))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
