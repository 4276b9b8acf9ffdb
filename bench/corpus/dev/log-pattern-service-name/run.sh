cd "$(dirname "$0")"
python3 error_counts.py
