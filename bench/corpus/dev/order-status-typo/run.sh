cd "$(dirname "$0")"
python3 lifecycle.py
