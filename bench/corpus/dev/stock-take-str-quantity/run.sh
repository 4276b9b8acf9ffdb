cd "$(dirname "$0")"
python3 stock_take.py
