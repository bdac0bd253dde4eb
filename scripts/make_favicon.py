"""Draw the app's favicon (ui/assets/favicon.png): three sine waves of doubling wavelength,
like the first pairs of the sinusoidal encoding, in the app's blue and red. The app serves it
itself, so the tab has its icon with no network (a Material icon would be fetched from a font
server). Run once; the PNG is committed: python scripts/make_favicon.py"""

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

SIZE, SCALE = 64, 4  # drawn 4x larger, then reduced: smooth edges
OUT = Path(__file__).resolve().parent.parent / "ui" / "assets" / "favicon.png"


def main() -> None:
    n = SIZE * SCALE
    img = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle([0, 0, n - 1, n - 1], radius=12 * SCALE, fill=(255, 255, 255, 255))
    x = np.linspace(0, 1, 200)
    for row, (period, colour) in enumerate([(1 / 4, (33, 102, 172)), (1 / 2, (67, 147, 195)), (1.0, (178, 24, 43))]):
        centre = n * (0.25 + 0.25 * row)
        y = centre - 0.09 * n * np.sin(2 * np.pi * x / period)
        points = list(zip((0.08 * n + x * 0.84 * n).tolist(), y.tolist()))
        draw.line(points, fill=colour + (255,), width=5 * SCALE, joint="curve")
    img.resize((SIZE, SIZE), Image.LANCZOS).save(OUT, optimize=True)


if __name__ == "__main__":
    main()
