cd "$(dirname "$0")"
python3 search.py
