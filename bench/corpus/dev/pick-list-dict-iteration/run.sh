cd "$(dirname "$0")"
python3 pick_list.py
