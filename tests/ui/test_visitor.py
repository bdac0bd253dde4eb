"""ui.visitor: the address a visitor comes from is the one a client cannot choose. A client's own
X-Forwarded-For is never believed; behind proxies the operator names, the first hop from the right
that is not one of them is the client."""

from __future__ import annotations

import logging

import pytest

from ui.visitor import client_address, trusted_proxies

FRONT = trusted_proxies({"PEE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.5"})


def test_trusting_nobody_the_peer_is_the_client_whatever_the_header_says():
    assert client_address("198.51.100.7", "203.0.113.1, 203.0.113.2") == "198.51.100.7"
    assert client_address(None, "203.0.113.1") == "127.0.0.1"  # Streamlit says None for the machine itself


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("10.1.2.3", "198.51.100.7", "198.51.100.7"),  # one front proxy: the hop it appended
        ("10.1.2.3", "203.0.113.66, 198.51.100.7", "198.51.100.7"),  # what the client wrote itself (left) is not believed
        ("10.1.2.3", "198.51.100.7, 192.168.1.5, 10.9.9.9", "198.51.100.7"),  # through three trusted hops
        ("10.1.2.3", "", "10.1.2.3"),  # a trusted proxy that says nothing: the proxy itself
        ("10.1.2.3", "10.0.0.1, 10.0.0.2", "10.0.0.1"),  # every hop trusted: the leftmost, the farthest one seen
        ("10.1.2.3", "evil, 10.0.0.2", "evil"),  # not an address: the untrusted hop, as text
        ("198.51.100.7", "10.0.0.1", "198.51.100.7"),  # the peer itself untrusted: the header is the client's own
        ("10.1.2.3", "198.51.100.7,,", "198.51.100.7"),  # empty hops are skipped
    ],
)
def test_behind_trusted_proxies_the_rightmost_untrusted_hop_is_the_client(peer, forwarded, client):
    assert client_address(peer, forwarded, FRONT) == client


def test_a_long_header_costs_little_and_gives_a_short_address():
    assert client_address("10.1.2.3", ", ".join(["10.0.0.1"] * 10_000), FRONT) == "10.0.0.1"
    assert len(client_address("10.1.2.3", "x" * 10_000, FRONT)) == 64


def test_proxies_are_read_from_the_environment_and_a_bad_name_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="ui.visitor"):
        proxies = trusted_proxies({"PEE_TRUSTED_PROXIES": "127.0.0.1, fd00::/8, nonsense,,"})
    assert [str(p) for p in proxies] == ["127.0.0.1/32", "fd00::/8"]
    assert "nonsense" in caplog.text
    assert trusted_proxies({}) == ()
