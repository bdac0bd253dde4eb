"""The shared sidebar settings a run is opened with through its URL: the defaults and the extremes the
benchmark measures and the browser tests judge."""

from __future__ import annotations

from dataclasses import dataclass

from ui.params import BASE, D_MODEL, MAX_LEN


@dataclass(frozen=True)
class Setting:
    """One value of the shared sidebar settings, given to the app through the URL."""

    name: str
    d_model: int
    max_len: int
    base: float

    def query_params(self) -> dict[str, str]:
        """The settings as the URL carries them (strings, in the app's own format)."""
        return {
            D_MODEL.name: D_MODEL.format(self.d_model),
            MAX_LEN.name: MAX_LEN.format(self.max_len),
            BASE.name: BASE.format(self.base),
        }

    def describe(self) -> str:
        """'d_model=128, max_len=256, base=10000'."""
        return ", ".join(f"{key}={value}" for key, value in self.query_params().items())


DEFAULTS = Setting("defaults", int(D_MODEL.default), int(MAX_LEN.default), float(BASE.default))
SETTINGS: tuple[Setting, ...] = (
    DEFAULTS,
    Setting("extremes", 8192, 131_072, 1e8),
    Setting("odd", 8191, 131_072, 2.0),
)
