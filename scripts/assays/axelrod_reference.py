"""Reference plays of the assays' deterministic strategies, from the `axelrod` library.

Writes test/fixtures/assays/axelrod-reference.json: for every ordered pair of the
deterministic strategies (self-play included) and each length in TURNS, the moves axelrod's
Match plays with no noise, and the scores. test/domain/assays/ipd.test.ts replays them.
Run it with scripts/assays-reference.sh (installs axelrod into .tools/).
"""

import json
import sys

import axelrod as axl
from axelrod_players import DETERMINISTIC

# Our strategy names, and axelrod's definitions of them (the reference, docs/witnesses.md).
STRATEGIES = DETERMINISTIC
TURNS = [1, 2, 5, 40, 200]


def moves(history):
    return "".join(str(move) for move in history)


def main(path):
    plays = []
    for a_name, a_class in STRATEGIES.items():
        for b_name, b_class in STRATEGIES.items():
            for turns in TURNS:
                match = axl.Match((a_class(), b_class()), turns=turns)
                match.play()
                score_a, score_b = match.final_score()
                plays.append(
                    {
                        "a": a_name,
                        "b": b_name,
                        "turns": turns,
                        "moves_a": moves(match.players[0].history),
                        "moves_b": moves(match.players[1].history),
                        "score_a": int(score_a),
                        "score_b": int(score_b),
                    }
                )
    document = {
        "generator": "scripts/assays/axelrod_reference.py",
        "axelrod_version": axl.__version__,
        "payoffs": {"R": 3, "S": 0, "T": 5, "P": 1},
        "plays": plays,
    }
    with open(path, "w") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
    print(f"{len(plays)} plays written to {path} (axelrod {axl.__version__})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/assays/axelrod-reference.json")
