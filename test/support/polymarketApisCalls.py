"""Every Data API and Gamma call of polymarket-apis (PyPI, unchanged) that this service has a route for.

Usage: python polymarketApisCalls.py SERVICE_URL INPUTS_JSON

INPUTS_JSON names what the calls ask about: user, other (a second wallet), market, resolved (condition ids),
event (a catalog event id), event_slug, market_id, market_slug, query (a search text). Each call's answer
goes through the client's own pydantic models, as a user of the client gets it. One line per call on stderr
("ok NAME" or "FAILED NAME: error"); the last line on stdout is a JSON object of NAME -> {"ok": true,
"result": the validated answer, dumped by alias} or {"ok": false, "error": the exception, the pydantic errors
or the HTTP status and body}.

Left out, with the reason:
- PolymarketDataClient.get_ok: it requests base_url itself, upstream's Data API host root ("/", its health
  check); here the Data API shares a host and its base URL /activity is GET /activity (a wallet's activity,
  which needs `user`). The service's health check is GET /health.
- PolymarketDataClient.get_holders: it sends `min_balance`, a name upstream's Data API document does not have
  (its parameter is `minBalance`), which upstream ignores and this service refuses as an unknown parameter, as
  it does every unknown parameter of the activity reads (a 400). The same request with upstream's name is made
  through the client's own HTTP client and validated with its own HolderResponse model ("data.holders").
- PolymarketDataClient.get_all_positions_gql: a GraphQL subgraph, not the Data API.
- get_pnl, get_user_metric, get_leaderboard_user_rank, get_leaderboard_top_users: fixed hosts of the public
  website (user-pnl-api, lb-api) that no base URL setting reaches; the Data API's own rank is
  get_leaderboard_rankings(address=...), called here.
- PolymarketGammaClient.get_all_series: it pages by 300, and /series takes a limit of 1..100 (a larger one is
  a 400, as the catalog's specification sets); get_series is called with a limit in that range.
- PolymarketGammaClient: get_market_tags, get_event_tags, get_tag, the related-tags calls,
  get_series_by_id, get_teams, get_all_teams, get_sports_metadata, the comments calls, get_public_profile:
  no such route here (the catalog serves markets, events, series, tags and search); the grok_* calls post to
  the public website.
"""

import dataclasses
import json
import sys
import traceback
from datetime import UTC, datetime

import httpx
import pydantic
from polymarket_apis import PolymarketDataClient, PolymarketGammaClient
from polymarket_apis.types.data_types import HolderResponse


def mounted(client, base_url):
    """Point a client at one surface of the service.

    The clients join their paths to base_url with urljoin and a leading '/' ("/positions"), which keeps only
    base_url's host: upstream serves each API at the root of a host of its own. Here the Data API is under
    /activity and the Gamma catalog under /catalog of one host, so the path prefix is put back.
    """
    client.base_url = base_url
    client._build_url = lambda endpoint: base_url.rstrip("/") + endpoint
    return client


def plain(value):
    """A validated answer as JSON: models dumped by alias (the wire names), bytes as their length."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, bytes):
        return {"bytes": len(value), "zip": value[:2] == b"PK"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def failure(error):
    if isinstance(error, pydantic.ValidationError):
        return f"pydantic: {error}"
    if isinstance(error, httpx.HTTPStatusError):
        return f"HTTP {error.response.status_code} {error.request.url}: {error.response.text[:500]}"
    return "".join(traceback.format_exception_only(error)).strip()


def holders(data, market):
    """get_holders with upstream's parameter name (minBalance), validated with the client's own model."""
    response = data.client.get(data._build_url("/holders"), params={"market": market, "limit": 20, "minBalance": 1})
    response.raise_for_status()
    return [HolderResponse(**group) for group in response.json()]


def main():
    service, inputs = sys.argv[1], json.loads(sys.argv[2])
    data = mounted(PolymarketDataClient(), f"{service}/activity")
    gamma = mounted(PolymarketGammaClient(), f"{service}/catalog")
    user, other = inputs["user"], inputs["other"]
    market, resolved, event = inputs["market"], inputs["resolved"], inputs["event"]
    since = datetime(2000, 1, 1, tzinfo=UTC)

    calls = {
        # PolymarketDataClient
        "data.get_positions": lambda: data.get_positions(user),
        "data.get_positions(market, sizeThreshold 0, CASHPNL)": lambda: data.get_positions(user, condition_id=[market], size_threshold=0, sort_by="CASHPNL"),
        "data.get_positions(eventId)": lambda: data.get_positions(user, event_id=int(event)),
        "data.get_positions(redeemable)": lambda: data.get_positions(other, redeemable=True, size_threshold=0),
        "data.get_all_positions": lambda: data.get_all_positions(user),
        "data.get_trades": lambda: data.get_trades(),
        "data.get_trades(user, both sides)": lambda: data.get_trades(user=user, taker_only=False),
        "data.get_trades(market, CASH filter, BUY)": lambda: data.get_trades(condition_id=market, filter_type="CASH", filter_amount=1, side="BUY"),
        "data.get_trades(eventId)": lambda: data.get_trades(event_id=event),
        "data.get_activity": lambda: data.get_activity(user),
        "data.get_activity(other)": lambda: data.get_activity(other),
        "data.get_activity(types, since, CASH ASC)": lambda: data.get_activity(other, type=["SPLIT", "MERGE", "REDEEM"], start=since, sort_by="CASH", sort_direction="ASC"),
        "data.get_activity(market, SELL)": lambda: data.get_activity(user, condition_id=market, side="SELL"),
        "data.holders": lambda: holders(data, market),
        "data.get_value": lambda: data.get_value(user),
        "data.get_value(markets)": lambda: data.get_value(user, condition_ids=[market, resolved]),
        "data.get_closed_positions": lambda: data.get_closed_positions(user),
        "data.get_closed_positions(market)": lambda: data.get_closed_positions(other, condition_ids=resolved),
        "data.get_total_markets_traded": lambda: data.get_total_markets_traded(user),
        "data.get_open_interest": lambda: data.get_open_interest(),
        "data.get_open_interest(markets)": lambda: data.get_open_interest([market, resolved]),
        "data.get_live_volume": lambda: data.get_live_volume(event),
        "data.get_accounting_snapshot_zip": lambda: data.get_accounting_snapshot_zip(user),
        "data.get_accounting_snapshot_csvs": lambda: data.get_accounting_snapshot_csvs(user),
        "data.get_leaderboard_rankings": lambda: data.get_leaderboard_rankings(time_period="ALL"),
        "data.get_leaderboard_rankings(user, VOL)": lambda: data.get_leaderboard_rankings(address=user, time_period="ALL", order_by="VOL"),
        "data.get_builder_leaderboard_aggregated": lambda: data.get_builder_leaderboard_aggregated("ALL"),
        "data.get_builder_leaderboard_timeseries": lambda: data.get_builder_leaderboard_timeseries("ALL"),
        # PolymarketGammaClient
        "gamma.get_markets": lambda: gamma.get_markets(limit=5),
        "gamma.get_markets(condition_ids)": lambda: gamma.get_markets(condition_ids=[market, resolved]),
        "gamma.get_markets(slugs)": lambda: gamma.get_markets(slugs=[inputs["market_slug"]]),
        "gamma.get_markets(ids)": lambda: gamma.get_markets(market_ids=[int(inputs["market_id"])]),
        "gamma.get_markets(closed)": lambda: gamma.get_markets(closed=True),
        "gamma.get_market": lambda: gamma.get_market(inputs["market_id"]),
        "gamma.get_market_by_id": lambda: gamma.get_market_by_id(inputs["market_id"], include_tag=True),
        "gamma.get_market_by_slug": lambda: gamma.get_market_by_slug(inputs["market_slug"]),
        "gamma.get_events": lambda: gamma.get_events(limit=5),
        "gamma.get_events(ids)": lambda: gamma.get_events(event_ids=[event]),
        "gamma.get_all_events": lambda: gamma.get_all_events(),
        "gamma.get_event_by_id": lambda: gamma.get_event_by_id(event),
        "gamma.get_event_by_slug": lambda: gamma.get_event_by_slug(inputs["event_slug"]),
        "gamma.get_series": lambda: gamma.get_series(limit=100),
        "gamma.get_tags": lambda: gamma.get_tags(),
        "gamma.get_all_tags": lambda: gamma.get_all_tags(),
        "gamma.search": lambda: gamma.search(inputs["query"]),
    }

    out = {}
    for name, call in calls.items():
        try:
            out[name] = {"ok": True, "result": plain(call())}
            print(f"ok {name}", file=sys.stderr)
        except Exception as error:  # noqa: BLE001: each call's failure is reported, the others still run
            out[name] = {"ok": False, "error": failure(error)}
            print(f"FAILED {name}: {out[name]['error']}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
