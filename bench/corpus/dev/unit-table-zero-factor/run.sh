cd "$(dirname "$0")"
python3 shopping.py
