cd "$(dirname "$0")"
python3 survey.py
