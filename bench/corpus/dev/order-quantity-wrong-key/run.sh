cd "$(dirname "$0")"
python3 orders.py
