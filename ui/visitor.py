"""Who pressed Train, for the lab's trainers (core.lab.trainers.Trainers): a visitor (a browser, across
its tabs: `ui.internals.session.visitor_id`, from cookies the client sends and could forge) and the network
address they came from, which a client cannot choose, and which bounds what one client can hold.

The address is the websocket's peer (Streamlit's server, uvicorn, already replaces a loopback peer by
the last hop of X-Forwarded-For, so behind the image's nginx it is the client nginx saw). Behind
more proxies (a hosting platform's), the operator names them in PEE_TRUSTED_PROXIES (addresses or
networks, comma-separated, e.g. `10.0.0.0/8,172.16.0.0/12`): X-Forwarded-For is then read from the
right, and the first hop that is not a trusted proxy is the client. None is trusted by default: a
client's own X-Forwarded-For (everything left of the last trusted hop) is never believed.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Mapping

from ui.internals.session import visitor_id

TRUSTED_PROXIES_ENV = "PEE_TRUSTED_PROXIES"
LOCAL = "127.0.0.1"  # Streamlit says None for a peer on the machine itself


def trusted_proxies(environ: Mapping[str, str] | None = None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The networks named in PEE_TRUSTED_PROXIES; a name that is not an address or network is logged and left out."""
    raw = (os.environ if environ is None else environ).get(TRUSTED_PROXIES_ENV, "")
    networks = []
    for name in raw.replace(",", " ").split():  # spaces or commas between them, as the image's nginx reads the same variable
        try:
            networks.append(ipaddress.ip_network(name, strict=False))
        except ValueError:
            logging.getLogger(__name__).warning("%s: %r is not an address or a network; left out.", TRUSTED_PROXIES_ENV, name[:60])
    return tuple(networks)


def _trusted(address: str, proxies) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(peer: str | None, forwarded_for: str | None, proxies=()) -> str:
    """The client's address: the peer, unless it is a trusted proxy; then the hops of
    X-Forwarded-For from the right, the first that is not a trusted proxy (each proxy appends the
    address it was reached from, so the hops left of it are whatever the client wrote). A hop that
    is not an address ends the walk there: it is what the client wrote, as text."""
    address = peer or LOCAL
    hops = [hop.strip() for hop in (forwarded_for or "").split(",")][-64:]
    while hops and _trusted(address, proxies):
        hop = hops.pop()
        if hop:
            address = hop
    return address[:64]


_PROXIES = trusted_proxies()  # read once per process, as the trainers' limits are


def who() -> dict[str, str]:
    """The visitor running this script as a lab run takes it (`LabRun(..., **who())`): `visitor`, a browser across its
    tabs, and `address`, where from, read from the request that opened its websocket (st.context)."""
    import streamlit as st

    try:
        peer, forwarded = st.context.ip_address, st.context.headers.get("X-Forwarded-For")
    except Exception:  # no request: the machine itself
        peer, forwarded = None, None
    text = lambda value: value if isinstance(value, str) else None  # noqa: E731  (AppTest's runtime is a mock: its answers are not text)
    return {"visitor": visitor_id(), "address": client_address(text(peer), text(forwarded), _PROXIES)}
