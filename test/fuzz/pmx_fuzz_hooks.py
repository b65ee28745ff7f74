"""Schemathesis hooks for the OpenAPI fuzz run (test/api/openapiFuzz.test.ts loads them via SCHEMATHESIS_HOOKS).

The test process runs the service and a small side server (PMX_FUZZ_SIDE) that holds the fuzzing trader's
wallet and API key and the operator token. These hooks ask it for:
- /fixtures: real token ids, condition ids, order ids, the trader's address and API key, so that generated
  requests reach past "not found" into the handlers;
- /sign: the authentication headers for the request exactly as it goes on the wire (L1 for the API-key
  routes, from a wallet of their own with a new nonce each time; L2 HMAC over method, path and body bytes for
  the other trading routes; the operator's bearer token for /operator), signed with the repo's own code;
- /order: an order signed by the trader, valid in every way the document cannot state (signature, signer,
  timestamp window, a listed token);
- /mark (before each request) and /state (after it): a hash of the engine state without its event counter
  and clock, that counter, and (after) what the request added to the engine's memories of finished orders and
  applied signed requests (memories that also forget entries as time passes, so they are not in the hash);
  a state that differs from the mark only by what time alone did since (GTD orders and heartbeat sessions
  falling due, a resolved market's rewards ending at its next sample) is answered with the mark's hash;
- /rotate: a new API key after the fuzzer deleted the current one.

Only requests the document admits (positive cases) get real ids and signed orders: a request the document
refuses (a negative case) must keep the value that makes it wrong.

Two checks of our own:
- `refused_request_changes_nothing`: a request answered with a 4xx or 5xx must leave the engine's state (the
  hash) as it was;
- `schema_valid_request_refused_only_by_the_engine`: a request the document admits may be answered 400 only by
  the engine's judgement of the state it finds (funds, the market's status, a signed request already applied:
  the engine's event counter moved), never by a rule of form the document does not state. The schemathesis
  configuration (schemathesis.toml) lets positive_data_acceptance take 400 for that reason; this check keeps
  every other 400 a failure.
"""

import base64
import itertools
import json
import os
import urllib.request
from urllib.parse import urlsplit

import requests
import schemathesis
from hypothesis import strategies as st

SIDE = os.environ["PMX_FUZZ_SIDE"]


def side(path, payload=None):
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(SIDE + path, data=data, method="GET" if data is None else "POST", headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


FIXTURES = side("/fixtures")
STATE_BEFORE = {}
SIGNED = itertools.count()


class SignedRequest(requests.auth.AuthBase):
    """Adds the headers the side server signs over the prepared request's method, path and exact body bytes."""

    def __call__(self, r):
        body = r.body if isinstance(r.body, bytes) else (r.body or "").encode("utf-8")
        signed = side("/sign", {"method": r.method, "path": urlsplit(r.url).path, "body": base64.b64encode(body).decode()})
        r.headers.update(signed)
        return r


# Parameter names whose values the handlers look up or check against a closed set: a generated value
# rarely exists or fits, a real one does.
def _pools(path):
    token_ids = FIXTURES["tokenIds"]
    condition_ids = FIXTURES["conditionIds"]
    return {
        "token_id": token_ids,
        "asset_id": token_ids,
        "tokenId": token_ids,
        "token_ids": token_ids,
        "markets": token_ids,
        "condition_id": condition_ids,
        "conditionId": condition_ids,
        # /prices-history names a token `market`; everywhere else `market` is a condition id.
        "market": token_ids if "prices-history" in path else condition_ids,
        # The first token of each fixture market, in the order of the condition ids (so both pick one market).
        "winningTokenId": FIXTURES["firstTokenIds"],
        "user": [FIXTURES["address"]],
        "address": [FIXTURES["address"]],
        "orderID": FIXTURES["orderIds"],
        "side": ["BUY", "SELL"],
        "asset_type": ["COLLATERAL", "CONDITIONAL"],
        "q": ["will", "fed"],
    }


def _replace(values, pools, pick):
    if not isinstance(values, dict):
        return values
    out = dict(values)
    for name, pool in pools.items():
        if name in out and pool:
            current = out[name]
            out[name] = [pick(pool)] if isinstance(current, list) else pick(pool)
    return out


def _signed_envelope(envelope, n):
    """A POST /order body with a real signed order and the trader's key; the envelope's other fields as generated."""
    if not isinstance(envelope, dict):
        return envelope
    order_type = envelope.get("orderType")
    signed = side("/order", {"n": n, "orderType": order_type if isinstance(order_type, str) else "GTC"})
    # The key of the moment: the fuzzer may have deleted the one the run began with.
    return {**envelope, "order": signed["order"], "owner": signed["owner"]}


def _with_real_ids(case, n):
    path = case.operation.path
    pools = _pools(path)
    pick = lambda pool: pool[n % len(pool)]  # noqa: E731
    case.query = _replace(case.query, pools, pick)
    path_pools = dict(pools)
    if path.startswith("/clob/data/order/"):
        path_pools["id"] = FIXTURES["orderIds"]
    elif path.startswith("/clob/markets/"):
        path_pools["id"] = FIXTURES["conditionIds"]
    case.path_parameters = _replace(case.path_parameters, path_pools, pick)
    body = case.body
    if isinstance(body, dict):
        case.body = _replace(body, pools, pick)
        if isinstance(body.get("orderIDs"), list) and FIXTURES["orderIds"]:
            case.body["orderIDs"] = [pick(FIXTURES["orderIds"])]
    elif isinstance(body, list):
        case.body = [_replace(item, pools, pick) for item in body]
    return case


def _with_signed_orders(case, n):
    """Orders the trader signed in the bodies of POST /order and /orders: no document can state a signature."""
    path = case.operation.path
    if case.method.upper() == "POST" and path == "/clob/order":
        case.body = _signed_envelope(case.body, n)
    elif case.method.upper() == "POST" and path == "/clob/orders" and isinstance(case.body, list):
        case.body = [_signed_envelope(item, n + i) for i, item in enumerate(case.body)]
    return case


def _positive(case):
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.hook
def flatmap_case(ctx, case):
    # A request the document refuses keeps what makes it wrong. Of the others, half keep what was generated,
    # half use real ids and signed orders (chosen by the seed, so a run repeats).
    if not _positive(case):
        return st.just(case)
    return st.integers(min_value=-1, max_value=1000).map(lambda n: case if n < 0 else _with_real_ids(case, n))


@schemathesis.hook
def map_case(ctx, case):
    # Every phase (the coverage phase applies no flatmap_case): a request the document admits gets signed orders.
    return _with_signed_orders(case, next(SIGNED)) if _positive(case) else case


def _reads(case):
    """A GET submits no command: it can neither change the engine nor be judged by it."""
    return case.method.upper() in ("GET", "HEAD")


@schemathesis.hook
def before_call(ctx, case, kwargs):
    STATE_BEFORE[id(case)] = None if _reads(case) else side("/mark")
    kwargs["auth"] = SignedRequest()


@schemathesis.hook
def after_call(ctx, case, response):
    if case.method.upper() == "DELETE" and case.formatted_path.endswith("/auth/api-key") and response.status_code == 200:
        side("/rotate", {})


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    before = STATE_BEFORE.get(id(case))
    if response.status_code < 400 or before is None:
        return None
    after = side("/state")
    if after["hash"] != before["hash"] or after["added"]:
        raise AssertionError(f"{case.method} {case.formatted_path} was answered {response.status_code} but changed the engine state {after['added']}")
    return None


@schemathesis.check
def schema_valid_request_refused_only_by_the_engine(ctx, response, case):
    if response.status_code != 400 or not _positive(case):
        return None
    before = STATE_BEFORE.get(id(case))
    if before is None or side("/state")["seq"] == before["seq"]:
        raise AssertionError(
            f"{case.method} {case.formatted_path}: a request the document admits was refused with 400 before the engine judged it: {response.text[:500]}"
        )
    return None
