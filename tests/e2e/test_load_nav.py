"""bench.load.session.NAV_LINK_INDEX: a session switching pages finds the sidebar link by the
page's path, so `--pages` can drive a subset of the app's pages (it once clicked the link at
the page's index in the subset, which led to another page) and the app can sit under a prefix."""

import pytest

from bench.load.session import NAV_LINK_INDEX

# the sidebar as Streamlit renders it: absolute links, the default page at the root
NAV = """<div data-testid="stSidebarNav">
  <a href="{base}/">Home</a> <a href="{base}/sinusoidal">Sinusoidal</a>
  <a href="{base}/rope">RoPE</a> <a href="{base}/lab/">Lab</a>
</div>"""


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


@pytest.mark.parametrize(
    ("base", "path", "index"),
    [
        ("http://127.0.0.1:8501", "", 0),  # the default page, at "/"
        ("http://127.0.0.1:8501", "/rope", 2),  # not 1, rope's index in --pages problem,rope
        ("http://127.0.0.1:8501", "/lab", 3),  # a trailing slash in the link
        ("http://127.0.0.1:8501", "/ro", -1),  # a prefix of a path is not the path
        ("http://127.0.0.1:8501", "/compare", -1),
        ("https://host.example/pe", "/pe", 0),  # behind a proxy at /pe
        ("https://host.example/pe", "/pe/sinusoidal", 1),
        ("https://host.example/pe", "/sinusoidal", -1),
    ],
)
def test_the_link_to_a_path_is_found_by_its_path(page, base, path, index):
    page.set_content(NAV.format(base=base))
    assert page.evaluate(NAV_LINK_INDEX, path) == index
