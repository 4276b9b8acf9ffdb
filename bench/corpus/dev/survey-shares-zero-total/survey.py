"""Survey results: the share of each answer, per question."""

ANSWERS = [
    ("Q1", "yes"), ("Q1", "no"), ("Q1", "yes"), ("Q2", "no"), ("Q2", "no"), ("Q1", "yes"),
]
QUESTIONS = {"Q1": ["yes", "no"], "Q2": ["yes", "no"], "Q3": ["yes", "no"]}


def count_answers(answers, questions):
    counts = {question: {choice: 0 for choice in choices} for question, choices in questions.items()}
    for question, choice in answers:
        counts[question][choice] += 1
    return counts


def shares(counts):
    total = sum(counts.values())
    return {choice: round(100 * n / total, 1) for choice, n in counts.items()}


for question, counts in count_answers(ANSWERS, QUESTIONS).items():
    print(f"{question}: " + ", ".join(f"{choice} {share}%" for choice, share in shares(counts).items()))
