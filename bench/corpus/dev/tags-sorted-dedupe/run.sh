cd "$(dirname "$0")"
python3 test_tags.py
