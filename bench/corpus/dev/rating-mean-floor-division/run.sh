cd "$(dirname "$0")"
python3 test_ratings.py
