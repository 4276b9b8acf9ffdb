cd "$(dirname "$0")"
python3 shop.py
