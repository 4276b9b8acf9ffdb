cd "$(dirname "$0")"
python3 invoices.py
