"""The fixture API of barrage's flow tests (run.py): items that each chain
creates, reads, changes and deletes, in that order, checked by the server
itself. Shared by the HTTP/1.1 + h2c server (tcpserver.py) and the HTTP/3 one
(h3server.py); no I/O here.

  POST /items          body {"user": U, "seq": S, "name": N}, header X-User: U
                       -> 201, Location: /items/ID, {"id": ID}
                       (every `drop_location`-th item: 201 without Location)
  GET /items/ID        -> 200 {"id": ID, ...} (every `fail_get`-th item: 500 "boom")
  PATCH /items/ID      body {"seq": S}, S the item's own -> 200
  DELETE /items/ID     -> 204

Anything out of order (a GET before the POST answered, a PATCH before the GET,
a request for an item that is not there, a body that does not say what the
chain said before) is a violation: counted, the first few kept, answered 409.
`names` (comma-separated) is the CSV column users read: user U must send
names[(U - 1) % len(names)]. With `jwt=1` every request must carry
"Authorization: Bearer H.P.S" (a JWT's three parts), each token once."""
import json
import threading

NEXT = {"GET": "created", "PATCH": "read", "DELETE": "patched"}
AFTER = {"GET": "read", "PATCH": "patched", "DELETE": "deleted"}


class Api:
    def __init__(self, params):
        self.lock = threading.Lock()
        self.fail_get = int(params.get("fail_get", 0))
        self.drop_location = int(params.get("drop_location", 0))
        self.names = [n for n in params.get("names", "").split(",") if n]
        self.jwt = params.get("jwt") == "1"
        self.tokens = set()
        self.items = {}
        self.next_id = 1
        self.counts = {"POST": 0, "GET": 0, "PATCH": 0, "DELETE": 0, "other": 0}
        self.answers = {}
        self.violations = 0
        self.examples = []

    def _violation(self, why):
        self.violations += 1
        if len(self.examples) < 5:
            self.examples.append(why)
        return 409, [("content-type", "text/plain")], why.encode()

    def handle(self, method, path, headers, body):
        """(status, [(name, value)], body) for one request; headers lower-case names."""
        with self.lock:
            status, hdrs, out = self._handle(method, path, headers, body)
            key = f"{method} {status}"
            self.answers[key] = self.answers.get(key, 0) + 1
            return status, hdrs, out

    def _handle(self, method, path, headers, body):
        self.counts[method if method in self.counts else "other"] += 1
        if self.jwt:
            auth = headers.get("authorization", "")
            if not auth.startswith("Bearer ") or auth.count(".") != 2 or auth in self.tokens:
                return self._violation(f"{method} {path}: Authorization {auth[:40]!r}")
            self.tokens.add(auth)
        if method == "GET" and path == "/_stats":
            self.counts["GET"] -= 1
            return 200, [("content-type", "application/json")], json.dumps(self.stats()).encode()
        if method == "POST" and path == "/items":
            return self._create(headers, body)
        if not path.startswith("/items/") or method not in NEXT:
            return self._violation(f"{method} {path}: no such route")
        try:
            item_id = int(path[len("/items/"):])
        except ValueError:
            return self._violation(f"{method} {path}: not an item")
        item = self.items.get(item_id)
        if item is None:
            return self._violation(f"{method} {path}: no such item")
        if item["state"] != NEXT[method]:
            return self._violation(f"{method} {path}: the item is {item['state']}")
        if headers.get("x-user") != str(item["user"]):
            return self._violation(f"{method} {path}: X-User {headers.get('x-user')} for user {item['user']}'s item")
        item["state"] = AFTER[method]
        if method == "GET":
            if self.fail_get and item_id % self.fail_get == 0:
                return 500, [("content-type", "text/plain")], b"boom"
            return 200, [("content-type", "application/json")], json.dumps({"id": item_id, **item}).encode()
        if method == "PATCH":
            try:
                seq = json.loads(body)["seq"]
            except (ValueError, KeyError, TypeError):
                return self._violation(f"PATCH {path}: body {body[:40]!r}")
            if seq != item["seq"]:
                return self._violation(f"PATCH {path}: seq {seq}, created in {item['seq']}")
            return 200, [("content-type", "application/json")], b'{"ok": true}'
        del self.items[item_id]
        return 204, [], b""

    def _create(self, headers, body):
        try:
            doc = json.loads(body)
            user, seq, name = int(doc["user"]), int(doc["seq"]), doc["name"]
        except (ValueError, KeyError, TypeError):
            return self._violation(f"POST /items: body {body[:60]!r}")
        if headers.get("x-user") != str(user):
            return self._violation(f"POST /items: X-User {headers.get('x-user')}, body user {user}")
        if self.names and name != self.names[(user - 1) % len(self.names)]:
            return self._violation(f"POST /items: user {user} sent name {name!r}")
        item_id = self.next_id
        self.next_id += 1
        self.items[item_id] = {"state": "created", "user": user, "seq": seq}
        hdrs = [("content-type", "application/json")]
        if not (self.drop_location and item_id % self.drop_location == 0):
            hdrs.append(("location", f"/items/{item_id}"))
        return 201, hdrs, json.dumps({"id": item_id}).encode()

    def stats(self):
        """The counts, what is left of the items, the violations (call with lock held)."""
        states = {}
        for item in self.items.values():
            states[item["state"]] = states.get(item["state"], 0) + 1
        return {"counts": self.counts, "answers": self.answers, "violations": self.violations,
                "examples": self.examples, "left": states, "created": self.next_id - 1, "tokens": len(self.tokens)}
