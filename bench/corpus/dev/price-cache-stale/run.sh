cd "$(dirname "$0")"
python3 test_pricing.py
