"""A stand-in for the service in a thread (http.server): canned answers by path, every request recorded."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Tuple, Union
from contextlib import contextmanager

# (status, content type, body), and optionally the response's other headers.
Answer = Union[Tuple[int, str, Union[bytes, str, Any]], Tuple[int, str, Union[bytes, str, Any], Dict[str, str]]]


@contextmanager
def fake_service(routes: Dict[str, Union[Answer, Callable[[str], Answer]]]) -> Iterator[Tuple[str, List[Dict[str, Any]]]]:
    """Serves ``routes`` (path without the query -> (status, content type, body)) at http://127.0.0.1:<port>; yields
    the address and the requests seen (method, path, headers)."""
    seen: List[Dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def answer(self) -> None:
            path = self.path.split("?")[0]
            seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers)})
            route = routes.get(path) or routes.get("*")
            if route is None:
                status, kind, body = 404, "application/json", {"detail": "Not found"}
            else:
                status, kind, body, *extra = route(self.path) if callable(route) else route
            data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (extra[0] if route is not None and extra else {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
