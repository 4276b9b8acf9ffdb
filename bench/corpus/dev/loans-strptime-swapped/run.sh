cd "$(dirname "$0")"
python3 overdue.py
