cd "$(dirname "$0")"
python3 sale.py
