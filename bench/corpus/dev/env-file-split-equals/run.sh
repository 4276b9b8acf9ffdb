cd "$(dirname "$0")"
python3 settings.py
