"""The colours of the things figures name, written once: each scheme, each RoPE scaling region
and each series that recurs from page to page keeps its colour in every figure that draws it.

The colours are Okabe and Ito's eight ("Color Universal Design", 2008), told apart with every
common colour-vision deficiency, and, for schemes past those, Paul Tol's "muted" qualitative
set (https://personal.sron.nl/~pault/). Thirteen schemes cannot all be told apart by colour
alone, so the lab's six default schemes take solid colours (`SOLID`: Okabe-Ito's, but a mustard for
the learned table, since Okabe-Ito's orange and vermilion read as one orange beside each other), and
a scheme drawn in a Tol colour is drawn dashed as well, and t2t, near the sinusoid's blue, dotted (`scheme_dash`). What /lab
and /llm draw beside the schemes (the RoPE scaling kinds, a pair's speed, the lab task picture's series) takes a second set, searched
for apart from every scheme's colour (KIND_COLOURS), so a colour that names a scheme names
nothing else there. The scaling regions and the wavelength series of /rope and /context, pages
that draw no scheme, still share Okabe-Ito's colours.

A line or a dot wants 3:1 against the plot behind it (WCAG 1.4.11). A colour under that on white is given here as a darker
neighbour of its hue, and ui/assets/app.css draws it as it was on the dark theme's plot; a colour under it there has a
lighter twin of its hue in app.css. Each was searched for so that every gap tests/core/viz/test_palette.py asks of colours
drawn together holds in both themes, with each missing cone simulated.
"""

from __future__ import annotations

# Okabe-Ito (its orange, #E69F00, and sky blue, #56B4E9, 2.2:1 and 2.3:1 on white, in darker neighbours; both as they were in
# the dark theme)
BLACK = "#000000"
ORANGE = "#A2692B"
SKY_BLUE = "#3B97DA"
GREEN = "#009E73"  # bluish green
YELLOW = "#F0E442"  # too light for a line on white: not given to a series
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"  # reddish purple
OKABE_ITO = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY_BLUE, BLACK, YELLOW)
# the learned table's, beside the lab's other defaults: a yellow hue far from them (ΔE*ab 50 in typical vision where
# Okabe-Ito's orange was 33 from vermilion, and at least 12 with each simulated missing cone), #BBAA44 in the dark theme
MUSTARD = "#9F8C3D"
SOLID = (BLUE, VERMILLION, GREEN, PURPLE, BLACK, MUSTARD)  # the lab's six defaults' colours: a scheme in one is drawn with a solid line

# Paul Tol's muted set (the ones dark enough for a line on white; its teal, #44AA99, in a darker neighbour there, and its
# indigo and wine in lighter twins on the dark plot)
INDIGO = "#332288"
OLIVE = "#999933"
WINE = "#882255"
ROSE = "#CC6677"
TEAL = "#43A08D"
MAGENTA = "#AA4499"
TOL_MUTED = (INDIGO, OLIVE, WINE, ROSE, TEAL, MAGENTA)
# a figure's lines that name nothing above (heads, dimensions), in order. The first eight (a chart draws eight heads at most)
# are at least 30 ΔE*ab apart in typical vision and 12 with each missing cone, in both themes: Okabe-Ito's without its yellow
# and its sky blue (14 from its blue on white), Tol's olive (beside black, Tol's indigo read as a second black: one dark line
# only in eight) and the violet of the scaling kinds' search (the lab task picture's TESTED, drawn on no page with heads).
# The rest, Okabe-Ito's sky blue and Tol's, come in the order that lets relative_figures.span_heads spread eight heads
# evenly over every head count while it keeps NEAR_LINES apart.
VIOLET = "#9900FF"
LINES = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, BLACK, OLIVE, VIOLET, SKY_BLUE, ROSE, INDIGO, TEAL, WINE, MAGENTA)
# the pairs of LINES under 12 ΔE*ab apart with some missing cone in either theme (tests/core/viz/test_palette.py finds the
# same pairs from the colours and their dark twins): a chart that picks some of many heads takes one of each pair at most
NEAR_LINES = frozenset(frozenset(pair) for pair in ((BLUE, MAGENTA), (GREEN, TEAL), (GREEN, ROSE), (PURPLE, TEAL), (PURPLE, MAGENTA), (SKY_BLUE, TEAL)))

# The diverging scale of signed values in the dark theme. The light theme's (Plotly's RdBu, reversed) is white at 0, a
# glare on the dark page where zero should recede as it does on white; this one runs from light blue through dark blue to
# a dark grey at 0 (not the page's own colour: a cell of 0 still shows where a blank cell shows the page) and on through
# dark red to light red, RdBu's own hues, its lightness rising from the middle outwards as the light scale's falls.
DARK_DIVERGING = ((0.0, "#92c5de"), (0.25, "#2166ac"), (0.5, "#2b2f38"), (0.75, "#b2182b"), (1.0, "#f4a582"))

# the greys of reference marks: a context a model was trained on, and lesser marks (band edges)
MARK = "#555555"
# FAINT_MARK colours label text too ("band edge 6.283", "never turn"), so 4.5:1 on white and, in its dark twin (#8C9294), 6.0:1 on
# the dark plot, where MARK's twin is lighter still; a breath of blue keeps it 12 ΔE*ab from the target's green with no green cone
FAINT_MARK = "#727678"

SCHEME_COLOURS: dict[str, str] = {
    # the lab's defaults, drawn together: one Okabe-Ito colour each
    "none": BLACK,
    "sinusoidal": BLUE,
    "learned": MUSTARD,
    "rope": GREEN,
    "t5": PURPLE,
    "alibi": VERMILLION,
    # the rest
    "t2t": SKY_BLUE,  # Okabe-Ito's orange names a scaled model on /context (SCALED), so no scheme takes it
    "integer": INDIGO,
    "fraction": OLIVE,
    "binary": WINE,
    "onehot": ROSE,
    "shaw": TEAL,
    "kerple": MAGENTA,
}

# RoPE scaling: what a scaling does to a pair (core.schemes.rope.REGION_LABELS), and the lines around them (in the dark theme
# ui/assets/app.css draws kept, blended and UNSCALED in lighter or deeper twins of their hue, where these were dim or too near a mark)
REGION_COLOURS: dict[str, str] = {
    "kept": BLUE,  # its trained frequency
    "blended": PURPLE,
    "interpolated": VERMILLION,  # divided by the factor; the 1/s mark takes its colour
    "not rotated": FAINT_MARK,
}
# RoPE scaling kinds drawn side by side (the trained RoPE model stretched on /lab, the language model's perplexity and
# passkey on /llm): a second set, apart from every scheme's colour and from the marks' greys, so a colour that names a
# scheme never names a kind. Found by a search over a 16-step sRGB grid (L* 25 to 68, dark enough for a line on white) for
# the colour farthest, in ΔE*ab, from the schemes, the marks and the kinds already picked, with typical vision and each
# simulated missing cone; tests/core/viz/test_palette.py checks the gap. YaRN and YaRN without its temperature, akin by
# their rule, share a family (magentas); a kind's factors differ by dash. Dynamic NTK, which /llm alone draws (a page that
# draws no scheme), is searched apart from the other kinds and the marks only: a second green beside NTK-aware's read as
# one, and no colour 30° in hue from every other kind was also apart from every scheme. NTK-aware's green and the plum take
# lighter twins in the dark theme, the periwinkle a deeper one on white, each for 3:1 against its plot. What is
# left of the search near no scaling's dark red is reds and browns, so only linear takes one (a brown, lighter than the red);
# Llama 3 takes the periwinkle, three reds in one chart (no scaling, linear, Llama 3) reading as one family that is not one.
KIND_COLOURS: dict[str, str] = {
    "none": "#880000",  # dark red
    "linear": "#885500",  # brown
    "ntk": "#336633",  # dark green
    "dynamic": "#448899",  # petrol blue
    "yarn": "#CC22BB",  # magenta
    "yarn-no-temperature": "#772266",  # plum
    "llama3": "#827AEF",  # periwinkle (#7799FF in the dark theme)
}
# the turning pairs of a sinusoid or RoPE by speed, from the same search: those that complete a turn within the context
# (the fast ones) and those that never do (the slow ones), on a wavelength chart and as the pairs a model loses on /lab
FAST = "#8855EE"  # blue violet
SLOW = "#6A9E5C"  # leaf green (#77AA55 in the dark theme)
UNSCALED = KIND_COLOURS["none"]  # the wavelengths before scaling: RoPE with no scaling, in that kind's colour on every page
OTHER_BASE = SKY_BLUE  # the same pairs at another base, for comparison: 14 ΔE*ab from kept's blue, so drawn in its own symbol
OTHER_BASE_SYMBOL = ("diamond", 7)
SHORT = OLIVE  # a scaled model's wavelengths up to its trained context, where they differ (LongRoPE's short list)
TARGET = GREEN  # the longer context a scaling aims at
SCALED = ORANGE  # a scaled model as a whole (its score against the offset), beside UNSCALED

# the two series of the lab's task picture, where each answer stands: at the training length in the grey that marks a
# trained context everywhere, and at the longest evaluation length in a colour of the same search as the kinds'
TESTED = VIOLET
TRAINED = MARK


def scheme_colour(scheme: str) -> str:
    """The colour of a registry scheme (its name, e.g. 'rope') in every figure; KeyError for an unknown name."""
    return SCHEME_COLOURS[scheme]


def scheme_dash(scheme: str) -> str:
    """'solid' for a scheme in a SOLID colour, 'dash' for one in a Tol colour (see the module's docstring), 'dot' for t2t: its sky
    blue is 14 ΔE*ab from the sinusoid's blue on white (the two sinusoids a learner compares) and 9 from Shaw's teal without a
    blue cone."""
    colour = SCHEME_COLOURS[scheme]
    return "solid" if colour in SOLID else "dash" if colour in TOL_MUTED else "dot"


def lines_apart(a: str, b: str) -> bool:
    """Whether two of LINES may be drawn in one chart: not one colour, nor a pair of NEAR_LINES."""
    return a != b and frozenset((a, b)) not in NEAR_LINES


def head_colour(head: int) -> str:
    """The colour of attention head `head` (0-based) in every figure that draws heads as lines, so head 5 is one
    colour in every chart of a tab however many of the heads each chart picks."""
    return LINES[head % len(LINES)]


def region_colour(label: str) -> str:
    """The colour of a RoPE scaling region ('kept', 'blended', 'interpolated', 'not rotated')."""
    return REGION_COLOURS[label]


def scaling_colour(name: str) -> str:
    """The colour of a line of a RoPE wavelength-per-pair figure, read from its name as
    core.analysis.context.wavelength_series and /rope's scaling tab write it: 'after: kept' (a
    region), 'after, for sequences up to …' (the short list), 'base 500,000 …' (another base),
    and the unscaled wavelengths ('before …', 'every turning pair')."""
    if name.startswith("after: "):
        return region_colour(name.removeprefix("after: "))
    if name.startswith("after,"):
        return SHORT
    if name.startswith("base "):
        return OTHER_BASE
    return UNSCALED


def tint(colour: str, alpha: float) -> str:
    """A '#RRGGBB' colour as 'rgba(r,g,b,alpha)': the fill of a band around a line of that colour."""
    r, g, b = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha:g})"
