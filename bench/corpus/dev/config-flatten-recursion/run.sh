cd "$(dirname "$0")"
python3 export_env.py
