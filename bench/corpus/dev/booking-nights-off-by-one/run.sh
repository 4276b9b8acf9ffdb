cd "$(dirname "$0")"
python3 calendar_report.py
