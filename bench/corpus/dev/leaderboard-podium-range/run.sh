cd "$(dirname "$0")"
python3 leaderboard.py
