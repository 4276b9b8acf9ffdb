cd "$(dirname "$0")"
timeout -s INT 2 python3 quantities.py
