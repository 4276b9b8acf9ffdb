def mean(values):
    total = sum(values)
    return total / len(values)

def load_scores(text):
    scores = [int(x) for x in text.split(",") if x.strip()]
    return scores[1:]

def main():
    raw = "42"
    print(mean(load_scores(raw)))

main()
