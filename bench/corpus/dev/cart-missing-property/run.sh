cd "$(dirname "$0")"
python3 cart.py
