cd "$(dirname "$0")"
python3 labels.py
