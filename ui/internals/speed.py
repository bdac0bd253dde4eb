"""Speed patches: what a run repeats whatever the page draws, done once per process. `ui.internals.install` puts
them in place unless the operator asks for stock Streamlit (`PEE_STOCK_STREAMLIT=1`). Each stays only while a
same-run A/B (`python -m bench.load.ab --settings`, docs/deploy.md "The speed patches, one by one") shows its gain
above the noise of the rounds of one tree; four others (a keyed component's identity left unhashed, widgets reading
one key of Session State, the pages made once per process, a cached function's key worked out once) showed none and
were deleted. Freezing the heap out of the garbage collector's full passes is not a Streamlit patch: `ui/heap.py`, kept
for the p95 it cuts (docs/deploy.md).

Written for streamlit 1.67.0 (`ui.internals.WRITTEN_FOR`); each returns False and leaves Streamlit
as it is when a structure is not as described (tests/ui/test_internals.py fails loudly when an
upgrade moves one). What is relied on, none of it documented API:

- `runtime.app_session._populate_theme_msg(msg, section)`, a module function the new_session
  message of every full run calls for six theme sections, each reading every config option
  (`config.get_options_for_section`), each section a CustomThemeConfig with a `sidebar` field of
  the same type; `config.get_config_options()`, the options dict, a new one when the config is
  parsed again (`theme_read_once`).
"""

from __future__ import annotations

from collections.abc import Callable


def theme_read_once() -> bool:
    """Read the theme from the config once per section, not at every full run.

    Every full run starts with a new_session message whose six theme sections Streamlit fills
    by reading every config option each time (`_populate_theme_msg`). Wrapped, a section is
    filled once into a message of its own (with whether Streamlit set it at all: a section set to
    defaults only, as `base` alone, is still sent) and copied into each later one; filled again when
    the config is parsed again (a new options dict). A theme option set at run time in the same dict
    (`config.set_option`; the app sets none) would not be seen. True when in place."""
    try:
        from streamlit import config
        from streamlit.runtime import app_session

        original = app_session._populate_theme_msg
        if getattr(original, "_pee_once", False):
            return True
        filled: dict = {}

        def populate(msg, section: str = "theme") -> None:
            try:
                options = config.get_config_options()
                found = filled.get((type(msg), section))
                if found is None or found[0] is not options:
                    holder = type(msg)()  # filled as a sub-message (its `sidebar`, of the same type): whether Streamlit set it shows
                    original(holder.sidebar, section)
                    found = filled[(type(msg), section)] = (options, holder.HasField("sidebar"), holder.sidebar)
                _, touched, section_msg = found
            except Exception:  # not as written for: Streamlit's own
                original(msg, section)
                return
            if touched:  # set (even to defaults only, as `base` alone): the section is sent, as Streamlit sends it
                msg.SetInParent()
                msg.MergeFrom(section_msg)

        populate._pee_once, populate.__wrapped__ = True, original
        app_session._populate_theme_msg = populate
        return True
    except Exception:
        return False


# Each speed patch by the name the A/B and PEE_STOCK_STREAMLIT use, and what installs it.
PATCHES: dict[str, Callable[[], bool]] = {
    "theme": theme_read_once,
}
