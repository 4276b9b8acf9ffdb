cd "$(dirname "$0")"
python3 revenue.py
