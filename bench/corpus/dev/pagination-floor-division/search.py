"""Search results page: the slice of results to show and the "page 2 of 5" label above it."""

PAGE_SIZE = 10

CATALOGUE = [f"teapot {n}" for n in range(7)] + [f"mug {n}" for n in range(23)]


def search(catalogue, word):
    return [item for item in catalogue if item.split()[0] == word]


def page_count(total_items, page_size=PAGE_SIZE):
    return total_items // page_size


def page_slice(results, page, page_size=PAGE_SIZE):
    start = (page - 1) * page_size
    return results[start:start + page_size]


def position_label(page, pages):
    percent = round(page / pages * 100)
    return f"page {page} of {pages} ({percent}%)"


def results_header(word, page):
    results = search(CATALOGUE, word)
    shown = page_slice(results, page)
    label = position_label(page, page_count(len(results)))
    return f"{word}: {label}, showing {len(shown)} of {len(results)}"


for word, page in [("teapot", 1), ("mug", 3)]:
    print(results_header(word, page))
