cd "$(dirname "$0")"
python3 editor.py
