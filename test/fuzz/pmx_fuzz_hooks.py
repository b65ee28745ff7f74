"""Schemathesis hooks for the OpenAPI fuzz run (test/api/openapiFuzz.test.ts loads them via SCHEMATHESIS_HOOKS).

The test process runs the service and a small side server (PMX_FUZZ_SIDE) that holds the fuzzing trader's
wallet and API key. These hooks ask it for:
- /fixtures: real token ids, condition ids, order ids, the trader's address and API key, so that generated
  requests reach past "not found" into the handlers;
- /sign: the authentication headers for the request exactly as it goes on the wire (L1 for the API-key
  routes, L2 HMAC over method, path and body bytes for the others), signed with the repo's own code;
- /state: a hash of the engine state without its event counter and clock, before and after each request;
- /rotate: a new API key after the fuzzer deleted the current one.

The custom check `refused_request_changes_nothing` fails any request answered with a 4xx or 5xx after which
that hash differs: a refused request must not change what the engine holds.
"""

import base64
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
        "markets": token_ids,
        "condition_id": condition_ids,
        "conditionId": condition_ids,
        # /prices-history names a token `market`; everywhere else `market` is a condition id.
        "market": token_ids if "prices-history" in path else condition_ids,
        "user": [FIXTURES["address"]],
        "address": [FIXTURES["address"]],
        "orderID": FIXTURES["orderIds"],
        "owner": [FIXTURES["apiKey"]],
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


def _with_real_ids(case, seed):
    path = case.operation.path
    pools = _pools(path)
    pick = lambda pool: pool[seed % len(pool)]  # noqa: E731
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


@schemathesis.hook
def flatmap_case(ctx, case):
    # Half the cases keep what was generated; the other half use real ids (chosen by the seed, so a run repeats).
    return st.integers(min_value=-1, max_value=1000).map(lambda n: case if n < 0 else _with_real_ids(case, n))


@schemathesis.hook
def before_call(ctx, case, kwargs):
    STATE_BEFORE[id(case)] = side("/state")["hash"]
    kwargs["auth"] = SignedRequest()


@schemathesis.hook
def after_call(ctx, case, response):
    if case.method.upper() == "DELETE" and case.formatted_path.endswith("/auth/api-key") and response.status_code == 200:
        side("/rotate", {})


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    before = STATE_BEFORE.pop(id(case), None)
    if response.status_code < 400 or before is None:
        return None
    after = side("/state")["hash"]
    if after != before:
        raise AssertionError(f"{case.method} {case.formatted_path} was answered {response.status_code} but changed the engine state")
    return None
