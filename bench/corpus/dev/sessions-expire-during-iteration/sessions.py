"""In-memory session store for a small web app: sessions expire after a period of inactivity."""


class SessionStore:
    def __init__(self, ttl_seconds):
        self.ttl = ttl_seconds
        self.last_seen = {}

    def touch(self, session_id, now):
        self.last_seen[session_id] = now

    def expire(self, now):
        expired = 0
        for session_id, seen in self.last_seen.items():
            if now - seen > self.ttl:
                del self.last_seen[session_id]
                expired += 1
        return expired


store = SessionStore(ttl_seconds=600)
for session_id, seen in [("s1", 0), ("s2", 300), ("s3", 900), ("s4", 1000)]:
    store.touch(session_id, seen)
print(f"expired {store.expire(now=1200)} sessions, active: {sorted(store.last_seen)}")
