cd "$(dirname "$0")"
python3 confirmations.py
