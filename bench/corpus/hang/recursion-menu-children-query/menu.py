"""Build the shop's navigation menu, as nested HTML lists, from the category table."""

import csv
import html
import sqlite3
import time
from pathlib import Path


class CatalogueDB:
    """Stands in for the catalogue database server: every query pays a network round trip."""

    def __init__(self, csv_path):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE TABLE categories (id INTEGER PRIMARY KEY, parent_id INTEGER, "
                        "name TEXT, position INTEGER)")
        with open(csv_path, newline="", encoding="utf-8") as f:
            rows = [(int(r["id"]), int(r["parent_id"]) if r["parent_id"] else None, r["name"],
                     int(r["position"])) for r in csv.DictReader(f)]
        self.db.executemany("INSERT INTO categories VALUES (?, ?, ?, ?)", rows)
        self.queries = 0

    def query(self, sql, *params):
        self.queries += 1
        time.sleep(0.02)  # the round trip
        return self.db.execute(sql, params).fetchall()


def top_level(db):
    return db.query("SELECT id, name FROM categories WHERE parent_id IS NULL ORDER BY position")


def children(db, category_id):
    return db.query("SELECT id, name FROM categories WHERE id = ? ORDER BY position", category_id)


def render_category(db, category_id, name, indent):
    pad = "  " * indent
    items = render_children(db, category_id, indent + 1)
    if not items:
        return [f'{pad}<li><a href="/c/{category_id}">{html.escape(name)}</a></li>']
    return ([f'{pad}<li><a href="/c/{category_id}">{html.escape(name)}</a>', f"{pad}  <ul>"]
            + items + [f"{pad}  </ul>", f"{pad}</li>"])


def render_children(db, category_id, indent):
    lines = []
    for child_id, child_name in children(db, category_id):
        lines += render_category(db, child_id, child_name, indent + 1)
    return lines


def render_menu(db):
    lines = ["<ul>"]
    for category_id, name in top_level(db):
        lines += render_category(db, category_id, name, 1)
    return lines + ["</ul>"]


db = CatalogueDB(Path(__file__).with_name("categories.csv"))
menu = render_menu(db)
print("\n".join(menu))
print(f"{sum('<li>' in line for line in menu)} categories in the menu")
