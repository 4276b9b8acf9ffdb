cd "$(dirname "$0")"
python3 delivery.py
