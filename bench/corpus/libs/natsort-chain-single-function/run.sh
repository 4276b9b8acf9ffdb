cd "$(dirname "$0")"
python3 crash.py
