cd "$(dirname "$0")"
timeout --foreground -s INT 2 python3 settle.py
