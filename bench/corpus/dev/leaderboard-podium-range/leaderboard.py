"""Quiz night: add up each team's round scores and announce the podium."""

ROUNDS = {
    "The Quizzards": [8, 7, 9],
    "Les Quizérables": [9, 9, 7],
    "Trivia Newton-John": [6, 8, 7],
}

MEDALS = ["gold", "silver", "bronze"]


def totals(rounds):
    return {team: sum(scores) for team, scores in rounds.items()}


def podium(scores):
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    return [ranked[place] for place in range(1, 4)]


for medal, (team, score) in zip(MEDALS, podium(totals(ROUNDS))):
    print(f"{medal}: {team} ({score} points)")
