cd "$(dirname "$0")"
python3 sessions.py
