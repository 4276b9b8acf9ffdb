cd "$(dirname "$0")"
python3 convert_prices.py
