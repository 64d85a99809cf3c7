"""The /ui pages. Same tenant scoping as the API. The browser holds a server-side session id in an
HttpOnly, SameSite=Strict cookie (Secure over https), never the API key; the login form needs a token bound
to a pre-session cookie, and every form POST carries the session's CSRF token and must come from this
origin (see ``interfaces.server.sessions``). Pages need the key's ``read`` scope, changes its ``write``.
"""

from __future__ import annotations

import difflib
import hmac
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from memscribe.interfaces.server.auth import Principal, principal_for_key, require_scope
from memscribe.interfaces.server.errors import ApiError
from memscribe.interfaces.server.sessions import LOGIN_COOKIE, SESSION_COOKIE
from memscribe.interfaces.web import charts
from memscribe.models import Kind, Layer, MemoryRecord, Status, Version

__all__ = ["render_error", "router"]

templates = Jinja2Templates(directory=Path(__file__).resolve().parent / "templates")
router = APIRouter(prefix="/ui", include_in_schema=False)

_DONE = {
    "edited": "Saved as a new version.",
    "rolled_back": "Rolled back (as a new version).",
    "archived": "Archived: out of default recall, still found with deep search.",
    "restored": "Restored to active.",
    "deleted": "Deleted (kept in history).",
    "approved": "Approved: recall uses it now.",
    "rejected": "Rejected.",
}
_DIFF_FIELDS = ("status", "kind", "layer", "importance", "confidence", "entities", "time_start", "time_end")


# ---------------------------------------------------------------------- auth, csrf, rendering
async def ui_principal(request: Request) -> Principal:
    """The caller of a UI page: the key behind the session cookie (still active), with ``read``."""
    state = request.app.state.memscribe
    sid = request.cookies.get(SESSION_COOKIE)
    session = state.sessions.get(sid)
    key = state.keys.get(session.key_id) if session is not None else None
    if key is None:  # no session, expired, logged out, or its key was revoked
        raise ApiError(401, "unauthorized", "please log in")
    return require_scope(await principal_for_key(request, key, token=sid or ""), "read")


UI = Annotated[Principal, Depends(ui_principal)]


def _same_origin(request: Request) -> None:
    """A form POST must come from a page of this server (the browser says so in Origin / Sec-Fetch-Site)."""
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.headers.get("host"):
        raise ApiError(403, "forbidden", "cross-origin form post refused")
    if request.headers.get("sec-fetch-site") == "cross-site":
        raise ApiError(403, "forbidden", "cross-site form post refused")


async def _form(request: Request, p: Principal, *, scope: str = "write") -> dict[str, str]:
    """The POSTed form, after the same-origin, CSRF and scope checks."""
    _same_origin(request)
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    if not hmac.compare_digest(form.get("csrf", ""), request.app.state.memscribe.sessions.csrf(p.token)):
        raise ApiError(403, "forbidden", "the form's CSRF token is missing or stale; reload the page")
    require_scope(p, scope)
    return form


def _secure(request: Request) -> bool:
    return request.app.state.memscribe.settings.server.cookie_secure or request.url.scheme == "https"


def _page(request: Request, name: str, p: Principal | None, code: int = 200, **ctx: Any) -> HTMLResponse:
    ctx.update(
        tenant=p.tenant if p else None,
        csrf=request.app.state.memscribe.sessions.csrf(p.token) if p else ctx.pop("csrf", ""),
        done=_DONE.get(request.query_params.get("done", "")),
        kinds=[k.value for k in Kind],
        layers=[x.value for x in Layer],
        statuses=[s.value for s in Status],
    )
    resp = templates.TemplateResponse(request, name, ctx, status_code=code)
    resp.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
    )
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "same-origin"
    return resp


def render_error(
    request: Request, status: int, type_: str, message: str, headers: dict[str, str]
) -> Response:
    if status == 401 and request.method == "GET":
        return RedirectResponse(f"/ui/login?next={quote(request.url.path)}", status_code=303)
    if status == 401:
        return RedirectResponse("/ui/login", status_code=303)
    resp = _page(request, "error.html", None, status, status_code=status, type=type_, message=message)
    resp.headers.update(headers)
    return resp


def _back(url: str, done: str) -> RedirectResponse:
    return RedirectResponse(f"{url}?done={done}", status_code=303)


def _safe_next(nxt: str | None) -> str:
    if nxt and nxt.startswith("/ui/") and not nxt.startswith("//") and "\\" not in nxt:
        return nxt
    return "/ui/"


# ---------------------------------------------------------------------- login
def _login_page(request: Request, nxt: str, code: int = 200, error: str | None = None) -> HTMLResponse:
    """The login form, with a token bound to this browser's pre-session cookie (set here if missing)."""
    sessions = request.app.state.memscribe.sessions
    pre = request.cookies.get(LOGIN_COOKIE) or sessions.new_pre_session()
    resp = _page(request, "login.html", None, code, next=nxt, error=error, csrf=sessions.login_token(pre))
    resp.set_cookie(
        LOGIN_COOKIE, pre, max_age=3600, httponly=True, samesite="strict", secure=_secure(request), path="/ui"
    )
    return resp


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str | None = None) -> HTMLResponse:
    return _login_page(request, _safe_next(next))


@router.post("/login")
async def login(request: Request) -> Response:
    _same_origin(request)
    state = request.app.state.memscribe
    form = await request.form()
    nxt = _safe_next(str(form.get("next", "")))
    if not state.sessions.login_token_ok(request.cookies.get(LOGIN_COOKIE), str(form.get("csrf", ""))):
        raise ApiError(403, "forbidden", "the login form is stale or from another site; reload the page")
    key = state.keys.verify(str(form.get("key", "")).strip())
    if key is None:
        return _login_page(request, nxt, 401, "That API key is not valid.")
    if not key.allows("read"):
        return _login_page(request, nxt, 403, "That API key has no 'read' scope.")
    resp = RedirectResponse(nxt, status_code=303)
    resp.set_cookie(
        SESSION_COOKIE,
        state.sessions.create(key.id),  # a fresh id at every login: a planted one is never reused
        max_age=int(state.sessions.ttl_s),
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/ui",
    )
    resp.delete_cookie(LOGIN_COOKIE, path="/ui")
    return resp


@router.post("/logout")
async def logout(request: Request, p: UI) -> Response:
    await _form(request, p, scope="read")
    request.app.state.memscribe.sessions.revoke(p.token)  # the id stops working here, not just in the browser
    resp = RedirectResponse("/ui/login", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/ui")
    return resp


# ---------------------------------------------------------------------- browse
@router.get("/", response_class=HTMLResponse)
async def users_page(request: Request, p: UI) -> HTMLResponse:
    users = await p.scope.users()
    rows = []
    for u in users[:500]:
        recs = await p.scope.list(user_id=u, status=None)
        rows.append({"user": u, "counts": Counter(r.status.value for r in recs), "total": len(recs)})
    pending = sum(r["counts"].get("pending_review", 0) for r in rows)
    return _page(request, "users.html", p, rows=rows, more=max(0, len(users) - 500), pending=pending)


@router.get("/users/", response_class=HTMLResponse)
async def user_jump(p: UI, user: str = "") -> Response:
    return RedirectResponse(f"/ui/users/{quote(user, safe='')}" if user.strip() else "/ui/", status_code=303)


@router.get("/users/{user_id:path}", response_class=HTMLResponse)  # a user id may hold '/'
async def browser(
    request: Request,
    user_id: str,
    p: UI,
    q: str = "",
    kind: str = "",
    layer: str = "",
    status: str = "active",
) -> HTMLResponse:
    kind = kind if kind in {k.value for k in Kind} else ""
    layer = layer if layer in {x.value for x in Layer} else ""
    status = status if status in {s.value for s in Status} | {"all"} else "active"
    scores: dict[str, float] = {}
    if q.strip():
        f: dict[str, Any] = {k: v for k, v in (("kind", kind), ("layer", layer)) if v}
        if status not in ("active", "all"):
            f["status"] = status
        hits = await p.scope.search(q, user_id=user_id, limit=50, filters=f or None, deep=status == "all")
        recs = [h.memory for h in hits]
        scores = {h.memory.id: h.score for h in hits}
    else:
        recs = await p.scope.list(
            user_id=user_id,
            status=None if status == "all" else status,
            kind=kind or None,
            layer=layer or None,
            limit=500,
        )
        recs.sort(key=lambda r: r.updated_at, reverse=True)
    return _page(
        request,
        "browser.html",
        p,
        user_id=user_id,
        recs=recs,
        scores=scores,
        q=q,
        kind=kind,
        layer=layer,
        status=status,
    )


def _tokens(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9_]+|\s+|.", text, flags=re.S)


def text_diff(old: str, new: str) -> Markup:
    """Word diff (character diff for CJK) as <del>/<ins> HTML."""
    a, b = _tokens(old), _tokens(new)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(str(escape("".join(a[i1:i2]))))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return Markup("".join(out))


def _field_changes(old: MemoryRecord, new: MemoryRecord) -> list[tuple[str, str, str]]:
    a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
    return [(f, str(a.get(f)), str(b.get(f))) for f in _DIFF_FIELDS if a.get(f) != b.get(f)]


def _versions_view(versions: list[Version]) -> list[dict[str, Any]]:
    rows = []
    prev: Version | None = None
    for v in versions:
        row: dict[str, Any] = {"v": v, "diff": None, "changes": []}
        if prev is not None:
            row["diff"] = (
                text_diff(prev.record.text, v.record.text) if prev.record.text != v.record.text else None
            )
            row["changes"] = _field_changes(prev.record, v.record)
        rows.append(row)
        prev = v
    return list(reversed(rows))  # newest first


@router.get("/memories/{memory_id}", response_class=HTMLResponse)
async def memory_page(request: Request, memory_id: str, p: UI) -> HTMLResponse:
    rec = await p.scope.get(memory_id)
    versions = await p.scope.history(memory_id)
    events = await p.scope.explain(memory_id)
    return _page(
        request,
        "memory.html",
        p,
        rec=rec,
        versions=_versions_view(versions),
        events=events,
        user_id=rec.user_id,
    )


# ---------------------------------------------------------------------- correct
@router.post("/memories/{memory_id}/edit")
async def edit(request: Request, memory_id: str, p: UI) -> Response:
    form = await _form(request, p)
    reason = form.get("reason", "").strip() or "edited in the web UI"
    await p.scope.update(memory_id, text=form.get("text", ""), reason=reason[:1000], actor="web")
    return _back(f"/ui/memories/{quote(memory_id)}", "edited")


@router.post("/memories/{memory_id}/rollback")
async def rollback(request: Request, memory_id: str, p: UI) -> Response:
    form = await _form(request, p)
    try:
        version = int(form.get("version", ""))
    except ValueError as exc:
        raise ApiError(422, "invalid_input", "version must be a number") from exc
    await p.scope.rollback(memory_id, version, reason=f"rolled back to version {version} in the web UI")
    return _back(f"/ui/memories/{quote(memory_id)}", "rolled_back")


@router.post("/memories/{memory_id}/{action}")
async def lifecycle(request: Request, memory_id: str, action: str, p: UI) -> Response:
    await _form(request, p)
    if action == "archive":
        await p.scope.update(memory_id, status="archived", reason="archived in the web UI", actor="web")
        done = "archived"
    elif action == "restore":
        await p.scope.restore(memory_id, reason="restored in the web UI")
        done = "restored"
    elif action == "delete":
        await p.scope.delete(memory_id, reason="deleted in the web UI")
        done = "deleted"
    else:
        raise ApiError(404, "not_found", f"no action {action!r}")
    return _back(f"/ui/memories/{quote(memory_id)}", done)


# ---------------------------------------------------------------------- review queue
@router.get("/review", response_class=HTMLResponse)
async def review_page(request: Request, p: UI) -> HTMLResponse:
    return _page(request, "review.html", p, recs=await p.scope.review_queue(user_id=None))


@router.post("/review/{memory_id}/approve")
async def review_approve(request: Request, memory_id: str, p: UI) -> Response:
    form = await _form(request, p)
    text = form.get("text", "").strip()
    if text and text != (await p.scope.get(memory_id)).text:
        await p.scope.update(memory_id, text=text, reason="edited in review (web UI)", actor="web")
    await p.scope.approve(memory_id)
    return _back("/ui/review", "approved")


@router.post("/review/{memory_id}/reject")
async def review_reject(request: Request, memory_id: str, p: UI) -> Response:
    form = await _form(request, p)
    await p.scope.reject(memory_id, reason=form.get("reason", "").strip()[:1000] or "rejected in the web UI")
    return _back("/ui/review", "rejected")


# ---------------------------------------------------------------------- stats
@router.get("/stats", response_class=HTMLResponse)
async def stats_page(request: Request, p: UI, user_id: str = "") -> HTMLResponse:
    users = [user_id] if user_id else (await p.scope.users())[:200]
    recs: list[MemoryRecord] = []
    counters: Counter[str] = Counter()
    for u in users:
        recs += await p.scope.list(user_id=u, status=None)
        counters.update((await p.scope.stats(user_id=u)).get("counters", {}))
    today = datetime.now(UTC).date()
    days = [today - timedelta(days=i) for i in range(29, -1, -1)]
    created = Counter(r.created_at.astimezone(UTC).date() for r in recs)
    before = sum(n for d, n in created.items() if d < days[0])
    growth, total = [], before
    for d in days:
        total += created.get(d, 0)
        growth.append((d.isoformat(), float(total)))
    active = [r for r in recs if r.status == Status.active]
    kinds = Counter(r.kind.value for r in active).most_common()
    statuses = Counter(r.status.value for r in recs).most_common()
    latency = request.app.state.memscribe.latency.summary(p.tenant)
    return _page(
        request,
        "stats.html",
        p,
        user_id=user_id,
        n_users=len(users),
        n_memories=len(recs),
        n_active=len(active),
        growth=charts.line_chart(growth, title="memories over 30 days"),
        kinds_chart=charts.bar_chart([(k, float(n)) for k, n in kinds], title="active memories by kind"),
        status_chart=charts.bar_chart([(k, float(n)) for k, n in statuses], title="memories by status"),
        latency=charts.grouped_bars(list(latency.items()), ["p50", "p95"], unit=" ms"),
        latency_rows=latency,
        counters=sorted(counters.items()),
    )
