"""A stand-in for the Hugging Face hub on 127.0.0.1: serves one file and counts the requests it gets.

Only the two routes `hf_hub_download` uses: HEAD and GET `/{repo}/resolve/{revision}/{file}`. The
headers are the ones huggingface_hub insists on (X-Repo-Commit, ETag); no X-Xet-* headers, so
downloads take the plain HTTP path.
"""

from __future__ import annotations

import hashlib
import http.server
import re
import threading
import time
from collections import Counter

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    """Serves BLOB as REPO/FILE at `main` and at COMMIT; `with FakeHub(...) as hub:` runs it in a thread.

    `etag` defaults to the blob's sha256 (what the real hub sends for LFS files); pass another to
    serve bytes that do not match it. `delay` seconds pass before each GET body is sent.
    """

    def __init__(self, repo: str, file: str, blob: bytes, *, etag: str | None = None, delay: float = 0.0):
        self.repo, self.file, self.blob, self.delay = repo, file, memoryview(blob), delay
        self.etag = etag or hashlib.sha256(blob).hexdigest()
        self.requests: Counter[str] = Counter()  # "HEAD", "GET"
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeHub:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _count(self, method: str) -> None:
        with self._lock:
            self.requests[method] += 1

    def _handler(self):
        hub = self
        wanted = re.compile(rf"/{re.escape(hub.repo)}/resolve/(main|{COMMIT})/{re.escape(hub.file)}")

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the real hub; so every reply has a length

            def log_message(self, *args) -> None:
                pass

            def _headers(self, status: int, length: int) -> None:
                self.send_response(status)
                if status == 404:
                    self.send_header("X-Error-Code", "EntryNotFound")
                else:
                    self.send_header("X-Repo-Commit", COMMIT)
                    self.send_header("ETag", f'"{hub.etag}"')
                self.send_header("Content-Length", str(length))

            def do_HEAD(self) -> None:
                hub._count("HEAD")
                found = wanted.fullmatch(self.path)
                self._headers(200 if found else 404, len(hub.blob) if found else 0)
                self.end_headers()

            def do_GET(self) -> None:
                hub._count("GET")
                if not wanted.fullmatch(self.path):
                    self._headers(404, 0)
                    self.end_headers()
                    return
                start = int(re.match(r"bytes=(\d+)-", self.headers.get("Range", "bytes=0-"))[1])
                self._headers(206 if start else 200, len(hub.blob) - start)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(hub.blob) - 1}/{len(hub.blob)}")
                # As the hub's CDN does; huggingface_hub names the progress bar after it.
                self.send_header("Content-Disposition", f'attachment; filename="{hub.file}"')
                self.end_headers()
                time.sleep(hub.delay)
                self.wfile.write(hub.blob[start:])

        return Handler
