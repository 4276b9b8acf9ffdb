cd "$(dirname "$0")"
python3 stock_lookup.py
