cd "$(dirname "$0")"
python3 checkout.py
