cd "$(dirname "$0")"
python3 report.py
