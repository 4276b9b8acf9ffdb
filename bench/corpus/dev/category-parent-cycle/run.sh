cd "$(dirname "$0")"
python3 breadcrumbs.py
