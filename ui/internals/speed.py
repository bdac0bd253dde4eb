"""Speed patches: what Streamlit repeats on every run whatever the page draws, done once per process.
`ui.internals.install` puts them in place unless the operator asks for stock Streamlit
(`PEE_STOCK_STREAMLIT=1`); each was kept because a same-run A/B showed its gain above the noise
of two runs of one tree (docs/deploy.md, "The speed patches").

Written for streamlit 1.67.0 (`ui.internals.WRITTEN_FOR`); each returns False and leaves Streamlit
as it is when a structure is not as described (tests/ui/test_internals.py fails loudly when an
upgrade moves one). What is relied on, none of it documented API:

- `runtime.app_session._populate_theme_msg(msg, section)`, a module function the new_session
  message of every full run calls for six theme sections, each reading every config option
  (`config.get_options_for_section`), each section a CustomThemeConfig with a `sidebar` field of
  the same type; `config.get_config_options()`, the options dict, a new one when the config is
  parsed again (`theme_read_once`).
- `BidiComponentMixin._bidi_component` (also bound at import as `streamlit._bidi_component`, which
  components v2 call) and its `_build_bidi_identity_kwargs(**kwargs)`, whose result
  `compute_and_register_element_id` ignores when a key is given (`key_as_main_identity=True`)
  (`keyed_components_unhashed`).
- `runtime.caching.cache_utils._make_function_key(cache_type, func)`, which CachedFunc calls for
  every decorated function, every time a page script defines one (`cache_keys_once`).
- The module global `get_session_state` of six widget modules (number_input, selectbox, slider,
  text_widgets, radio, time_widgets), whose `.filtered_state` they read only as
  `key in state and state[key] is None`; `SafeSessionState._lock` and `._state`,
  `SessionState.__getitem__`, `state.common.is_element_id`, `session_state._is_internal_key`
  (`widgets_read_one_key`).
- `navigation.page.StreamlitPage`: its state is plain attributes, made once by `__init__` (which
  resolves the script's path, reads its file's name and checks the icon) except `_can_be_called`,
  which st.navigation sets on the page it returns and `run` clears (and `_default`, which
  st.navigation sets when no page is marked default; app.py marks one). So a shallow copy of a page
  made before any navigation is a page as st.Page would make it again. `reused_pages` makes the
  pages once per process and copies them on every run; `made_page` gives st.page_link the process's
  page (read only: st.page_link given a page object reads its public properties and its script
  hash, instead of resolving a path on every call).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping


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


def keyed_components_unhashed() -> bool:
    """Skip the identity a keyed browser component's data would give it, which Streamlit computes
    and then ignores.

    For every component call, Streamlit hashes its data (a dict encoded to JSON a second time, keys
    sorted; bytes, a heatmap's ~130 kB of JSON, as they are) into identity kwargs for `compute_and_register_element_id`,
    which drops them all when the call has a key. Every component of the app has one. Wrapped, a
    keyed call's identity is built without its data (the element id is the same); an unkeyed
    call's as before. True when in place."""
    try:
        import threading
        import types

        import streamlit
        from streamlit.components.v2.bidi_component.main import BidiComponentMixin

        original_call = BidiComponentMixin._bidi_component
        if getattr(original_call, "_pee_keyed", False):
            return True
        original_identity = BidiComponentMixin._build_bidi_identity_kwargs
        keyed = threading.local()

        def _bidi_component(self, component_name, key=None, *args, **kwargs):
            keyed.on = key is not None
            try:
                return original_call(self, component_name, key, *args, **kwargs)
            finally:
                keyed.on = False

        def _build_bidi_identity_kwargs(self, **kwargs):
            if getattr(keyed, "on", False) and "proto" in kwargs:
                kwargs["data"] = None
                kwargs["proto"] = type(kwargs["proto"])()  # no data field set: nothing of it is encoded
            return original_identity(self, **kwargs)

        bound = getattr(streamlit, "_bidi_component", None)
        if getattr(bound, "__func__", None) is not original_call:
            return False
        _bidi_component._pee_keyed, _bidi_component.__wrapped__ = True, original_call
        _build_bidi_identity_kwargs.__wrapped__ = original_identity
        BidiComponentMixin._bidi_component = _bidi_component
        BidiComponentMixin._build_bidi_identity_kwargs = _build_bidi_identity_kwargs
        streamlit._bidi_component = types.MethodType(_bidi_component, bound.__self__)
        return True
    except Exception:
        return False


def cache_keys_once() -> bool:
    """Work out the key of an st.cache_data function once, not every time its page runs.

    A page script runs again on every rerun, so each `@st.cache_data def f` in it makes a new
    CachedFunc, whose key (a hash of the function's module, qualified name and source) Streamlit
    works out by reading the source again (`inspect.getsource`: a tokenizer pass over the file).
    Streamlit compiles a page once (ScriptCache), so each run's `f` has the same code object;
    code objects compare by their contents but not their file, defaults or comments, so the key is
    kept by (cache type, module, qualified name, code, file, defaults) of the function inside any
    functools.wraps decorator (what Streamlit reads the source of). A change to comments alone keeps
    the key (the app's servers do not watch files). True when in place."""
    try:
        import inspect

        from streamlit.runtime.caching import cache_utils

        original = cache_utils._make_function_key
        if getattr(original, "_pee_once", False):
            return True
        keys: dict = {}

        def make_function_key(cache_type, func):
            try:
                target = inspect.unwrap(func)  # Streamlit reads the source of the function inside any functools.wraps decorator
                code = target.__code__
                kwdefaults = tuple(sorted((target.__kwdefaults__ or {}).items()))
                # code objects compare without their file, defaults or comments: those are part of the key too
                found = (cache_type, func.__module__, func.__qualname__, code, code.co_filename, target.__defaults__, kwdefaults)
                key = keys.get(found)
            except Exception:  # no code object, or an unhashable default: Streamlit's own, every time
                return original(cache_type, func)
            if key is None:
                key = keys[found] = original(cache_type, func)
            return key

        make_function_key._pee_once, make_function_key.__wrapped__ = True, original
        cache_utils._make_function_key = make_function_key
        return True
    except Exception:
        return False


WIDGET_MODULES = ("number_input", "selectbox", "slider", "text_widgets", "radio", "time_widgets")


class _OneKeyState(Mapping):
    """Session State as a widget reads it: a plain key answered by one lookup, the same read
    `st.session_state[key]` makes; anything else (an element id, an internal key, iterating) from
    the whole `filtered_state`, built once."""

    def __init__(self, safe) -> None:
        self._safe, self._whole = safe, None

    def _one(self, key) -> tuple[bool, object] | None:
        from streamlit.runtime.state.common import is_element_id
        from streamlit.runtime.state.session_state import _is_internal_key

        if not isinstance(key, str) or is_element_id(key) or _is_internal_key(key):
            return None
        try:
            lock, state = self._safe._lock, self._safe._state
        except AttributeError:  # not as written for: the whole state answers
            return None
        with lock:
            try:
                return True, state[key]
            except KeyError:
                return False, None

    def _all(self) -> dict:
        if self._whole is None:
            self._whole = self._safe.filtered_state
        return self._whole

    def __contains__(self, key) -> bool:
        one = self._one(key)
        return key in self._all() if one is None else one[0]

    def __getitem__(self, key):
        one = self._one(key)
        if one is None:
            return self._all()[key]
        if not one[0]:
            raise KeyError(key)
        return one[1]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _OneKeySession:
    """A SafeSessionState whose `filtered_state` is a `_OneKeyState`; everything else is the real one's."""

    def __init__(self, safe) -> None:
        self._safe = safe

    def __getattr__(self, name: str):
        return getattr(self._safe, name)

    @property
    def filtered_state(self) -> _OneKeyState:
        return _OneKeyState(self._safe)


def widgets_read_one_key() -> bool:
    """Let a widget ask Session State about its own key instead of copying all of it first.

    number_input, selectbox, slider, text_input, radio and the time widgets each read
    `get_session_state().filtered_state` only to ask `key in state and state[key] is None`;
    `filtered_state` builds a dict of every key the session holds, reading each value: a cost
    that grows with every page a visitor has seen, paid per widget per run. In those modules
    `get_session_state` is wrapped so that `filtered_state` is a `_OneKeyState`. True when in place."""
    try:
        import importlib

        from streamlit.runtime.state import get_session_state

        modules = [importlib.import_module(f"streamlit.elements.widgets.{name}") for name in WIDGET_MODULES]
        if all(getattr(m.get_session_state, "_pee_one_key", False) for m in modules):
            return True
        if not all(m.get_session_state is get_session_state for m in modules):
            return False
        _OneKeyState(None)._one("$$ID-0-k")  # the two helpers it imports are there

        def one_key_session_state():
            return _OneKeySession(get_session_state())

        one_key_session_state._pee_one_key = True
        for m in modules:
            m.get_session_state = one_key_session_state
        return True
    except Exception:
        return False


_PAGES: list = []  # the process's pages, as made, never given to st.navigation
_REUSE: list = []  # [True] once `pages_reused` is installed; empty: every run makes its pages, as Streamlit does


def pages_reused() -> bool:
    """Let `reused_pages` make the pages once per process (until then every run makes them anew). True when in place."""
    _REUSE[:] = [True]
    return True


def reused_pages(make: Callable[[], list]) -> list:
    """The st.Page list `make` returns; with `pages_reused` in place, made on the first run of the process
    and copied on later ones (see the module docstring), made anew whenever the copies would not be fresh pages."""
    if not _REUSE:
        return make()
    if _PAGES:
        try:
            copies = [copy.copy(page) for page in _PAGES]
            if all(getattr(page, "_can_be_called", None) is False for page in copies):
                return copies
        except Exception:  # pragma: no cover - a page that cannot be copied: make them anew
            pass
    made = make()
    if all(getattr(page, "_can_be_called", None) is False for page in made):
        _PAGES[:] = [copy.copy(page) for page in made]
    return made


def made_page(url_path: str):
    """The process's page at `url_path` as `reused_pages` made it, for st.page_link; None before the first run made them
    (and always with the patch off: st.page_link then resolves the page's path itself)."""
    return next((page for page in _PAGES if getattr(page, "url_path", None) == url_path), None)


# Each speed patch by the name the A/B and PEE_STOCK_STREAMLIT use, and what installs it.
PATCHES: dict[str, Callable[[], bool]] = {
    "theme": theme_read_once,
    "keyed components": keyed_components_unhashed,
    "cache keys": cache_keys_once,
    "one key": widgets_read_one_key,
    "reused pages": pages_reused,
}
