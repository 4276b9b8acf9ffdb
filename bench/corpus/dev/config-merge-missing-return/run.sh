cd "$(dirname "$0")"
python3 app.py
