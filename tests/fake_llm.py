"""A real, local OpenAI-compatible chat-completions server with deterministic answers.

The only thing fr-graph's tests may fake is the paid LLM API. This stands in for it at the
HTTP boundary, so Graphiti's real ``OpenAIGenericClient`` (the ``openai`` SDK over httpx)
runs unchanged: ``FR_GRAPH_LLM_BASE_URL=<server.url>/v1``. It binds 127.0.0.1 on a free
port, serves ``POST /v1/chat/completions`` (and ``GET /v1/models``), records every request
and never opens an outbound connection.

Each Graphiti step asks for a JSON-schema structured answer; the server picks its answer by
``response_format.json_schema.name`` (the pydantic model's name) and computes it from the
prompt with simple rules a test can predict:

- Episode bodies are ``speaker: text`` (fr-graph writes ``role: content``).
- ``ExtractedEntities``: the speaker (verbatim, e.g. ``user``) first, then every run of
  capitalized words in the text that is not a common sentence opener (``I``, ``My``, ...).
- ``NodeResolutions``: an entity duplicates the EXISTING ENTITY of the same name
  (case-insensitive), else -1.
- ``ExtractedEdges``: one edge per message, speaker -> first other entity. ``fact`` is the
  sentence naming that entity, rewritten to third person ("I live in Boston now." ->
  "User lives in Boston now"); ``relation_type`` the words between the two names
  (``LIVES_IN``); ``valid_at`` the prompt's REFERENCE_TIME.
- ``EdgeDuplicate``: facts are compared by *predicate* (the lower-case words, minus fillers
  such as "now", "still", "actually") and *object* (the capitalized words after the
  subject). Same predicate and object: duplicate (only EXISTING FACTS may be); same
  predicate, other object: contradicted.
- ``EdgeTimestamps``: ``valid_at`` = the prompt's REFERENCE TIME.
- ``SummarizedEntities``: "<name> is mentioned in the conversation." per entity.
- ``FactLabel`` (fr-graph's LLM classifier): keyword rules over the prompt's FACT (see
  :data:`LABEL_RULES`); with no keyword in the fact, the SESSION CONTEXT's first keyword
  decides (confidence 0.5); with none at all, ``other`` (confidence 0.3). Relative dates
  ("tomorrow", "next friday") come back verbatim, for the classifier to resolve.
- ``DistilledFacts`` (fr-graph's distillation): the CANDIDATES sharing a word with the
  QUERY (4+ letters, minus stopwords such as "user", plural ``s`` ignored), most shared
  words first (ties: lower id first), all of them (the caller caps); a candidate whose state
  is not ``active``, or that has a later same-slot fact, is dropped unless the query asks
  about the past ("used to", "before", "previous", "history").
- ``PairRelation`` (fr-graph's LLM link verifier): keyword rules over the LATER FACT (see
  :data:`RELATION_RULES`), confidence 0.9; with no keyword, ``unrelated`` (confidence 0.6).
- Anything else: the smallest instance of the requested schema (and the name is recorded in
  :attr:`FakeLLM.unhandled`, so a test can notice a new Graphiti step).

Switches for failure tests: :attr:`FakeLLM.canned` answers a schema name with a fixed
object (or a raw string, sent verbatim as the message content); :attr:`FakeLLM.fail_status`
makes every request fail with that HTTP status (with ``x-should-retry: false``, which the
``openai`` SDK honours, so a test does not wait through its retry backoff).
"""

from __future__ import annotations

import ast
import json
import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENERS = {
    "I", "I'm", "I've", "I'd", "I'll", "My", "The", "A", "An", "And", "But", "So", "Also",
    "Actually", "Now", "Yes", "No", "Hi", "Hello", "Hey", "Oh", "Well", "We", "You", "It",
    "This", "That", "Today", "Still", "Just",
}
FILLERS = {"now", "still", "actually", "currently", "really", "again", "anymore", "just"}
THIRD_PERSON = {
    "live": "lives", "work": "works", "like": "likes", "love": "loves", "have": "has",
    "am": "is", "own": "owns", "study": "studies", "prefer": "prefers", "hate": "hates",
    "eat": "eats", "play": "plays", "go": "goes", "do": "does", "want": "wants",
}
_CAPS = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


@dataclass(slots=True)
class Request:
    """One chat-completions call as the server saw it."""

    path: str
    headers: dict[str, str]  # lower-case names
    body: dict[str, Any]
    schema_name: str | None
    answer: dict[str, Any] | None = None

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))


@dataclass
class FakeLLM:
    """Start with :meth:`start` (or ``with FakeLLM() as fake``); ``url`` is ``http://…:port``."""

    requests: list[Request] = field(default_factory=list)
    unhandled: list[str] = field(default_factory=list)
    #: Schema name -> a fixed answer (an object, or a raw content string sent verbatim).
    canned: dict[str, Any] = field(default_factory=dict)
    #: When set, every chat-completions request fails with this HTTP status.
    fail_status: int | None = None
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeLLM is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [
                        {"id": "fake", "object": "model", "created": 0, "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(raw)
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    failing = fake.fail_status
                    if failing is not None:
                        fake._record(Request(path=self.path, headers=headers, body=body,
                                             schema_name=_schema_name(body)))
                        self._send(failing, {"error": {"message": "fake failure"}},
                                   {"x-should-retry": "false"})
                        return
                    status, payload = 200, fake._complete(self.path, headers, body)
                except Exception as exc:  # answer like a server would, and keep serving
                    status, payload = 500, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
                self._send(status, payload)

            def _send(self, status: int, payload: dict[str, Any],
                      extra: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-llm",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def schema_names(self) -> list[str]:
        with self._lock:
            return [r.schema_name or "" for r in self.requests]

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    # -- answering -------------------------------------------------------------------

    def _complete(self, path: str, headers: dict[str, str], body: dict[str, Any]
                  ) -> dict[str, Any]:
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        name = spec.get("name")
        request = Request(path=path, headers=headers, body=body, schema_name=name)
        fixed = self.canned.get(name or "")
        if isinstance(fixed, str):
            answer: dict[str, Any] = {}
            content = fixed
        else:
            answer = fixed if fixed is not None else self.answer(
                name, spec.get("schema") or {}, request.prompt)
            content = json.dumps(answer)
        request.answer = answer
        with self._lock:
            self.requests.append(request)
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    def answer(self, name: str | None, schema: dict[str, Any], prompt: str) -> dict[str, Any]:
        handlers = {
            "ExtractedEntities": _entities,
            "NodeResolutions": _node_resolutions,
            "ExtractedEdges": _edges,
            "EdgeDuplicate": _edge_duplicate,
            "EdgeTimestamps": _timestamps,
            "SummarizedEntities": _summaries,
            "FactLabel": _fact_label,
            "DistilledFacts": _distilled,
            "PairRelation": _pair_relation,
        }
        handler = handlers.get(name or "")
        if handler is None:
            with self._lock:
                self.unhandled.append(name or "<no schema>")
            value = minimal_instance(schema, schema)
            return value if isinstance(value, dict) else {}
        return handler(prompt)


# -- prompt parsing ----------------------------------------------------------------------


def section(prompt: str, tag: str) -> str:
    """The text between ``<TAG>`` and ``</TAG>`` (the last such block), stripped."""
    found = re.findall(rf"<{re.escape(tag)}>\n?(.*?)\n?</{re.escape(tag)}>", prompt, re.S)
    return found[-1].strip() if found else ""


def json_section(prompt: str, tag: str) -> Any:
    """A section holding data: JSON, or a Python literal (some prompts format a list of
    dicts with an f-string, e.g. ``dedupe_edges.resolve_edge``'s EXISTING FACTS)."""
    text = section(prompt, tag)
    if not text:
        return []
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return ast.literal_eval(text)


def speaker_and_text(body: str) -> tuple[str, str]:
    speaker, sep, text = body.partition(":")
    if not sep or " " in speaker.strip():
        return "", body.strip()
    return speaker.strip(), text.strip()


def capitalized(text: str) -> list[str]:
    out: list[str] = []
    for match in _CAPS.finditer(text):
        words = match.group(0).split()
        while words and words[0] in OPENERS:
            words = words[1:]
        name = " ".join(words)
        if name and name not in out:
            out.append(name)
    return out


def third_person(speaker: str, sentence: str) -> str:
    sentence = sentence.strip().rstrip(".!?").strip()
    subject = speaker[:1].upper() + speaker[1:] if speaker else "User"
    words = sentence.split()
    if words and words[0] == "I":
        words = [subject, *words[1:]]
        for i in range(1, len(words)):
            if words[i].lower() in FILLERS:
                continue
            words[i] = THIRD_PERSON.get(words[i], words[i])
            break
    return " ".join(words)


def predicate_and_object(fact: str) -> tuple[tuple[str, ...], frozenset[str]]:
    words = fact.split()
    rest = words[1:]
    predicate = tuple(w.lower() for w in rest
                      if not w[:1].isupper() and w.lower() not in FILLERS)
    obj = frozenset(w for w in rest if w[:1].isupper())
    return ((words[0].lower(), *predicate) if words else predicate), obj


def reference_time(prompt: str, tag: str) -> str:
    raw = section(prompt, tag).split("#")[0].strip()
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the answers -------------------------------------------------------------------------


def _entities(prompt: str) -> dict[str, Any]:
    speaker, text = speaker_and_text(section(prompt, "CURRENT MESSAGE"))
    names = ([speaker] if speaker else []) + [
        n for n in capitalized(text) if n.lower() != speaker.lower()]
    return {"extracted_entities": [
        {"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in names]}


def _node_resolutions(prompt: str) -> dict[str, Any]:
    extracted = json_section(prompt, "ENTITIES")
    existing = json_section(prompt, "EXISTING ENTITIES")
    by_name = {str(c["name"]).casefold(): int(c["candidate_id"]) for c in existing}
    return {"entity_resolutions": [
        {"id": int(e["id"]), "name": e["name"],
         "duplicate_candidate_id": by_name.get(str(e["name"]).casefold(), -1)}
        for e in extracted]}


def _edges(prompt: str) -> dict[str, Any]:
    speaker, text = speaker_and_text(section(prompt, "CURRENT_MESSAGE"))
    names = [str(n["name"]) for n in json_section(prompt, "ENTITIES")]
    source = next((n for n in names if n.casefold() == speaker.casefold()), None)
    targets = [n for n in names if n != source]
    if source is None or not targets:
        return {"edges": []}
    target = targets[0]
    sentence = next((s for s in _SENTENCE.findall(text) if target in s), text)
    fact = third_person(speaker, sentence)
    between = fact.split(target)[0].split()[1:]
    relation = "_".join(w.upper() for w in between if w.lower() not in FILLERS) or "RELATES_TO"
    return {"edges": [{
        "source_entity_name": source, "target_entity_name": target,
        "relation_type": re.sub(r"[^A-Z0-9_]", "", relation), "fact": fact,
        "valid_at": reference_time(prompt, "REFERENCE_TIME"), "invalid_at": None,
        "episode_indices": [0],
    }]}


def _edge_duplicate(prompt: str) -> dict[str, Any]:
    existing = json_section(prompt, "EXISTING FACTS")
    candidates = json_section(prompt, "FACT INVALIDATION CANDIDATES")
    new_pred, new_obj = predicate_and_object(section(prompt, "NEW FACT"))
    duplicates: list[int] = []
    contradicted: list[int] = []
    for entry in [*existing, *candidates]:
        pred, obj = predicate_and_object(str(entry["fact"]))
        if pred != new_pred:
            continue
        if obj == new_obj:
            if entry in existing:
                duplicates.append(int(entry["idx"]))
        else:
            contradicted.append(int(entry["idx"]))
    return {"duplicate_facts": duplicates, "contradicted_facts": contradicted}


def _timestamps(prompt: str) -> dict[str, Any]:
    return {"valid_at": reference_time(prompt, "REFERENCE TIME"), "invalid_at": None}


def _summaries(prompt: str) -> dict[str, Any]:
    entities = json_section(prompt, "ENTITIES")
    return {"summaries": [
        {"name": e["name"], "summary": f"{e['name']} is mentioned in the conversation."}
        for e in entities if isinstance(e, dict) and e.get("name")]}


#: fr-graph's FactLabel: (keyword regex, category, attribute, instance). First match wins;
#: a second match of another category gets weight 0.3.
LABEL_RULES: tuple[tuple[str, str, str, str | None], ...] = (
    (r"\bdentist", "obligations", "appointment", "dentist"),
    (r"\bvet\b", "obligations", "appointment", "vet"),
    (r"\bflight", "logistical", "flight", None),
    (r"\brent\b", "financial", "rent", None),
    (r"\b(?:lives?|living|moved)\b", "identity", "current_city", None),
    (r"\b(?:pizza|sushi)\b", "preferences", "food_preference", None),
    (r"\bsister\b", "relational", "sister", None),
    (r"\bthesis\b", "projects", "project", "thesis"),
    (r"\bfishing\b", "hobbies", "hobby", "fishing"),
    (r"\bmigraine", "health", "condition", "migraine"),
)
_DAY_PHRASE = re.compile(r"\b(?:today|tomorrow|yesterday|next \w+day|\d{4}-\d{2}-\d{2})\b")
_WORLD = re.compile(r"\b(?:capital of|boiling point|speed of light)\b")
_INSTRUCTION = re.compile(r"\b(?:ignore (?:all|previous)|always answer|you must)\b")
_MARKERS = (
    (re.compile(r"\b(?:cancel\w*|called off|forget)\b"), "retraction"),
    (re.compile(r"\b(?:finished|defended|done with)\b"), "completion"),
    (re.compile(r"\b(?:thinking about|might|maybe)\b"), "tentative"),
)
_EMOTION = re.compile(r"\b(?:frustrated|excited|stressed|furious)\b")


def _label_matches(text: str) -> list[tuple[str, str, str | None]]:
    return [(c, a, i) for pattern, c, a, i in LABEL_RULES if re.search(pattern, text)]


def _fact_label(prompt: str) -> dict[str, Any]:
    fact = section(prompt, "FACT")
    text = fact.lower()
    matches = _label_matches(text)
    confidence = 0.9
    if not matches:
        matches = _label_matches(section(prompt, "SESSION CONTEXT").lower())
        confidence = 0.5
    world = bool(_WORLD.search(text))
    instruction = bool(_INSTRUCTION.search(text))
    if world or instruction or not matches:
        category, attribute, instance = "other", None, None
        weights = [{"category": "other", "weight": 1.0}]
        confidence = confidence if matches else 0.3
    else:
        category, attribute, instance = matches[0]
        second = next((m[0] for m in matches[1:] if m[0] != category), None)
        weights = ([{"category": category, "weight": 0.7}, {"category": second, "weight": 0.3}]
                   if second else [{"category": category, "weight": 1.0}])
    marker = next((name for pattern, name in _MARKERS if pattern.search(text)), "assertion")
    day = _DAY_PHRASE.search(text)
    return {
        "category": category, "weights": weights, "subject": "user", "attribute": attribute,
        "instance": instance, "marker": marker, "event_time": day.group(0) if day else None,
        "has_number": bool(re.search(r"\d", text)), "world_knowledge": world,
        "instruction_like": instruction, "confidence": confidence,
        "emotional_loading": 0.6 if _EMOTION.search(text) else 0.0,
    }


_CANDIDATE = re.compile(r"^\[(\d+)\] \(([^)]*)\) (.*)$")
_HISTORY = re.compile(r"\b(?:used to|before|previous\w*|history)\b")


_STOP = {"user", "users", "does", "what", "where", "when", "which", "that", "with", "from",
         "have", "this"}


def _words(text: str) -> set[str]:
    """Words of 4+ letters, minus a few stopwords, a plural ``s`` dropped ("lives" = "live")."""
    return {w.removesuffix("s") for w in re.findall(r"[a-z]+", text.lower())
            if len(w) >= 4 and w not in _STOP}


def _distilled(prompt: str) -> dict[str, Any]:
    query = section(prompt, "QUERY")
    wanted = _words(query)
    history = bool(_HISTORY.search(query.lower()))
    scored: list[tuple[int, int]] = []
    for line in section(prompt, "CANDIDATES").splitlines():
        match = _CANDIDATE.match(line.strip())
        if match is None:
            continue
        fields = dict(part.split(": ", 1) for part in match.group(2).split("; ") if ": " in part)
        stale = (fields.get("state", "active") != "active"
                 or fields.get("later same-slot fact") == "yes")
        if stale and not history:
            continue
        shared = len(wanted & _words(match.group(3)))
        if shared:
            scored.append((-shared, int(match.group(1))))
    return {"ids": [index for _, index in sorted(scored)]}


#: fr-graph's PairRelation: (keyword regex over the later fact, relation). First match wins.
RELATION_RULES: tuple[tuple[str, str], ...] = (
    (r"\bcancel\w*|\bcalled off\b", "cancels"),
    (r"\b(?:finished|defended|done with)\b", "completes"),
    (r"\b(?:moved|now|switched)\b", "updates"),
    (r"\b(?:but|anyway)\b", "contradicts"),
    (r"\b(?:also|called)\b", "refines"),
)


def _pair_relation(prompt: str) -> dict[str, Any]:
    later = section(prompt, "LATER FACT").lower()
    relation = next((name for pattern, name in RELATION_RULES if re.search(pattern, later)),
                    None)
    return {"relation": relation or "unrelated", "confidence": 0.9 if relation else 0.6,
            "reason": "keyword rule" if relation else "no keyword"}


def _schema_name(body: dict[str, Any]) -> str | None:
    spec = (body.get("response_format") or {}).get("json_schema") or {}
    name = spec.get("name")
    return name if isinstance(name, str) else None


def minimal_instance(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """The smallest value a JSON schema accepts (required fields only)."""
    if "$ref" in schema:
        ref = str(schema["$ref"]).rsplit("/", 1)[-1]
        return minimal_instance(root.get("$defs", {}).get(ref, {}), root)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            if any(o.get("type") == "null" for o in options):
                return None
            return minimal_instance(options[0], root)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: minimal_instance(props[k], root) for k in schema.get("required", [])}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False,
            "null": None}.get(str(kind))
