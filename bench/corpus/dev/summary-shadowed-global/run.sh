cd "$(dirname "$0")"
python3 day_summary.py
