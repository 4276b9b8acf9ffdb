cd "$(dirname "$0")"
python3 greenhouse.py
